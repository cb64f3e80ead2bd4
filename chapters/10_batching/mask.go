package batching

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Mask returns the additive attention mask of one sequence of a padded batch, for the nq newest
// of its nk = len(real) columns (the whole prompt at prefill, nq = nk; one new token at a decode
// step, nq = 1). Query r sits in column nk-nq+r and
//
//	mask[r][j] = 0     if j <= nk-nq+r and real[j]     (an earlier or own key, not padding)
//	           = -Inf  otherwise                        (a future key, or padding)
//
// which is chapter 05's causal mask with the padding columns hidden as well. transformers builds
// the same thing from attention_mask (its eager attention adds the float32 minimum instead of
// -Inf).
//
// One case needs a rule of its own: a left-padding query sees no real key at all (only earlier
// padding), and a row of -Inf has no softmax (0/0). Such a query sees its own key. Its output is
// meaningless and no real token ever reads it (its key is hidden from them), but it stays finite:
// NaN in a padding row would reach the real tokens at the next layer, since the masked
// probability 0 times a NaN value is NaN. (transformers' finite minimum spreads such a row evenly
// over every key instead; the real rows are the same either way.)
//
// The result is nq x nk. It panics if nq is not in 1..nk.
func Mask(real []bool, nq int) *mat.Dense {
	nk := len(real)
	if nq < 1 || nq > nk {
		panic(fmt.Sprintf("batching: %d queries over %d columns", nq, nk))
	}
	m := mat.NewDense(nq, nk, nil)
	// exercise: batching.Mask — hide future keys and padding keys; a query that sees nothing sees itself
	// tests: TestMaskGolden ExampleMask TestPrefillGolden
	// difficulty: medium, 20 min
	past := nk - nq // the columns before the first query
	for r := 0; r < nq; r++ {
		row := m.RawRowView(r)
		visible := 0
		for j := range row {
			if j <= past+r && real[j] {
				visible++
			} else {
				row[j] = math.Inf(-1)
			}
		}
		if visible == 0 {
			row[past+r] = 0
		}
	}
	// hint: Two reasons to hide key j from query r: it is in r's future (after r's own column), or
	// it is padding. Query r of the nq newest sits in column nk-nq+r. A query that would see nothing
	// (a padding query before its prompt) sees its own column instead, so that softmax stays finite.
	// hint: past = nk - nq; row r hides j (-Inf) unless j <= past+r and real[j]; if that leaves
	// nothing visible, set row[past+r] = 0.
	// hint: The shape:
	//	past := nk - nq
	//	for r := 0; r < nq; r++ {
	//		row, visible := m.RawRowView(r), 0
	//		for j := range row { if ... { visible++ } else { row[j] = math.Inf(-1) } }
	//		if visible == 0 { row[past+r] = 0 }
	//	}
	// mistake: only chapter 05's causal mask: the padding keys stay visible
	// says: the padding mask is missing
	//	- if j <= past+r && real[j] {
	//	+ if j <= past+r {
	// mistake: only the padding mask: the future keys stay visible
	// says: the causal mask is missing
	//	- if j <= past+r && real[j] {
	//	+ if real[j] {
	// mistake: no rule for a query that sees nothing: its row is all -Inf, and softmax is 0/0
	// says: let such a query see its own key
	//	- if visible == 0 {
	//	- row[past+r] = 0
	//	- }
	// mistake: the past ignored: query r placed in column r, as if no column came before the queries
	// says: query r of the nq newest sits in column nk-nq+r
	//	- past := nk - nq // the columns before the first query
	//	+ past := 0
	// end exercise
	return m
}
