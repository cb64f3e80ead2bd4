package batching_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"slices"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	batching "github.com/qwen3go/qwen3go/chapters/10_batching"
	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// Three prompts of 5, 1 and 4 tokens padded to one width with the pad id 0, and their real flags
// (transformers' attention_mask, 1 for a prompt token). On the left, every prompt ends in the last
// column, where its next token will be predicted and appended.
func ExamplePad() {
	prompts := [][]int{{785, 6722, 315, 9625, 374}, {13048}, {12522, 5193, 264, 882}}
	for _, side := range []batching.Side{batching.Left, batching.Right} {
		b, err := batching.Pad(prompts, 0, side)
		if err != nil {
			log.Fatal(err)
		}
		flags := make([][]int, b.Len())
		for i, real := range b.Real {
			flags[i] = make([]int, len(real))
			for t, r := range real {
				if r {
					flags[i][t] = 1
				}
			}
		}
		fmt.Printf("%-5v ids  %v\n", side, b.IDs)
		fmt.Printf("%-5v real %v\n", side, flags)
	}
	// Output:
	// left  ids  [[785 6722 315 9625 374] [0 0 0 0 13048] [0 12522 5193 264 882]]
	// left  real [[1 1 1 1 1] [0 0 0 0 1] [0 1 1 1 1]]
	// right ids  [[785 6722 315 9625 374] [13048 0 0 0 0] [12522 5193 264 882 0]]
	// right real [[1 1 1 1 1] [1 0 0 0 0] [1 1 1 1 0]]
}

// Each prompt's first real token is at position 0, whatever column it sits in.
func ExamplePositions() {
	b, _ := batching.Pad([][]int{{785, 6722, 315, 9625, 374}, {13048}, {12522, 5193, 264, 882}}, 0, batching.Left)
	for _, p := range batching.Positions(b.Real) {
		fmt.Println(p)
	}
	// Output:
	// [0 1 2 3 4]
	// [0 0 0 0 0]
	// [0 0 1 2 3]
}

// The mask of a sequence with two padding columns: "x" is -Inf (hidden), "." is 0 (visible).
// Real queries see the real keys up to their own; the padding queries see only themselves. At a
// decode step the one new query (the last line) sees every real key.
func ExampleMask() {
	show := func(label string, m *mat.Dense) {
		r, c := m.Dims()
		for i := 0; i < r; i++ {
			row := label
			for j := 0; j < c; j++ {
				if math.IsInf(m.At(i, j), -1) {
					row += " x"
				} else {
					row += " ."
				}
			}
			fmt.Println(row)
		}
	}
	real := []bool{false, false, true, true}
	show("prefill", batching.Mask(real, 4))               // every column is a query
	show("step   ", batching.Mask(append(real, true), 1)) // one new token
	// Output:
	// prefill . x x x
	// prefill x . x x
	// prefill x x . x
	// prefill x x . .
	// step    x x . . .
}

// A batched KV cache: three prompts prefilled together, then one step for all of them. Each
// sequence has its own next position; all have the same width, padding included; and each call
// reads the weights of the tiny model's 6 layers once for all three sequences (6 weight passes per
// call).
func ExampleCache() {
	m, err := forward.Load(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	b, _ := batching.Pad([][]int{{785, 6722, 315, 9625, 374}, {13048}, {12522, 5193, 264, 882}}, batching.PadToken, batching.Left)
	c, err := batching.New(m, 16)
	if err != nil {
		log.Fatal(err)
	}
	logits, err := c.Prefill(b)
	if err != nil {
		log.Fatal(err)
	}
	report := func() {
		fmt.Printf("width %d, next positions [%d %d %d], weight passes %d\n", c.Width(), c.Next(0), c.Next(1), c.Next(2), c.WeightPasses())
	}
	report()
	next := make([]int, len(logits))
	for i, l := range logits {
		next[i] = sampling.Argmax(l)
	}
	fmt.Println("greedy tokens:", next)
	if _, err := c.Step(next); err != nil {
		log.Fatal(err)
	}
	report()
	// Output:
	// width 5, next positions [5 1 4], weight passes 6
	// greedy tokens: [537 1669 315]
	// width 6, next positions [6 2 5], weight passes 12
}

// Greedy generation for three prompts at once. The tiny model completes Go and never says
// <|im_end|>, so the stop token here is one it does say: 12 ("-") is the 4th token after the first
// prompt. That sequence stops after 3 tokens and leaves the batch; the other two run to the budget.
// Each list is exactly what chapter 09's Generate gives for the prompt alone.
func ExampleGenerate() {
	m, err := forward.Load(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	prompts := [][]int{{785, 6722, 315, 9625, 374}, {13048}, {12522, 5193, 264, 882}}
	opts := batching.Options{
		GenerateOptions: sampling.GenerateOptions{Settings: sampling.Greedy(), MaxNewTokens: 8, StopTokens: []int{12}},
		Pad:             batching.PadToken,
	}
	out, err := batching.Generate(context.Background(), m, prompts, opts, nil)
	if err != nil {
		log.Fatal(err)
	}
	for b, ids := range out {
		fmt.Println(b, ids)
	}
	// Output:
	// 0 [537 264 2477]
	// 1 [1669 1281 9147 58 9242 10184 60 9242]
	// 2 [315 279 882 315 279 882 315 279]
}

// The golden batch (reference/golden/10_batching/batch.json), transformers' run that the tests
// compare with, as the package doc describes it: the prompts' lengths; when each sequence of the
// left-padded greedy batch stops (the stop token counted) or runs to the budget; and which
// sequences of the right-padded batch continue differently from their prompt alone, and from
// which new token.
func Example_goldenBatch() {
	var g struct {
		StopTokens   []int `json:"stop_tokens"`
		MaxNewTokens int   `json:"max_new_tokens"`
		Prompts      []struct {
			IDs         []int `json:"ids"`
			AloneNewIDs []int `json:"alone_new_ids"`
		} `json:"prompts"`
		Left, Right struct {
			NewIDs [][]int `json:"new_ids"`
		}
	}
	if err := reference.LoadJSON("10_batching", "batch", &g); err != nil {
		log.Fatal(err)
	}
	var lengths []int
	for _, p := range g.Prompts {
		lengths = append(lengths, len(p.IDs))
	}
	fmt.Println("prompt lengths:", lengths, "budget:", g.MaxNewTokens)
	for b, ids := range g.Left.NewIDs {
		stop := slices.IndexFunc(ids, func(id int) bool { return slices.Contains(g.StopTokens, id) })
		if stop < 0 {
			fmt.Printf("prompt %d: left-padded, runs to the budget", b)
		} else {
			fmt.Printf("prompt %d: left-padded, stops after %d new tokens", b, stop+1)
		}
		right, alone := g.Right.NewIDs[b], g.Prompts[b].AloneNewIDs
		n := min(len(right), len(alone))
		k := 0
		for k < n && right[k] == alone[k] {
			k++
		}
		if k == n {
			fmt.Println("; right-padded, the same as alone")
		} else {
			fmt.Printf("; right-padded, differs from alone at new token %d\n", k)
		}
	}
	// Output:
	// prompt lengths: [4 1 13 10 5] budget: 24
	// prompt 0: left-padded, stops after 8 new tokens; right-padded, differs from alone at new token 0
	// prompt 1: left-padded, runs to the budget; right-padded, differs from alone at new token 0
	// prompt 2: left-padded, runs to the budget; right-padded, the same as alone
	// prompt 3: left-padded, stops after 6 new tokens; right-padded, differs from alone at new token 0
	// prompt 4: left-padded, stops after 5 new tokens; right-padded, differs from alone at new token 0
}
