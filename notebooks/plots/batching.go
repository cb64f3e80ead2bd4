package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/palette"
)

// The kinds of cell in MaskKinds: why a query sees a key or does not.
const (
	MaskVisible = 0 // a real query sees the key (mask 0)
	MaskFuture  = 1 // the key comes after the query (-Inf)
	MaskPadKey  = 2 // the key is padding (-Inf)
	MaskOwnKey  = 3 // a padding query that would see nothing sees its own key (mask 0)
)

// MaskKindColors is the palette of MaskKinds' kinds: blue for visible, MaskColor's grey for a
// future key, orange for a padding key, light blue for a padding query's own key.
func MaskKindColors() palette.ColorMap {
	return Categorical(color.RGBA{R: 31, G: 119, B: 180, A: 255}, MaskColor,
		color.RGBA{R: 255, G: 127, B: 14, A: 255}, color.RGBA{R: 158, G: 202, B: 225, A: 255})
}

// MaskKindSwatches names MaskKindColors' kinds for a Grid's colour key.
func MaskKindSwatches() []Swatch {
	cm := MaskKindColors()
	return []Swatch{
		{Color: Color(cm, MaskVisible), Label: "visible (0)"},
		{Color: Color(cm, MaskFuture), Label: "future key (-Inf)"},
		{Color: Color(cm, MaskPadKey), Label: "padding key (-Inf)"},
		{Color: Color(cm, MaskOwnKey), Label: "padding query's own key"},
	}
}

// MaskKinds classifies each cell of one sequence's additive attention mask (chapter 10's
// batching.Mask: nq x nk, 0 where the query sees the key, -Inf where it does not) by why: query
// r sits in column nk-nq+r, real[j] says whether column j is a prompt token or padding, and cell
// (r, j) becomes MaskVisible or MaskOwnKey when seen (by a real query or a padding one),
// MaskFuture or MaskPadKey when hidden (a key after the query's column, or any other). A mask
// whose width is not len(real), or with more rows than columns, is an error.
func MaskKinds(real []bool, mask mat.Matrix) (*mat.Dense, error) {
	nq, nk := mask.Dims()
	if nk != len(real) || nq > nk {
		return nil, fmt.Errorf("plots: MaskKinds: a %d x %d mask over %d columns, want nq <= nk = %d", nq, nk, len(real), len(real))
	}
	out := mat.NewDense(nq, nk, nil)
	for r := range nq {
		col := nk - nq + r
		for j := range nk {
			seen := !math.IsInf(mask.At(r, j), -1)
			switch {
			case seen && real[col]:
				out.Set(r, j, MaskVisible)
			case seen:
				out.Set(r, j, MaskOwnKey)
			case j > col:
				out.Set(r, j, MaskFuture)
			default:
				out.Set(r, j, MaskPadKey)
			}
		}
	}
	return out, nil
}
