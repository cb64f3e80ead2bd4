package batching_test

import (
	"fmt"
	"math"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	batching "github.com/qwen3go/qwen3go/chapters/10_batching"
)

// Example_byHand is the worked example of the package doc: two prompts of 3 and 1 tokens over a
// vocabulary of 5, padded on the left with id 0, on a small random model (chapter 07's
// forward.Random), through one prefill and one step, each checked against the prompt alone.
func Example_byHand() {
	m, err := forward.Random(gguf.Config{HiddenSize: 8, IntermediateSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
		NumKeyValueHeads: 1, HeadDim: 4, VocabSize: 5, MaxPositionEmbeddings: 16, RopeTheta: 1e6, RMSNormEps: 1e-6}, 1)
	if err != nil {
		panic(err)
	}
	prompts := [][]int{{1, 3, 2}, {4}}
	b, _ := batching.Pad(prompts, 0, batching.Left)
	fmt.Println("ids      ", b.IDs)
	fmt.Println("real     ", b.Real)
	fmt.Println("positions", batching.Positions(b.Real))
	for i := range prompts {
		mask := batching.Mask(b.Real[i], b.Width())
		fmt.Printf("mask %d    %v | %v | %v\n", i, mask.RawRowView(0), mask.RawRowView(1), mask.RawRowView(2))
	}

	c, _ := batching.New(m, 16)
	logits, _ := c.Prefill(b)
	logits2, _ := c.Step([]int{2, 1}) // the next token of each sequence
	fmt.Printf("width %d, next positions %d and %d, weight passes %d (one per layer per call)\n", c.Width(), c.Next(0), c.Next(1), c.WeightPasses())

	// Each sequence alone, with chapter 07's Forward: the same logits.
	for i, ids := range [][]int{{1, 3, 2, 2}, {4, 1}} {
		alone, _ := m.Forward(ids)
		var d1, d2 float64
		n := len(ids)
		for j := range 5 {
			d1 = math.Max(d1, math.Abs(alone.At(n-2, j)-logits[i][j]))
			d2 = math.Max(d2, math.Abs(alone.At(n-1, j)-logits2[i][j]))
		}
		fmt.Printf("sequence %d alone %v: prefill and step logits agree within 1e-12: %v %v\n", i, ids, d1 < 1e-12, d2 < 1e-12)
	}
	// Output:
	// ids       [[1 3 2] [0 0 4]]
	// real      [[true true true] [false false true]]
	// positions [[0 1 2] [0 0 0]]
	// mask 0    [0 -Inf -Inf] | [0 0 -Inf] | [0 0 0]
	// mask 1    [0 -Inf -Inf] | [-Inf 0 -Inf] | [-Inf -Inf 0]
	// width 4, next positions 4 and 2, weight passes 4 (one per layer per call)
	// sequence 0 alone [1 3 2 2]: prefill and step logits agree within 1e-12: true true
	// sequence 1 alone [4 1]: prefill and step logits agree within 1e-12: true true
}
