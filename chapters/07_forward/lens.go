package forward

import (
	"cmp"
	"fmt"
	"slices"

	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"gonum.org/v1/gonum/mat"
)

// The logit lens asks what the model would predict if it stopped early. Every layer adds its
// output to the residual stream (seq x hidden), and only the last one goes through the final
// RMSNorm and the LM head. But every layer writes into the same space, so any intermediate stream
// can be read the same way:
//
//	lens_l = softmax(RMSNorm(x_l, Norm) * LMHead^T)       x_0 = the embeddings, x_l = layer l-1's output
//
// Row 0 reads the embeddings themselves: with a tied head the best "prediction" is usually the input
// token itself (its own embedding is the row most like it). The last row is the model's real
// next-token distribution. In between, one watches where the answer appears and firms up.

// TokenProb is one candidate next token and its probability.
type TokenProb struct {
	ID   int
	Prob float64
}

// LogitLens reads the k most likely next tokens at every position and every depth of a trace from
// ForwardTrace (or any trace with Embed and Layers): lens[d][t] lists them, most likely first, for
// the residual stream after d layers (d = 0 is the embeddings, d = L the model's output) at
// position t. It computes one layer's seq x vocab logits at a time (Model.Logits), so memory stays
// at one such matrix. k < 1, or a trace whose shapes do not fit the model, is an error.
func (m *Model) LogitLens(tr *Trace, k int) ([][][]TokenProb, error) {
	if k < 1 {
		return nil, fmt.Errorf("forward: LogitLens: k = %d, want at least 1", k)
	}
	if tr.Embed == nil || len(tr.Layers) != len(m.Layers) {
		return nil, fmt.Errorf("forward: LogitLens: the trace has %d layers and embeddings %v; the model has %d layers",
			len(tr.Layers), tr.Embed != nil, len(m.Layers))
	}
	streams := append([]*mat.Dense{tr.Embed}, tr.Layers...)
	lens := make([][][]TokenProb, len(streams))
	for d, x := range streams {
		if _, c := x.Dims(); c != m.Config.HiddenSize {
			return nil, fmt.Errorf("forward: LogitLens: stream %d is %d wide, the model's hidden size is %d", d, c, m.Config.HiddenSize)
		}
		_, logits := m.Logits(x)
		seq, _ := logits.Dims()
		lens[d] = make([][]TokenProb, seq)
		for t := range seq {
			lens[d][t] = topProbs(logits.RawRowView(t), k)
		}
	}
	return lens, nil
}

// topProbs turns a row of logits into probabilities (chapter 05's stable softmax, in place) and
// returns the k largest, most likely first (equal ones in id order).
func topProbs(row []float64, k int) []TokenProb {
	attention.Softmax(row)
	k = min(k, len(row))
	top := make([]TokenProb, 0, k+1)
	for id, p := range row {
		if len(top) == k && p <= top[k-1].Prob {
			continue
		}
		i, _ := slices.BinarySearchFunc(top, p, func(e TokenProb, p float64) int { return cmp.Compare(p, e.Prob) })
		for i < len(top) && top[i].Prob == p { // ties keep id order: after the equal ones
			i++
		}
		top = slices.Insert(top, i, TokenProb{id, p})
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}
