package plots

import (
	"fmt"
	"image/color"
	"strings"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Drawable reports whether the plot font (gonum/plot's default, Liberation Serif) has a glyph
// for every rune of s. It covers Latin, Greek and Cyrillic, not Chinese, Japanese, Korean, most
// other scripts or emoji, which would be drawn as empty boxes.
func Drawable(s string) bool {
	face := font.DefaultCache.Lookup(plot.DefaultFont, 10)
	var buf sfnt.Buffer
	for _, r := range s {
		if i, err := face.Face.GlyphIndex(&buf, r); err != nil || i == 0 {
			return false
		}
	}
	return true
}

// Decoder turns token ids into text: chapter 02's *tokenizer.Tokenizer, which the qwen3 package
// also uses.
type Decoder interface {
	Decode(ids []int, skipSpecial bool) (string, error)
}

// TokenLabels returns one axis label per token: its text, with spaces shown as "·", newlines as
// "¶" and tabs as "→" so that they are visible. A token the plot font cannot draw, or that is
// not a whole character (a piece of a multi-byte character), is shown by its id, as "#104".
func TokenLabels(d Decoder, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		s, err := d.Decode([]int{id}, false)
		s = strings.NewReplacer(" ", "·", "\n", "¶", "\t", "→").Replace(s)
		if err != nil || s == "" || strings.ContainsRune(s, '\uFFFD') || !Drawable(s) {
			s = fmt.Sprintf("#%d", id)
		}
		out[i] = s
	}
	return out
}

// PointLabels names points of a plot without covering each other or other markers: at drawing
// time each name goes to the first of eight places around its point (below right, above right,
// right, above left, below left, left, below, above) where its box overlaps no marker (of the
// points and of Avoid, Radius around each) and no name placed before it. gonum's plotter.Labels
// puts every name at one fixed offset, which piles names up where points crowd (the roofline's
// decoding points of the 4-, 6- and 8-bit types lie within 0.1 of a decade of each other).
type PointLabels struct {
	XYs    plotter.XYs
	Names  []string
	Avoid  plotter.XYs // other markers to keep clear of
	Radius vg.Length   // of the markers
	Style  text.Style
}

// NewPointLabels returns labels in the plot's default text style for markers of radius r.
func NewPointLabels(xys plotter.XYs, names []string, avoid plotter.XYs, r vg.Length) *PointLabels {
	return &PointLabels{XYs: xys, Names: names, Avoid: avoid, Radius: r, Style: text.Style{
		Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(10)), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YBottom,
	}}
}

// Plot implements plot.Plotter.
func (l *PointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	boxes := l.layout(func(xy plotter.XY) vg.Point { return vg.Point{X: trX(xy.X), Y: trY(xy.Y)} })
	for i, r := range boxes {
		if r != (vg.Rectangle{}) {
			c.FillText(l.Style, r.Min, l.Names[i])
		}
	}
}

// layout returns each name's box on the canvas (at maps a point there), or the zero box when no
// place is clear.
func (l *PointLabels) layout(at func(plotter.XY) vg.Point) []vg.Rectangle {
	var marks []vg.Point
	for _, xy := range append(append(plotter.XYs{}, l.XYs...), l.Avoid...) {
		marks = append(marks, at(xy))
	}
	boxes := make([]vg.Rectangle, len(l.XYs))
	var placed []vg.Rectangle
	for i, xy := range l.XYs {
		for _, r := range l.places(at(xy), l.Names[i]) {
			if l.clear(r, marks, placed) {
				placed = append(placed, r)
				boxes[i] = r
				break
			}
		}
	}
	return boxes
}

// places lists the name's candidate boxes around a marker at at, in order of preference.
func (l *PointLabels) places(at vg.Point, name string) []vg.Rectangle {
	w, h := l.Style.Width(name), l.Style.Height(name)
	gap := l.Radius + vg.Points(2)
	var out []vg.Rectangle
	for _, d := range []vg.Point{
		{X: gap, Y: -gap - h}, {X: gap, Y: gap}, {X: gap, Y: -h / 2}, {X: -gap - w, Y: gap},
		{X: -gap - w, Y: -gap - h}, {X: -gap - w, Y: -h / 2}, {X: -w / 2, Y: -gap - h}, {X: -w / 2, Y: gap},
	} {
		min := at.Add(d)
		out = append(out, vg.Rectangle{Min: min, Max: min.Add(vg.Point{X: w, Y: h})})
	}
	return out
}

// clear reports whether box r keeps off every marker (as its square of side 2·Radius) and every
// placed name.
func (l *PointLabels) clear(r vg.Rectangle, marks []vg.Point, placed []vg.Rectangle) bool {
	for _, m := range marks {
		if overlaps(r, vg.Rectangle{Min: m.Sub(vg.Point{X: l.Radius, Y: l.Radius}), Max: m.Add(vg.Point{X: l.Radius, Y: l.Radius})}) {
			return false
		}
	}
	for _, q := range placed {
		if overlaps(r, q) {
			return false
		}
	}
	return true
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// DataRange implements plot.DataRanger: the points' range (the names stay inside the data area
// only as far as the places allow).
func (l *PointLabels) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.XYs)
}
