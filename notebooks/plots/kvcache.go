package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/palette"
)

// The kinds of cell in ProjectedCells: a row that a call projects (computes its q, k and v), and
// a row whose keys and values it reads from the cache instead.
const (
	RowProjected = 0
	RowCached    = 1
)

// ProjectedColors is the palette of ProjectedCells' kinds: dark blue for a row projected by the
// call, light blue for a row read from the cache (a row not yet in the sequence is NaN, drawn in
// MaskColor).
func ProjectedColors() palette.ColorMap {
	return Categorical(color.RGBA{R: 31, G: 119, B: 180, A: 255}, color.RGBA{R: 158, G: 202, B: 225, A: 255})
}

// ProjectedSwatches names ProjectedColors' kinds and MaskColor for a Grid's colour key.
func ProjectedSwatches() []Swatch {
	cm := ProjectedColors()
	return []Swatch{
		{Color: Color(cm, RowProjected), Label: "projected by this call"},
		{Color: Color(cm, RowCached), Label: "read from the cache"},
		{Color: MaskColor, Label: "not in the sequence yet"},
	}
}

// ProjectedCells lays out what each call of a generation computed, one row per call and one
// column per position: after call i the sequence holds lengths[i] tokens, and the call projected
// projected[i] rows per layer (chapter 08's ProjectedRows, counted per layer). Those are the last
// projected[i] positions, RowProjected; the positions before them were in the cache, RowCached;
// the positions after lengths[i] are NaN. A recomputing call projects its whole sequence, so
// projected[i] == lengths[i]. The matrix is len(lengths) x max(lengths); lengths and projected of
// different sizes, a negative count or more rows projected than the sequence holds are errors.
func ProjectedCells(lengths, projected []int) (*mat.Dense, error) {
	if len(lengths) == 0 || len(lengths) != len(projected) {
		return nil, fmt.Errorf("plots: ProjectedCells: %d lengths and %d counts, want the same number (> 0)", len(lengths), len(projected))
	}
	width := 0
	for i, n := range lengths {
		if n <= 0 || projected[i] < 0 || projected[i] > n {
			return nil, fmt.Errorf("plots: ProjectedCells: call %d projected %d rows of a sequence of %d", i, projected[i], n)
		}
		width = max(width, n)
	}
	out := mat.NewDense(len(lengths), width, nil)
	for i, n := range lengths {
		for j := range width {
			switch {
			case j >= n:
				out.Set(i, j, math.NaN())
			case j >= n-projected[i]:
				out.Set(i, j, RowProjected)
			default:
				out.Set(i, j, RowCached)
			}
		}
	}
	return out, nil
}
