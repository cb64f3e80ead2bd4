package forward

import (
	"math"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// patternMaps builds one layer of four attention maps over ids, each a pure pattern: 0 previous
// token, 1 first token, 2 induction (all weight on the earlier successors where there are some,
// else on the query itself), 3 uniform over the visible keys.
func patternMaps(ids []int) []*mat.Dense {
	seq := len(ids)
	succ := earlierSuccessors(ids)
	maps := make([]*mat.Dense, 4)
	for h := range maps {
		maps[h] = mat.NewDense(seq, seq, nil)
	}
	for i := range seq {
		maps[0].Set(i, max(i-1, 0), 1)
		maps[1].Set(i, 0, 1)
		if k := succ[i]; len(k) > 0 {
			for _, j := range k {
				maps[2].Set(i, j, 1/float64(len(k)))
			}
		} else {
			maps[2].Set(i, i, 1)
		}
		for j := 0; j <= i; j++ {
			maps[3].Set(i, j, 1/float64(i+1))
		}
	}
	return maps
}

// TestScoreHeadsPatterns: each pure pattern scores 1 on its own measure, and the uniform head the
// means its formula gives.
func TestScoreHeadsPatterns(t *testing.T) {
	// a b c a b c d a: queries 3 (a), 4 (b), 5 (c), 7 (a) have earlier copies; query 7's token a
	// appeared at 0 and 3, so its successors are 1 and 4.
	ids := []int{10, 11, 12, 10, 11, 12, 13, 10}
	tr := &Trace{IDs: ids, Attn: [][]*mat.Dense{patternMaps(ids)}}
	s, err := ScoreHeads(tr)
	if err != nil {
		t.Fatal(err)
	}
	if s.InductionQueries != 4 {
		t.Errorf("InductionQueries = %d, want 4 (positions 3, 4, 5 and 7)", s.InductionQueries)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.6f, want %.6f", name, got, want)
		}
	}
	near("Previous of the previous-token head", s.Previous.At(0, 0), 1)
	near("First of the first-token head", s.First.At(0, 1), 1)
	near("Induction of the induction head", s.Induction.At(0, 2), 1)
	near("Previous of the first-token head", s.Previous.At(0, 1), 0)
	near("Induction of the previous-token head", s.Induction.At(0, 0), 0)
	// Uniform: query i gives 1/(i+1) to every key, so Previous = First = mean over i=2..7 of 1/(i+1),
	// and Induction = mean over the induction queries of |S(i)|/(i+1) = (1/4 + 1/5 + 1/6 + 2/8)/4.
	var u float64
	for i := 2; i < len(ids); i++ {
		u += 1 / float64(i+1)
	}
	u /= float64(len(ids) - 2)
	near("Previous of the uniform head", s.Previous.At(0, 3), u)
	near("First of the uniform head", s.First.At(0, 3), u)
	near("Induction of the uniform head", s.Induction.At(0, 3), (1.0/4+1.0/5+1.0/6+2.0/8)/4)

	r := Ranked(s.Previous)
	if len(r) != 4 || r[0] != (Head{0, 0, 1}) || r[3].Score != 0 {
		t.Errorf("Ranked(Previous) = %v, want head 0 first with score 1 and a zero last", r)
	}
}

// TestScoreHeadsNoRepeat: a sequence without a repeated token has no induction query, and its
// induction scores are NaN (not a misleading 0); Ranked puts NaN last.
func TestScoreHeadsNoRepeat(t *testing.T) {
	ids := []int{1, 2, 3, 4, 5}
	s, err := ScoreHeads(&Trace{IDs: ids, Attn: [][]*mat.Dense{patternMaps(ids)}})
	if err != nil {
		t.Fatal(err)
	}
	if s.InductionQueries != 0 || !math.IsNaN(s.Induction.At(0, 2)) {
		t.Errorf("no repeats: InductionQueries %d, Induction %v; want 0 and NaN", s.InductionQueries, s.Induction.At(0, 2))
	}
	// "a a": the successor of the earlier copy is the query itself, which is not an induction query.
	if got := earlierSuccessors([]int{7, 7, 7}); len(got[1]) != 0 || len(got[2]) != 1 || got[2][0] != 1 {
		t.Errorf("earlierSuccessors(7 7 7) = %v, want [[] [] [1]]", got)
	}
	s.Previous.Set(0, 1, math.NaN())
	if r := Ranked(s.Previous); !math.IsNaN(r[3].Score) || r[0].Score != 1 {
		t.Errorf("Ranked with a NaN: %v, want the NaN last", r)
	}
}

// TestScoreHeadsErrors: what ScoreHeads refuses, with a message that says why.
func TestScoreHeadsErrors(t *testing.T) {
	ids := []int{1, 2, 3, 4}
	good := patternMaps(ids)
	for _, tc := range []struct {
		name string
		tr   *Trace
		want string
	}{
		{"no maps", &Trace{IDs: ids}, "no attention maps"},
		{"two tokens", &Trace{IDs: ids[:2], Attn: [][]*mat.Dense{patternMaps(ids[:2])}}, "2 tokens"},
		{"wrong shape", &Trace{IDs: ids[:3], Attn: [][]*mat.Dense{good}}, "4x4 for 3 tokens"},
		{"ragged", &Trace{IDs: ids, Attn: [][]*mat.Dense{good, good[:2]}}, "layer 1 has 2 heads"},
	} {
		if _, err := ScoreHeads(tc.tr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestLogitLensProperties: on the tiny model, the lens's last depth is the model's own next-token
// distribution (its top token is the argmax of the logits, its probability their softmax), every
// list is sorted and of length k, and bad input is an error.
func TestLogitLensProperties(t *testing.T) {
	m := tinyModels(t)["gguf"]
	tr, err := m.ForwardTrace(goldenTrace(t, 0).IDs)
	if err != nil {
		t.Fatal(err)
	}
	const k = 5
	lens, err := m.LogitLens(tr, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(lens) != len(m.Layers)+1 {
		t.Fatalf("%d depths, want embeddings + %d layers", len(lens), len(m.Layers))
	}
	for d := range lens {
		for pos, top := range lens[d] {
			if len(top) != k {
				t.Fatalf("depth %d position %d: %d tokens, want %d", d, pos, len(top), k)
			}
			for i := 1; i < k; i++ {
				if top[i].Prob > top[i-1].Prob {
					t.Fatalf("depth %d position %d: not sorted: %v", d, pos, top)
				}
			}
		}
	}
	for pos := range tr.IDs {
		row := append([]float64(nil), tr.Logits.RawRowView(pos)...)
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		var z float64
		for _, v := range row {
			z += math.Exp(v - row[best])
		}
		got := lens[len(m.Layers)][pos][0]
		if got.ID != best || math.Abs(got.Prob-1/z) > 1e-12 {
			t.Errorf("position %d: the last depth's top token is %d (p %.6f); the model's logits say %d (p %.6f)",
				pos, got.ID, got.Prob, best, 1/z)
		}
	}
	if _, err := m.LogitLens(tr, 0); err == nil {
		t.Error("k = 0: no error")
	}
	if _, err := m.LogitLens(&Trace{Embed: tr.Embed, Layers: tr.Layers[:1]}, 1); err == nil {
		t.Error("a trace with one layer: no error")
	}
	if got := topProbs([]float64{1, 3, 3, 2}, 3); got[0].ID != 1 || got[1].ID != 2 || got[2].ID != 3 {
		t.Errorf("topProbs with a tie: %v, want ids 1, 2 (equal, in id order), then 3", got)
	}
}

// headsGolden is golden/07_forward/heads.json: transformers' attention probabilities on a Go
// snippet, scored by make_reference.py's own implementation of the three patterns.
type headsGolden struct {
	Text             string      `json:"text"`
	IDs              []int       `json:"ids"`
	Previous         [][]float64 `json:"previous"`
	First            [][]float64 `json:"first"`
	Induction        [][]float64 `json:"induction"`
	InductionQueries int         `json:"induction_queries"`
}

// headTol bounds |ScoreHeads - transformers' scores|. Scores are means of attention
// probabilities, which chapter 07 reproduces within attnTol (TestTraceAttention); a mean cannot
// be further off than its terms. Measured: see the log line.
const headTol = attnTol

// TestScoreHeadsGolden: the head scores of the tiny trained model on a Go snippet with repeated
// identifiers match those computed in Python from transformers' attention, and the model has the
// named heads the notebooks show (each pattern's strongest head is logged).
func TestScoreHeadsGolden(t *testing.T) {
	var g headsGolden
	if err := reference.LoadJSON("07_forward", "heads", &g); err != nil {
		t.Fatal(err)
	}
	m := tinyModels(t)["gguf"]
	tr, err := m.ForwardTrace(g.IDs)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ScoreHeads(tr)
	if err != nil {
		t.Fatal(err)
	}
	if s.InductionQueries != g.InductionQueries {
		t.Fatalf("%d induction queries, transformers' side counts %d", s.InductionQueries, g.InductionQueries)
	}
	worst := 0.0
	for _, p := range []struct {
		name string
		got  *mat.Dense
		want [][]float64
	}{{"previous", s.Previous, g.Previous}, {"first", s.First, g.First}, {"induction", s.Induction, g.Induction}} {
		for l, row := range p.want {
			for h, w := range row {
				d := math.Abs(p.got.At(l, h) - w)
				if !(d <= headTol) {
					t.Errorf("%s score of layer %d head %d: %.6f, transformers' %.6f", p.name, l, h, p.got.At(l, h), w)
				}
				worst = max(worst, d)
			}
		}
		best := Ranked(p.got)[0]
		t.Logf("strongest %s head: layer %d head %d, score %.3f", p.name, best.Layer, best.Head, best.Score)
	}
	t.Logf("%d tokens, %d induction queries; scores within %.2g of transformers' (tolerance %g)", len(g.IDs), s.InductionQueries, worst, headTol)
}

// lensTol bounds the logit lens's probabilities against transformers' (float32): probabilities
// are at most 1, and the logits behind them are within logitTol; exp turns an error e in a logit
// into a relative error e in its probability. Measured: see the log line.
const lensTol = logitTol

// TestLogitLensGolden: the logit lens on the Go snippet of heads.json gives transformers' top
// tokens and probabilities at every depth and position (ids compared where the golden
// probability is more than 2 x lensTol from its neighbours, so that no near tie decides; not at
// the last rank, whose unstored successor could be a tie).
func TestLogitLensGolden(t *testing.T) {
	var g headsGolden
	if err := reference.LoadJSON("07_forward", "heads", &g); err != nil {
		t.Fatal(err)
	}
	ids, err := reference.LoadArray("07_forward", "lens_ids.npy")
	if err != nil {
		t.Fatal(err)
	}
	probs, err := reference.LoadArray("07_forward", "lens_probs.npy")
	if err != nil {
		t.Fatal(err)
	}
	m := tinyModels(t)["hf"]
	tr, err := m.ForwardTrace(g.IDs)
	if err != nil {
		t.Fatal(err)
	}
	k := ids.Shape[2]
	lens, err := m.LogitLens(tr, k)
	if err != nil {
		t.Fatal(err)
	}
	if len(lens) != ids.Shape[0] || len(lens[0]) != ids.Shape[1] {
		t.Fatalf("lens %d x %d, golden %v", len(lens), len(lens[0]), ids.Shape)
	}
	worst := 0.0
	for d := range lens {
		for pos := range lens[d] {
			for r := range k {
				i := (d*ids.Shape[1]+pos)*k + r
				want, wantID := probs.Data[i], int(ids.Data[i])
				got := lens[d][pos][r]
				e := math.Abs(got.Prob - want)
				worst = max(worst, e)
				clear := (r == 0 || probs.Data[i-1]-want > 2*lensTol) && r < k-1 && want-probs.Data[i+1] > 2*lensTol
				if !(e <= lensTol) || (clear && got.ID != wantID) {
					t.Fatalf("depth %d position %d rank %d: token %d p %.6f, transformers token %d p %.6f", d, pos, r, got.ID, got.Prob, wantID, want)
				}
			}
		}
	}
	t.Logf("%d depths x %d positions x top %d: probabilities within %.2g of transformers' (tolerance %g)", len(lens), len(lens[0]), k, worst, lensTol)
}
