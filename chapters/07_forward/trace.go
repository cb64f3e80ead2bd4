package forward

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Trace holds every intermediate result of one forward pass, one row per token.
type Trace struct {
	IDs    []int        // the input tokens
	Embed  *mat.Dense   // seq x hidden: the embedding rows
	Layers []*mat.Dense // L matrices seq x hidden: the output of each decoder layer
	Norm   *mat.Dense   // seq x hidden: after the final RMSNorm
	Logits *mat.Dense   // seq x vocab, or seq x len(LogitCols)

	// Attn[l][h] is layer l's attention probabilities for query head h, seq x seq: row r is
	// softmax(q_r k^T / sqrt(head_dim)) over keys 0..r, so every row sums to 1 and the entries
	// right of the diagonal (future tokens, masked) are exactly 0. It is what chapter 05's
	// attention.Forward returns for that layer; the notebooks draw it as attention maps.
	// Golden traces (GoldenTrace) leave it nil.
	Attn [][]*mat.Dense

	// LogitCols, when set, says that Logits holds only these vocabulary columns, in this order
	// (the golden traces store 2,048 sampled columns, not all 151,936). nil means every column.
	LogitCols []int
}

// Stage names a step of the forward pass in a Divergence.
type Stage int

const (
	StageNone   Stage = iota // nothing diverges
	StageEmbed               // the embedding lookup
	StageLayer               // a decoder layer (Divergence.Layer says which)
	StageNorm                // the final RMSNorm
	StageLogits              // the LM head
)

// Divergence reports the first stage of a forward pass whose output differs from a reference.
type Divergence struct {
	Stage  Stage
	Layer  int     // the layer index when Stage == StageLayer
	MaxErr float64 // max |got - want| / max |want| over the stage
	Tol    float64 // the tolerance it was judged against
}

// OK reports whether every stage agreed.
func (d Divergence) OK() bool { return d.Stage == StageNone }

// String says where the first difference is and what to look at, for example
// "layer 2 differs by 0.3 (tolerance 0.0001): check its attention (Q/K/V, QK-norm, RoPE, GQA), its MLP and the two residual adds".
func (d Divergence) String() string {
	where, hint := "", ""
	switch d.Stage {
	case StageNone:
		return fmt.Sprintf("every stage agrees (tolerance %g)", d.Tol)
	case StageEmbed:
		where, hint = "the embedding", "check Embed: row t must be row ids[t] of the embedding matrix"
	case StageLayer:
		where = fmt.Sprintf("layer %d", d.Layer)
		hint = "check its attention (Q/K/V, QK-norm, RoPE, GQA), its MLP and the two residual adds"
	case StageNorm:
		where, hint = "the final norm", "check the final RMSNorm (model.norm.weight, eps)"
	case StageLogits:
		where, hint = "the logits", "check the LM head: logits = normed * LMHead^T (the Embedding when tied), from the normalized states"
	}
	return fmt.Sprintf("%s differs by %.3g (tolerance %g): %s", where, d.MaxErr, d.Tol, hint)
}

// FirstDivergence compares got with a reference trace want, stage by stage in the order of the
// forward pass (embedding, layer 0, 1, ..., final norm, logits), and returns the first stage whose
// error max |got - want| / max |want| exceeds tol; the relative measure makes one tolerance fit
// hidden states of any scale. When want.LogitCols is set, got's logits are compared at those
// columns (got must then hold every column, or the same columns). Stages missing from want are
// skipped. A shape mismatch counts as an infinite error.
func FirstDivergence(got, want *Trace, tol float64) Divergence {
	if want.Embed != nil {
		if e := relErr(got.Embed, want.Embed); !(e <= tol) {
			return Divergence{Stage: StageEmbed, MaxErr: e, Tol: tol}
		}
	}
	worst := 0.0
	for l, w := range want.Layers {
		var g *mat.Dense
		if l < len(got.Layers) {
			g = got.Layers[l]
		}
		e := relErr(g, w)
		if !(e <= tol) {
			return Divergence{Stage: StageLayer, Layer: l, MaxErr: e, Tol: tol}
		}
		worst = math.Max(worst, e)
	}
	if want.Norm != nil {
		if e := relErr(got.Norm, want.Norm); !(e <= tol) {
			return Divergence{Stage: StageNorm, MaxErr: e, Tol: tol}
		}
	}
	if want.Logits != nil {
		g := got.Logits
		if want.LogitCols != nil && got.LogitCols == nil && g != nil {
			g = Columns(g, want.LogitCols)
		}
		if e := relErr(g, want.Logits); !(e <= tol) {
			return Divergence{Stage: StageLogits, MaxErr: e, Tol: tol}
		}
	}
	return Divergence{Stage: StageNone, MaxErr: worst, Tol: tol}
}

// Columns returns a new len(rows) x len(cols) matrix with columns cols of a, in that order.
func Columns(a *mat.Dense, cols []int) *mat.Dense {
	r, c := a.Dims()
	out := mat.NewDense(r, len(cols), nil)
	for i := 0; i < r; i++ {
		row, dst := a.RawRowView(i), out.RawRowView(i)
		for j, col := range cols {
			if col < 0 || col >= c {
				panic(fmt.Sprintf("forward: column %d outside 0..%d", col, c-1))
			}
			dst[j] = row[col]
		}
	}
	return out
}

// relErr is max |got - want| / max |want| (the plain max difference when want is all zeros), or
// +Inf when got is missing or has another shape.
func relErr(got, want *mat.Dense) float64 {
	if got == nil || want == nil {
		return math.Inf(1)
	}
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		return math.Inf(1)
	}
	var diff, scale float64
	for i := 0; i < wr; i++ {
		g, w := got.RawRowView(i), want.RawRowView(i)
		for j := range w {
			diff = math.Max(diff, math.Abs(g[j]-w[j]))
			scale = math.Max(scale, math.Abs(w[j]))
			if math.IsNaN(g[j]) {
				return math.Inf(1)
			}
		}
	}
	if scale == 0 {
		return diff
	}
	return diff / scale
}
