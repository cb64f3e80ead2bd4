package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Must returns v, or panics with err when it is not nil. In a notebook cell a panic fails the
// cell with the error's message, which is what a cell should do when a file is missing.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Must2 is Must for functions that return two values and an error.
func Must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// New returns a plot with a title and axis labels (say the units in them), plain tick labels on
// both axes (Ticks: "2500", not "2500.00") and some room under the title.
func New(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.X.Tick.Marker, p.Y.Tick.Marker = Ticks{}, Ticks{}
	return p
}

// PNG renders p as a w x h PNG image (96 dots per inch).
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	return Grid{Cells: [][]*plot.Plot{{p}}}.PNG(w, h)
}

// Show renders p as a w x h PNG and displays it under the running notebook cell. It panics when
// the plot cannot be drawn. Outside a notebook it draws nothing (the notebook check then reports a
// plotting cell without a picture).
func Show(p *plot.Plot, w, h vg.Length) {
	display(Must(PNG(p, w, h)))
}

// display sends a PNG to the notebook and waits until GoNB has it. gonbui writes displays into a
// pipe that the kernel reads on its own; a cell whose program ends first can lose its picture
// (CI on a cold machine did: "cell 8 displays a plot but produced no image"), so every display
// waits with gonbui.Sync.
func display(png []byte) {
	gonbui.DisplayPNG(png)
	gonbui.Sync()
}

// Markdown displays markdown text (a table, say) under the running notebook cell, and waits until
// GoNB has it, as display does for pictures.
func Markdown(md string) {
	gonbui.DisplayMarkdown(md)
	gonbui.Sync()
}

// ShowTiles shows a grid of plots in one w x h picture (see Grid).
func ShowTiles(cells [][]*plot.Plot, w, h vg.Length) {
	Grid{Cells: cells}.Show(w, h)
}

// Grid is one picture made of several plots: an optional title across the top, the cells in rows
// (every row as long as the first; a nil cell stays empty) with their data areas aligned, and on
// the right an optional Bar (a colour bar, see Heat.ColorBar) as tall as the cells and optional
// Swatches.
type Grid struct {
	Title string
	Cells [][]*plot.Plot
	Bar   *plot.Plot
	// BarWidth is the width given to Bar; 0 means 1.1 inch.
	BarWidth vg.Length
	// Swatches are a colour key drawn on the right (under the bar if there is one): a small
	// square of each colour and its label, such as MaskColor, "masked".
	Swatches []Swatch
	// RowLabels and ColLabels, when set, name the rows (left of them) and the columns (above
	// them), for grids of many small cells that have no titles or axes of their own.
	RowLabels, ColLabels []string
	// Pad is the space between cells; 0 means 4 mm.
	Pad vg.Length
}

// Swatch is a colour key: a small square of Color followed by Label.
type Swatch struct {
	Color color.Color
	Label string
}

// PNG renders the grid as a w x h PNG image (96 dots per inch). An empty grid or rows of
// different lengths are an error.
func (g Grid) PNG(w, h vg.Length) ([]byte, error) {
	if len(g.Cells) == 0 || len(g.Cells[0]) == 0 {
		return nil, fmt.Errorf("plots: a grid needs at least one cell")
	}
	for i, row := range g.Cells {
		if len(row) != len(g.Cells[0]) {
			return nil, fmt.Errorf("plots: grid row %d has %d cells, row 0 has %d", i, len(row), len(g.Cells[0]))
		}
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))
	dc := draw.New(img)
	if g.Title != "" {
		sty := text.Style{
			Color:   color.Black,
			Font:    font.From(plot.DefaultFont, 13),
			XAlign:  draw.XCenter,
			YAlign:  draw.YTop,
			Handler: plot.DefaultTextHandler,
		}
		top := dc.Max.Y - vg.Points(4)
		dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: top}, g.Title)
		dc.Max.Y = top - sty.Height(g.Title) - vg.Points(4)
	}
	cells := dc
	if g.Bar != nil || len(g.Swatches) > 0 {
		bw := g.BarWidth
		if bw == 0 {
			bw = 1.1 * vg.Inch
		}
		cells.Max.X -= bw
	}
	head := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 10), XAlign: draw.XCenter,
		YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	if len(g.ColLabels) > 0 {
		cells.Max.Y -= 1.5 * head.Height("M")
	}
	if len(g.RowLabels) > 0 {
		var wmax vg.Length
		for _, l := range g.RowLabels {
			wmax = max(wmax, head.Width(l))
		}
		cells.Min.X += wmax + vg.Points(6)
	}
	pad := g.Pad
	if pad == 0 {
		pad = 4 * vg.Millimeter
	}
	tiles := draw.Tiles{
		Rows: len(g.Cells), Cols: len(g.Cells[0]),
		PadX: pad, PadY: pad,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter,
	}
	var restore []func()
	for _, row := range g.Cells {
		for _, p := range row {
			if p != nil {
				restore = append(restore, hideLogLabels(p))
			}
		}
	}
	canvases := plot.Align(g.Cells, tiles, cells)
	// The data areas of the cells span lo .. hi vertically; the bar is drawn as tall.
	lo, hi := cells.Max.Y, cells.Min.Y
	for i, row := range g.Cells {
		for j, p := range row {
			if p == nil {
				continue
			}
			p.Draw(canvases[i][j])
			da := p.DataCanvas(canvases[i][j])
			lo, hi = min(lo, da.Min.Y), max(hi, da.Max.Y)
		}
	}
	for _, r := range restore {
		r() // the real labels back, drawn where gonum would centre them
	}
	for i, row := range g.Cells {
		for j, p := range row {
			if p == nil {
				continue
			}
			drawLogLabels(p, canvases[i][j])
			da := p.DataCanvas(canvases[i][j])
			if j == 0 && i < len(g.RowLabels) {
				sty := head
				sty.XAlign = draw.XRight
				dc.FillText(sty, vg.Point{X: cells.Min.X - vg.Points(3), Y: da.Center().Y}, g.RowLabels[i])
			}
			if i == 0 && j < len(g.ColLabels) {
				dc.FillText(head, vg.Point{X: da.Center().X, Y: cells.Max.Y + 0.75*head.Height("M")}, g.ColLabels[j])
			}
		}
	}
	key := dc // the right-hand column: the bar, then the swatches
	key.Min.X = cells.Max.X + 2*vg.Millimeter
	swatchTop := (lo + hi) / 2
	if g.Bar != nil && hi > lo {
		bar := key
		bar.Min.Y, bar.Max.Y = lo, hi
		// A slim bar: its axis keeps the room it needs, the colours get a quarter inch.
		if da := g.Bar.DataCanvas(bar); da.Min.X+vg.Inch/4 < bar.Max.X {
			bar.Max.X = da.Min.X + vg.Inch/4
		}
		g.Bar.Draw(bar)
		swatchTop = lo - 6*vg.Millimeter
	}
	sty := text.Style{Color: color.Black, Font: font.From(plot.DefaultFont, 10), YAlign: draw.YCenter,
		Handler: plot.DefaultTextHandler}
	size := sty.Height("M")
	y := swatchTop
	for _, s := range g.Swatches {
		x := key.Min.X
		dc.FillPolygon(s.Color, []vg.Point{{X: x, Y: y - size/2}, {X: x + size, Y: y - size/2}, {X: x + size, Y: y + size/2}, {X: x, Y: y + size/2}})
		dc.FillText(sty, vg.Point{X: x + 1.5*size, Y: y}, s.Label)
		y -= 1.6 * size
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// Show renders the grid as a w x h PNG and displays it under the running notebook cell.
func (g Grid) Show(w, h vg.Length) {
	display(Must(g.PNG(w, h)))
}

// On a log-scale axis gonum centres the axis label at the arithmetic middle of the data range,
// (min+max)/2, which a log scale puts near the end of the axis; the label's glyph box then sticks
// out and gonum shrinks the data area to make room. hideLogLabels replaces the label of each log
// axis of p by a space, which reserves the same room beside the axis (one line of text) without
// that box, and returns a function that puts the labels back; drawLogLabels then draws them at
// the middle of the data area, where a linear axis has them.
func hideLogLabels(p *plot.Plot) (restore func()) {
	x, y := p.X.Label.Text, p.Y.Label.Text
	if _, ok := p.X.Scale.(plot.LogScale); ok && x != "" {
		p.X.Label.Text = " "
	}
	if _, ok := p.Y.Scale.(plot.LogScale); ok && y != "" {
		p.Y.Label.Text = " "
	}
	return func() { p.X.Label.Text, p.Y.Label.Text = x, y }
}

// drawLogLabels draws the labels of p's log axes, which hideLogLabels hid, in canvas c, the
// canvas p was drawn in: the y label rotated at the left edge, the x label at the bottom edge,
// each centred on the data area.
func drawLogLabels(p *plot.Plot, c draw.Canvas) {
	_, logX := p.X.Scale.(plot.LogScale)
	_, logY := p.Y.Scale.(plot.LogScale)
	if !(logX && p.X.Label.Text != "") && !(logY && p.Y.Label.Text != "") {
		return
	}
	restore := hideLogLabels(p)
	da := p.DataCanvas(c)
	restore()
	if logY && p.Y.Label.Text != "" {
		sty := p.Y.Label.TextStyle
		sty.Rotation += math.Pi / 2
		x := c.Min.X + p.Y.Label.TextStyle.Height(p.Y.Label.Text) - p.Y.Label.TextStyle.FontExtents().Descent
		c.FillText(sty, vg.Point{X: x, Y: da.Center().Y}, p.Y.Label.Text)
	}
	if logX && p.X.Label.Text != "" {
		sty := p.X.Label.TextStyle
		c.FillText(sty, vg.Point{X: da.Center().X, Y: c.Min.Y + sty.FontExtents().Descent}, p.X.Label.Text)
	}
}
