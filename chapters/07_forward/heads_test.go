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
// snippet (three bytes.Buffer methods, from a file of the training split: the logit lens's text,
// not evidence for naming heads, which probes.json holds), scored by make_reference.py's own
// implementation of the three patterns.
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
// identifiers match those computed in Python from transformers' attention (each pattern's
// strongest head on it is logged).
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

// lensTol bounds the logit lens's probabilities against transformers': float32 logits, whose
// rounding reaches the probabilities (exp turns an error e in a logit into a relative error e in
// its probability), put through a float64 softmax (make_reference.py: a float32 softmax's sum over
// the 151,936 columns alone moved them by up to 3.3e-4). Measured on the tiny model of 2026-11-27:
// 6.6e-6 (see the log line); 5e-5 is 7.6 times that.
const lensTol = 5e-5

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

// TestThreshold: the bar by hand. Pooled scores 0.1, 0.2, 0.2, 0.3, 0.9 (two "sequences"): median
// 0.2, deviations 0.1, 0, 0, 0.1, 0.7, MAD 0.1, so the bar is 0.2 + 3 × 1.4826 × 0.1 = 0.64478:
// the outlier 0.9, a head that has the pattern on the control, does not move it. NaN scores are
// left out, and all-NaN controls give NaN.
func TestThreshold(t *testing.T) {
	a := mat.NewDense(1, 3, []float64{0.1, 0.2, math.NaN()})
	b := mat.NewDense(1, 3, []float64{0.2, 0.3, 0.9})
	if got, want := Threshold([]*mat.Dense{a, b}), 0.2+3*1.4826*0.1; math.Abs(got-want) > 1e-12 {
		t.Errorf("Threshold = %.6f, want %.6f (median 0.2 + 3 x 1.4826 x MAD 0.1)", got, want)
	}
	if got := Threshold([]*mat.Dense{mat.NewDense(1, 1, []float64{math.NaN()})}); !math.IsNaN(got) {
		t.Errorf("Threshold of NaN scores = %v, want NaN", got)
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median(4 1 3 2) = %v, want 2.5", got)
	}
}

// TestSummarize: means and population standard deviations per head, NaN scores left out.
func TestSummarize(t *testing.T) {
	one := func(p, f, i float64, q int) *HeadScores {
		return &HeadScores{Previous: mat.NewDense(1, 1, []float64{p}), First: mat.NewDense(1, 1, []float64{f}),
			Induction: mat.NewDense(1, 1, []float64{i}), InductionQueries: q}
	}
	mean, sd := Summarize([]*HeadScores{one(0.2, 0.5, math.NaN(), 0), one(0.4, 0.5, 0.3, 7)})
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean previous", mean.Previous.At(0, 0), 0.3}, {"sd previous", sd.Previous.At(0, 0), 0.1},
		{"mean first", mean.First.At(0, 0), 0.5}, {"sd first", sd.First.At(0, 0), 0},
		{"mean induction (the NaN left out)", mean.Induction.At(0, 0), 0.3}, {"sd induction", sd.Induction.At(0, 0), 0},
		{"induction queries", float64(mean.InductionQueries), 7},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	mean, _ = Summarize([]*HeadScores{one(0.2, 0.5, math.NaN(), 0)})
	if !math.IsNaN(mean.Induction.At(0, 0)) {
		t.Errorf("mean of NaN induction scores = %v, want NaN", mean.Induction.At(0, 0))
	}
}

// TestNamedRule: Named applies each pattern's bar to the held-out means, and for induction to the
// repeated control's mean as well.
func TestNamedRule(t *testing.T) {
	d := func(v ...float64) *mat.Dense { return mat.NewDense(1, len(v), v) }
	e := &Evidence{
		HeldOut:     &HeadScores{Previous: d(0.7, 0.2, 0.5), First: d(0.1, 0.1, 0.1), Induction: d(0.4, 0.4, math.NaN())},
		Repeated:    &HeadScores{Induction: d(0.6, 0.1, 0.9)},
		PreviousBar: 0.5, FirstBar: 0.2, InductionBar: 0.3,
	}
	prev, first, ind := e.Named()
	if len(prev) != 2 || prev[0] != (Head{0, 0, 0.7}) || prev[1] != (Head{0, 2, 0.5}) {
		t.Errorf("previous-token heads %v, want L0H0 0.7 then L0H2 0.5 (the bar itself counts)", prev)
	}
	if len(first) != 0 {
		t.Errorf("first-token heads %v, want none below the bar", first)
	}
	if len(ind) != 1 || ind[0].Head != 0 {
		t.Errorf("induction heads %v, want only L0H0: L0H1 does not copy on the repeated control, L0H2 has no held-out score", ind)
	}
}

// probesTol bounds |ScoreAll's scores - transformers'| on the probes. Each score is a mean of
// float32 attention probabilities (rounding near 6e-8 for values below 1); measured 4.2e-8 on an
// AMD EPYC (2026-11-27), so 5e-7 leaves a factor 10 for another CPU's rounding. A threshold is a
// median plus a multiple of a median of deviations, each within probesTol of transformers' side,
// so it can move by (1 + 2 x 3 x 1.4826) x probesTol at most.
const probesTol = 5e-7

// TestMeasureHeadsGolden: on the held-out snippets and the two controls of probes.json, the
// reference model's head scores match transformers' (every sequence, every head), the thresholds
// match the Python mirror's, and the heads named are those make_reference.py named.
func TestMeasureHeadsGolden(t *testing.T) {
	p, err := LoadProbes()
	if err != nil {
		t.Fatal(err)
	}
	m := tinyModels(t)["gguf"]
	snippets, random, repeated := p.IDs()
	worst := 0.0
	var scored [3][]*HeadScores
	for k, set := range []struct {
		name   string
		probes []Probe
		ids    [][]int
	}{{"held-out", p.Snippets, snippets}, {"random", p.Random, random}, {"repeated", p.Repeated, repeated}} {
		all, err := m.ScoreAll(set.ids)
		if err != nil {
			t.Fatal(err)
		}
		scored[k] = all
		for i, q := range set.probes {
			s := all[i]
			if s.InductionQueries != q.InductionQueries {
				t.Fatalf("%s %d: %d induction queries, transformers' side %d", set.name, i, s.InductionQueries, q.InductionQueries)
			}
			for _, c := range []struct {
				name string
				got  *mat.Dense
				want [][]float64
			}{{"previous", s.Previous, q.Previous}, {"first", s.First, q.First}, {"induction", s.Induction, q.Induction}} {
				if c.want == nil { // no repeats: every induction score is NaN
					if !math.IsNaN(c.got.At(0, 0)) {
						t.Errorf("%s %d: induction score %v on a sequence without repeats, want NaN", set.name, i, c.got.At(0, 0))
					}
					continue
				}
				for l, row := range c.want {
					for h, w := range row {
						d := math.Abs(c.got.At(l, h) - w)
						if !(d <= probesTol) {
							t.Errorf("%s %d: %s score of layer %d head %d: %.6f, transformers' %.6f", set.name, i, c.name, l, h, c.got.At(l, h), w)
						}
						worst = max(worst, d)
					}
				}
			}
		}
	}
	e := NewEvidence(scored[0], scored[1], scored[2])
	barTol := (1 + 2*ThresholdK*1.4826) * probesTol
	for _, b := range []struct {
		name string
		got  float64
	}{{"previous", e.PreviousBar}, {"first", e.FirstBar}, {"induction", e.InductionBar}} {
		if want := p.Thresholds[b.name]; !(math.Abs(b.got-want) <= barTol) {
			t.Errorf("%s threshold %.6f, the Python mirror's %.6f", b.name, b.got, want)
		}
	}
	prev, first, ind := e.Named()
	for _, n := range []struct {
		name  string
		heads []Head
	}{{"previous", prev}, {"first", first}, {"induction", ind}} {
		got := map[[2]int]bool{}
		for _, h := range n.heads {
			got[[2]int{h.Layer, h.Head}] = true
		}
		want := map[[2]int]bool{}
		for _, lh := range p.Named[n.name] {
			want[lh] = true
		}
		if len(got) != len(want) {
			t.Errorf("%s heads named: %v, make_reference.py named %v", n.name, n.heads, p.Named[n.name])
			continue
		}
		for lh := range want {
			if !got[lh] {
				t.Errorf("%s heads named: %v, make_reference.py named %v", n.name, n.heads, p.Named[n.name])
				break
			}
		}
		t.Logf("%s: bar %.3f, named %v", n.name, map[string]float64{"previous": e.PreviousBar, "first": e.FirstBar, "induction": e.InductionBar}[n.name], n.heads)
	}
	t.Logf("%d held-out snippets, %d random and %d repeated sequences: scores within %.2g of transformers' (tolerance %g)",
		len(p.Snippets), len(p.Random), len(p.Repeated), worst, probesTol)
}
