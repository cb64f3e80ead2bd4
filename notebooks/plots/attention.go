package plots

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// AttentionGrid draws a model's attention maps in one picture: maps[l][h] is layer l's
// probabilities for query head h (seq x seq, row = query token, column = key token, as in
// chapter 07's Trace.Attn), one cell per layer (rows) and head (columns). Masked cells (a query's
// future keys) are grey, and one colour bar serves every cell. Colours follow the square root of
// the probability (SqrtScale), so that weights of 0.01-0.1, most of a trained head's, are told
// apart from zero; the colour bar says so and is labelled in probabilities. A small grid
// (at most 6 layers and 8 heads, like the course's tiny model) has a title per cell and the
// tokens under the bottom row (keys) and left of the first column (queries). A larger one (28 x
// 16 for Qwen3-0.6B) has cells too small for text: they get no axes, the rows and columns are
// named "layer l" and "head h" around the grid, and AttentionHeads shows chosen heads with tokens.
func AttentionGrid(title string, maps [][]*mat.Dense, tokens []string) Grid {
	cols := 0
	for l := range maps {
		cols = max(cols, len(maps[l]))
	}
	if len(maps) <= 6 && cols <= 8 {
		var picks [][2]int
		for l := range maps {
			for h := range maps[l] {
				picks = append(picks, [2]int{l, h})
			}
		}
		return AttentionHeads(title, maps, tokens, picks, cols)
	}
	g := Grid{
		Title:    title,
		Bar:      SqrtColorBar(),
		Swatches: []Swatch{{Color: MaskColor, Label: "masked"}},
		Pad:      vg.Points(3),
	}
	for l := range maps {
		row := make([]*plot.Plot, cols)
		for h, m := range maps[l] {
			p := Heat{Data: SqrtScale(m), Masked: Causal(0), Colors: Sequential(0, 1)}.Plot()
			p.HideAxes()
			p.Title.Text = ""
			row[h] = p
		}
		g.Cells = append(g.Cells, row)
		g.RowLabels = append(g.RowLabels, fmt.Sprintf("layer %d", l))
	}
	for h := range cols {
		g.ColLabels = append(g.ColLabels, fmt.Sprintf("head %d", h))
	}
	return g
}

// AttentionHeads is AttentionGrid for chosen maps only: picks lists (layer, head) pairs, drawn in
// that order, cols per row.
func AttentionHeads(title string, maps [][]*mat.Dense, tokens []string, picks [][2]int, cols int) Grid {
	if cols <= 0 || len(picks) == 0 {
		panic("plots: AttentionHeads needs at least one map and one column")
	}
	rows := (len(picks) + cols - 1) / cols
	cells := make([][]*plot.Plot, rows)
	for i := range cells {
		cells[i] = make([]*plot.Plot, cols)
	}
	for i, pk := range picks {
		r, c := i/cols, i%cols
		l, h := pk[0], pk[1]
		heat := Heat{
			Title:  fmt.Sprintf("layer %d, head %d", l, h),
			Data:   SqrtScale(maps[l][h]),
			Masked: Causal(0),
			Colors: Sequential(0, 1),
		}
		// Token names on the outer edges only: keys under the bottom cell of each column, queries
		// left of the first column.
		bottom := i+cols >= len(picks)
		if bottom {
			heat.XNames, heat.XLabel = tokens, "key token"
		}
		if c == 0 {
			heat.YNames, heat.YLabel = tokens, "query token"
		}
		p := heat.Plot()
		if !bottom {
			p.X.Tick.Label.Font.Size = 0
		}
		if c != 0 {
			p.Y.Tick.Label.Font.Size = 0
		}
		cells[r][c] = p
	}
	return Grid{
		Title:    title,
		Cells:    cells,
		Bar:      SqrtColorBar(),
		Swatches: []Swatch{{Color: MaskColor, Label: "masked"}},
	}
}

// SqrtScale returns the element-wise square root of a matrix of probabilities: drawn with
// Sequential(0, 1) and SqrtColorBar, colours follow sqrt(p), so 0.01 is a tenth of the way up
// the scale and 0.25 half way.
func SqrtScale(m mat.Matrix) *mat.Dense {
	var out mat.Dense
	out.Apply(func(_, _ int, v float64) float64 { return math.Sqrt(math.Max(v, 0)) }, m)
	return &out
}

// SqrtColorBar is the colour bar of SqrtScale maps: its axis runs over sqrt(p) and its ticks are
// labelled with the probabilities p themselves.
func SqrtColorBar() *plot.Plot {
	p := ColorBar(Sequential(0, 1), "attention probability (square-root scale)")
	p.Y.Tick.Marker = sqrtTicks{}
	return p
}

// sqrtTicks labels an axis of square roots with their squares: a tick at sqrt(p) reads p.
type sqrtTicks struct{}

// Ticks implements plot.Ticker.
func (sqrtTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, p := range []float64{0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1} {
		if v := math.Sqrt(p); v >= min && v <= max {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(p, 'g', -1, 64)})
		}
	}
	return ticks
}
