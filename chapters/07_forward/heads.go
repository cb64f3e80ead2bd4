package forward

import (
	"fmt"
	"math"
	"slices"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// What a trained attention head does can often be named from its attention probabilities alone
// (Trace.Attn), by how much weight each query puts on one particular key. Three patterns show up
// in small trained models as in large ones:
//
//   - a previous-token head reads the token just before the query: P[i][i-1] is large. Later heads
//     use what it copied ("the token before me was `err`");
//   - a first-token head parks its attention on position 0 (an "attention sink"): a softmax must
//     put its weight somewhere, and when nothing in the context is relevant, the first token is a
//     fixed place to put it (its value vector is small in trained models);
//   - an induction head completes a repeat: when the query's token t appeared earlier at position j,
//     it attends to position j+1, the token that followed t last time, so the model can predict that
//     it follows again (`for i := 0; i < n; i++` after an earlier `i < n`). It needs a
//     previous-token head in an earlier layer: key j+1 must already know that its predecessor was t.
//
// ScoreHeads measures the three on one sequence, so a notebook can name heads by a number instead
// of by eye; MeasureHeads and Evidence.Named (below) decide when a number is enough to name one.

// HeadScores holds, for every layer (rows) and query head (columns), the mean attention weight
// that one pattern predicts, in 0 .. 1 (1 = the head always does exactly that).
type HeadScores struct {
	// Previous[l][h] = mean over queries i = 2 .. seq-1 of P[i][i-1].
	Previous *mat.Dense
	// First[l][h] = mean over queries i = 2 .. seq-1 of P[i][0].
	First *mat.Dense
	// Induction[l][h] = mean over the induction queries of the weight on the earlier successors:
	// for query i, S(i) = { j+1 : j < i-1, ids[j] = ids[i] } (the positions right after earlier
	// copies of the query's token, the query itself excluded), score(i) = sum over k in S(i) of P[i][k].
	// It is NaN everywhere when the sequence repeats no token (InductionQueries = 0).
	Induction *mat.Dense
	// InductionQueries is how many queries have an earlier copy of their token (a non-empty S(i)).
	InductionQueries int
}

// Queries 0 and 1 see only keys 0 and 1: for them "first" and "previous" are the same key, or the
// only one, so they say nothing about a head and the two means start at query 2.
const firstScoredQuery = 2

// ScoreHeads measures the previous-token, first-token and induction patterns (see HeadScores) of
// every head of a trace from ForwardTrace, which keeps the attention maps (tr.Attn[l][h], seq x seq)
// and the ids. A trace without attention maps (GoldenTrace), maps whose shape is not seq x seq, or
// fewer than 3 tokens is an error.
func ScoreHeads(tr *Trace) (*HeadScores, error) {
	seq := len(tr.IDs)
	if len(tr.Attn) == 0 || len(tr.Attn[0]) == 0 {
		return nil, fmt.Errorf("forward: ScoreHeads: the trace has no attention maps (use ForwardTrace)")
	}
	if seq < firstScoredQuery+1 {
		return nil, fmt.Errorf("forward: ScoreHeads: %d tokens, need at least %d", seq, firstScoredQuery+1)
	}
	layers, heads := len(tr.Attn), len(tr.Attn[0])
	s := &HeadScores{
		Previous:  mat.NewDense(layers, heads, nil),
		First:     mat.NewDense(layers, heads, nil),
		Induction: mat.NewDense(layers, heads, nil),
	}
	succ := earlierSuccessors(tr.IDs)
	for _, k := range succ {
		if len(k) > 0 {
			s.InductionQueries++
		}
	}
	for l := range tr.Attn {
		if len(tr.Attn[l]) != heads {
			return nil, fmt.Errorf("forward: ScoreHeads: layer %d has %d heads, layer 0 has %d", l, len(tr.Attn[l]), heads)
		}
		for h, p := range tr.Attn[l] {
			if r, c := p.Dims(); r != seq || c != seq {
				return nil, fmt.Errorf("forward: ScoreHeads: layer %d head %d: map is %dx%d for %d tokens", l, h, r, c, seq)
			}
			var prev, first, ind float64
			for i := firstScoredQuery; i < seq; i++ {
				prev += p.At(i, i-1)
				first += p.At(i, 0)
			}
			for i, keys := range succ {
				for _, k := range keys {
					ind += p.At(i, k)
				}
			}
			n := float64(seq - firstScoredQuery)
			s.Previous.Set(l, h, prev/n)
			s.First.Set(l, h, first/n)
			s.Induction.Set(l, h, ind/float64(s.InductionQueries)) // 0/0 = NaN without induction queries
		}
	}
	return s, nil
}

// earlierSuccessors returns, for every position i, the distinct positions j+1 < i with ids[j] ==
// ids[i] and j < i: where the token that followed each earlier copy of ids[i] sits.
func earlierSuccessors(ids []int) [][]int {
	out := make([][]int, len(ids))
	for i := range ids {
		for j := 0; j+1 < i; j++ {
			if ids[j] == ids[i] {
				out[i] = append(out[i], j+1)
			}
		}
	}
	return out
}

// Head is one attention head and its score for a pattern.
type Head struct {
	Layer, Head int
	Score       float64
}

// Ranked lists every head of a layers x heads score matrix (a HeadScores field), the highest score
// first; heads with equal scores keep layer-major order, and NaN scores go last.
func Ranked(scores *mat.Dense) []Head {
	layers, heads := scores.Dims()
	out := make([]Head, 0, layers*heads)
	for l := range layers {
		for h := range heads {
			out = append(out, Head{l, h, scores.At(l, h)})
		}
	}
	slices.SortStableFunc(out, func(a, b Head) int {
		switch {
		case math.IsNaN(a.Score) || math.IsNaN(b.Score):
			return boolCmp(math.IsNaN(a.Score), math.IsNaN(b.Score))
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	return out
}

// boolCmp orders false before true.
func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// A score means little alone: even a head that ignores positions puts some weight on the previous
// token (a uniform head gives query i a share 1/(i+1)), and a head can score high on one text for
// a reason that is not the pattern. So a head is named for a pattern only when its mean score over
// held-out text (Go the model never trained on) clears a bar measured on a control, an input
// where the pattern has nothing to find:
//
//   - previous-token and first-token: sequences of distinct random tokens, with no Go structure to
//     follow;
//   - induction: a random sequence repeated twice (Olsson et al. 2022, "In-context learning and
//     induction heads"), where only copying predicts the second half: most heads do not copy and
//     show what that scores, and an induction head must clear the bar there as well.
//
// Threshold turns the control's scores into one bar per pattern; MeasureHeads and Evidence.Named
// apply the rule.

// ThresholdK is how many robust standard deviations above the control's median a score must be.
const ThresholdK = 3

// Threshold returns the bar for one pattern from its control scores, pooled: every head's score on
// every control sequence (one layers x heads matrix per sequence):
//
//	threshold = median + ThresholdK × 1.4826 × MAD,   MAD = median of |score - median|.
//
// For normally spread scores 1.4826 × MAD is their standard deviation; unlike the standard
// deviation or the maximum, it is not raised by the few heads that do have the pattern on the
// control (a previous-token head that works by position alone scores high on random tokens too).
// Pooling the sequences puts their variation into the spread, so a bar over untrained heads, which
// are all alike, is not a hair above their common score. NaN scores are left out; with none left
// the result is NaN.
func Threshold(control []*mat.Dense) float64 {
	var v []float64
	for _, m := range control {
		r, c := m.Dims()
		for i := range r {
			for j := range c {
				if x := m.At(i, j); !math.IsNaN(x) {
					v = append(v, x)
				}
			}
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	med := median(v)
	dev := make([]float64, len(v))
	for i, x := range v {
		dev[i] = math.Abs(x - med)
	}
	return med + ThresholdK*1.4826*median(dev)
}

// median returns the middle value of v (the mean of the two middle ones for an even length); it
// sorts a copy.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Summarize returns, for every head, the mean and the standard deviation (population: divided by
// the count) of each pattern's score over several sequences' HeadScores, all layers x heads. A NaN
// score (an induction score on a sequence without repeats) is left out of its head's statistics; a
// head with no score left gets NaN. InductionQueries is the total over the sequences. Summarize
// panics on an empty list or on scores of another shape than the first's.
func Summarize(all []*HeadScores) (mean, sd *HeadScores) {
	if len(all) == 0 {
		panic("forward: Summarize of no scores")
	}
	layers, heads := all[0].Previous.Dims()
	newScores := func() *HeadScores {
		return &HeadScores{Previous: mat.NewDense(layers, heads, nil), First: mat.NewDense(layers, heads, nil),
			Induction: mat.NewDense(layers, heads, nil)}
	}
	mean, sd = newScores(), newScores()
	for i, s := range all {
		if r, c := s.Previous.Dims(); r != layers || c != heads {
			panic(fmt.Sprintf("forward: Summarize: scores %d are %dx%d, scores 0 are %dx%d", i, r, c, layers, heads))
		}
		mean.InductionQueries += s.InductionQueries
	}
	sd.InductionQueries = mean.InductionQueries
	for _, f := range []func(*HeadScores) *mat.Dense{patternPrevious, patternFirst, patternInduction} {
		for l := range layers {
			for h := range heads {
				var v []float64
				for _, s := range all {
					if x := f(s).At(l, h); !math.IsNaN(x) {
						v = append(v, x)
					}
				}
				var sum, sq float64
				for _, x := range v {
					sum += x
				}
				m := sum / float64(len(v)) // NaN when v is empty
				for _, x := range v {
					sq += (x - m) * (x - m)
				}
				f(mean).Set(l, h, m)
				f(sd).Set(l, h, math.Sqrt(sq/float64(len(v))))
			}
		}
	}
	return mean, sd
}

func patternPrevious(s *HeadScores) *mat.Dense  { return s.Previous }
func patternFirst(s *HeadScores) *mat.Dense     { return s.First }
func patternInduction(s *HeadScores) *mat.Dense { return s.Induction }

// Evidence is what naming heads rests on: every head's scores on held-out text and on the
// controls, and each pattern's bar.
type Evidence struct {
	// HeldOut and HeldOutSD are the mean and standard deviation over the held-out snippets.
	HeldOut, HeldOutSD *HeadScores
	// Random is the mean over the random-token sequences, Repeated over the random sequences
	// repeated twice.
	Random, Repeated *HeadScores
	// PreviousBar and FirstBar are Threshold of the random-token scores, InductionBar of the
	// repeated sequences' induction scores.
	PreviousBar, FirstBar, InductionBar float64
}

// MeasureHeads scores every head (ScoreAll) on each held-out snippet and each control sequence,
// token ids all: random holds sequences of distinct random tokens, repeated random sequences
// written twice. Each list needs at least one sequence of 3 or more tokens.
func (m *Model) MeasureHeads(snippets, random, repeated [][]int) (*Evidence, error) {
	var all [3][]*HeadScores
	for i, set := range []struct {
		what string
		seqs [][]int
	}{{"held-out", snippets}, {"random", random}, {"repeated", repeated}} {
		s, err := m.ScoreAll(set.seqs)
		if err != nil {
			return nil, fmt.Errorf("forward: MeasureHeads: %s sequences: %w", set.what, err)
		}
		all[i] = s
	}
	return NewEvidence(all[0], all[1], all[2]), nil
}

// ScoreAll runs ForwardTrace and ScoreHeads on each sequence of token ids (at least one).
func (m *Model) ScoreAll(seqs [][]int) ([]*HeadScores, error) {
	if len(seqs) == 0 {
		return nil, fmt.Errorf("forward: ScoreAll: no sequences")
	}
	out := make([]*HeadScores, len(seqs))
	for i, ids := range seqs {
		tr, err := m.ForwardTrace(ids)
		if err != nil {
			return nil, fmt.Errorf("forward: ScoreAll: sequence %d: %w", i, err)
		}
		if out[i], err = ScoreHeads(tr); err != nil {
			return nil, fmt.Errorf("forward: ScoreAll: sequence %d: %w", i, err)
		}
	}
	return out, nil
}

// NewEvidence summarizes the scores of the held-out snippets and of the two controls (each list
// non-empty) and computes each pattern's bar from the pooled control scores (Threshold).
func NewEvidence(held, random, repeated []*HeadScores) *Evidence {
	e := &Evidence{}
	e.HeldOut, e.HeldOutSD = Summarize(held)
	e.Random, _ = Summarize(random)
	e.Repeated, _ = Summarize(repeated)
	pool := func(all []*HeadScores, f func(*HeadScores) *mat.Dense) []*mat.Dense {
		out := make([]*mat.Dense, len(all))
		for i, s := range all {
			out[i] = f(s)
		}
		return out
	}
	e.PreviousBar = Threshold(pool(random, patternPrevious))
	e.FirstBar = Threshold(pool(random, patternFirst))
	e.InductionBar = Threshold(pool(repeated, patternInduction))
	return e
}

// Named returns the heads named for each pattern, highest held-out score first: previous-token
// and first-token heads whose held-out mean reaches the pattern's bar, and induction heads whose
// held-out mean and mean over the repeated random sequences both reach InductionBar.
func (e *Evidence) Named() (previous, first, induction []Head) {
	pick := func(held, control *mat.Dense, bar float64) []Head {
		var out []Head
		for _, h := range Ranked(held) {
			if h.Score >= bar && (control == nil || control.At(h.Layer, h.Head) >= bar) {
				out = append(out, h)
			}
		}
		return out
	}
	return pick(e.HeldOut.Previous, nil, e.PreviousBar), pick(e.HeldOut.First, nil, e.FirstBar),
		pick(e.HeldOut.Induction, e.Repeated.Induction, e.InductionBar)
}

// Probe is one token sequence of golden/07_forward/probes.json with the head scores transformers'
// attention gives on it (layers x heads; Induction is nil for a sequence that repeats no token).
type Probe struct {
	Source           string      `json:"source"` // held-out file and line, or "written for this course"
	Text             string      `json:"text"`   // the snippet's text (held-out snippets only)
	IDs              []int       `json:"ids"`
	Previous         [][]float64 `json:"previous"`
	First            [][]float64 `json:"first"`
	Induction        [][]float64 `json:"induction"`
	InductionQueries int         `json:"induction_queries"`
}

// Probes is golden/07_forward/probes.json, made by scripts/make_reference.py from the tiny model:
// the held-out Go snippets and the two controls MeasureHeads takes, transformers' scores on each,
// and the thresholds and named heads that the Python mirror of Threshold and Named computed.
type Probes struct {
	Snippets []Probe `json:"snippets"`
	Random   []Probe `json:"random"`   // distinct random tokens
	Repeated []Probe `json:"repeated"` // a random sequence written twice
	// ControlPool is how many ids the control tokens were drawn from: those that occur at least
	// 20 times in the training split.
	ControlPool int                 `json:"control_pool"`
	ThresholdK  float64             `json:"threshold_k"`
	Thresholds  map[string]float64  `json:"thresholds"` // "previous", "first", "induction"
	Named       map[string][][2]int `json:"named"`      // pattern -> (layer, head) pairs
}

// LoadProbes reads golden/07_forward/probes.json.
func LoadProbes() (*Probes, error) {
	var p Probes
	if err := reference.LoadJSON("07_forward", "probes", &p); err != nil {
		return nil, fmt.Errorf("forward: probes: %w", err)
	}
	if len(p.Snippets) == 0 || len(p.Random) == 0 || len(p.Repeated) == 0 {
		return nil, fmt.Errorf("forward: probes: %d snippets, %d random and %d repeated sequences; want some of each",
			len(p.Snippets), len(p.Random), len(p.Repeated))
	}
	return &p, nil
}

// IDs returns the token ids of the snippets and of both controls, as MeasureHeads takes them.
func (p *Probes) IDs() (snippets, random, repeated [][]int) {
	ids := func(ps []Probe) [][]int {
		out := make([][]int, len(ps))
		for i, q := range ps {
			out[i] = q.IDs
		}
		return out
	}
	return ids(p.Snippets), ids(p.Random), ids(p.Repeated)
}
