package plots

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heat is a matrix drawn as a heat map: cell (r, c) shows Data.At(r, c), centred on x = c and
// y = r, with row 0 at the top as in a printed matrix and IntTicks on both axes.
type Heat struct {
	Title, XLabel, YLabel string
	Data                  mat.Matrix
	// Masked reports the cells to draw in MaskColor instead of their value (nil: none); NaN
	// cells are drawn in MaskColor too. Causal(past) is the causal attention mask.
	Masked func(r, c int) bool
	// Colors maps values to colours; its Min and Max are the colour range (values beyond take
	// the end colours). nil means Sequential over the range of the unmasked values.
	Colors palette.ColorMap
	// XNames and YNames label the columns and rows (nil: their integer indices). Column labels
	// are written vertically.
	XNames, YNames []string
	// Text, when set, holds a short label for each cell, written in its centre: Text[r][c] for
	// cell (r, c), such as the token in that cell ("" or a missing entry for none). It is drawn
	// in black or white, whichever reads better on the cell's colour, at TextSize (0: 8 points),
	// smaller for a label wider than its cell (down to 5 points: keep labels short).
	Text     [][]string
	TextSize vg.Length
}

// Causal returns the causal mask of nq queries that come after past cached keys: query r may
// see keys 0 .. past+r, so cell (r, c) is masked when c > past+r (chapter 05's attention.Mask).
func Causal(past int) func(r, c int) bool {
	return func(r, c int) bool { return c > past+r }
}

// grid adapts a Heat to plotter.GridXYZ, turning masked cells into NaN.
type grid struct{ h *Heat }

func (g grid) Dims() (c, r int) { r, c = g.h.Data.Dims(); return c, r }
func (g grid) X(c int) float64  { return float64(c) }
func (g grid) Y(r int) float64  { return float64(r) }
func (g grid) Z(c, r int) float64 {
	if g.h.Masked != nil && g.h.Masked(r, c) {
		return math.NaN()
	}
	return g.h.Data.At(r, c)
}

// masked reports whether any cell is masked (by Masked or by being NaN).
func (g grid) masked() bool {
	cols, rows := g.Dims()
	for r := range rows {
		for c := range cols {
			if math.IsNaN(g.Z(c, r)) {
				return true
			}
		}
	}
	return false
}

// colorMap returns h.Colors, or Sequential over the finite unmasked values (a constant matrix
// gets the range v-0.5 .. v+0.5).
func (h *Heat) colorMap() palette.ColorMap {
	if h.Colors != nil {
		return h.Colors
	}
	g := grid{h}
	lo, hi := math.Inf(1), math.Inf(-1)
	cols, rows := g.Dims()
	for r := range rows {
		for c := range cols {
			if v := g.Z(c, r); !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	switch {
	case lo > hi: // nothing to show
		lo, hi = 0, 1
	case lo == hi:
		lo, hi = lo-0.5, hi+0.5
	}
	h.Colors = Sequential(lo, hi)
	return h.Colors
}

// Plot returns the heat map alone (for a Grid cell).
func (h Heat) Plot() *plot.Plot {
	p := plot.New()
	p.Title.Text = h.Title
	p.X.Label.Text, p.Y.Label.Text = h.XLabel, h.YLabel
	p.Add(cells{g: grid{&h}, cm: h.colorMap()})
	rows, cols := h.Data.Dims()
	p.X.Min, p.X.Max = -0.5, float64(cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(rows)-0.5
	p.Y.Scale = plot.InvertedScale{Normalizer: plot.LinearScale{}}
	p.X.Tick.Marker = IntTicks{Names: h.XNames}
	p.Y.Tick.Marker = IntTicks{Names: h.YNames}
	if h.XNames != nil {
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	p.X.Padding, p.Y.Padding = 0, 0
	return p
}

// Color is the colour of value v under cm: MaskColor for NaN, the end colours beyond cm's range.
func Color(cm palette.ColorMap, v float64) color.Color {
	switch {
	case math.IsNaN(v):
		return MaskColor
	case v <= cm.Min():
		v = cm.Min()
	case v >= cm.Max():
		v = cm.Max()
	}
	c, err := cm.At(v)
	if err != nil {
		return MaskColor
	}
	return c
}

// cells is the heat map's plotter: the matrix as an image of sharp-edged cells (each cell a
// block of pixels, so no seams appear between neighbours), cell (r, c) centred on (c, r).
type cells struct {
	g  grid
	cm palette.ColorMap
}

// Plot implements plot.Plotter.
func (c cells) Plot(dc draw.Canvas, p *plot.Plot) {
	cols, rows := c.g.Dims()
	if cols == 0 || rows == 0 {
		return
	}
	trX, trY := p.Transforms(&dc)
	x0, x1 := trX(-0.5), trX(float64(cols)-0.5)
	y0, y1 := trY(-0.5), trY(float64(rows)-0.5) // row 0 is at y0, on top when the axis is inverted
	// Blocks of k x k pixels, k chosen so the image is at least as fine as a 96 dpi rendering.
	px := func(l vg.Length) int { return int(math.Ceil(math.Abs(float64(l)) * 96 / 72)) }
	kx, ky := max(1, px(x1-x0)/cols+1), max(1, px(y1-y0)/rows+1)
	img := image.NewNRGBA(image.Rect(0, 0, cols*kx, rows*ky))
	for r := range rows {
		// Image row 0 is drawn at the top: data row r sits at image row r when y0 is on top.
		ir := r
		if y0 < y1 {
			ir = rows - 1 - r
		}
		for col := range cols {
			clr := Color(c.cm, c.g.Z(col, r))
			for y := ir * ky; y < (ir+1)*ky; y++ {
				for x := col * kx; x < (col+1)*kx; x++ {
					img.Set(x, y, clr)
				}
			}
		}
	}
	dc.DrawImage(vg.Rectangle{
		Min: vg.Point{X: min(x0, x1), Y: min(y0, y1)},
		Max: vg.Point{X: max(x0, x1), Y: max(y0, y1)},
	}, img)
	if c.g.h.Text != nil {
		c.labels(dc, p, math.Abs(float64(x1-x0))/float64(cols))
	}
}

// labels writes Heat.Text in the centre of every cell whose width is cellW points.
func (c cells) labels(dc draw.Canvas, p *plot.Plot, cellW float64) {
	trX, trY := p.Transforms(&dc)
	size := c.g.h.TextSize
	if size == 0 {
		size = vg.Points(8)
	}
	cols, rows := c.g.Dims()
	for r := range min(rows, len(c.g.h.Text)) {
		for col := range min(cols, len(c.g.h.Text[r])) {
			s := c.g.h.Text[r][col]
			if s == "" {
				continue
			}
			sty := text.Style{Font: font.From(plot.DefaultFont, size), XAlign: draw.XCenter, YAlign: draw.YCenter,
				Handler: plot.DefaultTextHandler, Color: ink(Color(c.cm, c.g.Z(col, r)))}
			if w := float64(sty.Width(s)); w > 0.92*cellW {
				sty.Font.Size = max(vg.Points(5), vg.Length(float64(size)*0.92*cellW/w))
			}
			dc.FillText(sty, vg.Point{X: trX(float64(col)), Y: trY(float64(r))}, s)
		}
	}
}

// ink returns the text colour that reads best on background bg: black on light colours, white
// on dark ones.
func ink(bg color.Color) color.Color {
	r, g, b, _ := bg.RGBA()
	if 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b) > 0.5*0xffff {
		return color.Black
	}
	return color.White
}

// DataRange implements plot.DataRanger: every cell, edges included.
func (c cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols, rows := c.g.Dims()
	return -0.5, float64(cols) - 0.5, -0.5, float64(rows) - 0.5
}

// ColorBar returns a vertical colour bar for the heat map's colours, its axis labelled label
// (say what the colour measures, with units), for Grid.Bar.
func (h Heat) ColorBar(label string) *plot.Plot {
	return ColorBar(h.colorMap(), label)
}

// ColorBar returns a vertical colour bar for cm, its axis labelled label, for Grid.Bar.
func ColorBar(cm palette.ColorMap, label string) *plot.Plot {
	p := plot.New()
	p.HideX()
	p.Y.Label.Text = label
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	p.Y.Padding = 0
	return p
}

// Figure is the heat map with its colour bar (labelled barLabel) and, when cells are masked, a
// grey swatch under the bar that says so: one Grid, ready to Show.
func (h Heat) Figure(barLabel string) Grid {
	g := Grid{Cells: [][]*plot.Plot{{h.Plot()}}, Bar: h.ColorBar(barLabel)}
	if (grid{&h}).masked() {
		g.Swatches = []Swatch{{Color: MaskColor, Label: "masked"}}
	}
	return g
}

// Show displays the heat map with its colour bar in a w x ht picture (see Figure).
func (h Heat) Show(barLabel string, w, ht vg.Length) {
	h.Figure(barLabel).Show(w, ht)
}
