package forward

import (
	"fmt"
	"math"
	"slices"

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
// of by eye.

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
