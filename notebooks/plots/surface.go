package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// Diverging returns a colour map for signed values over -lim .. lim: blue below 0, a light
// neutral at 0 and red above (Moreland's smooth blue-red), so that the sign of a value shows at a
// glance and 0 stands out. It panics unless lim is positive and finite.
func Diverging(lim float64) palette.ColorMap {
	if !(lim > 0) || math.IsInf(lim, 1) {
		panic(fmt.Sprintf("plots: Diverging needs a positive finite limit, got %g", lim))
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-lim)
	cm.SetMax(lim)
	return cm
}

// Surface is a function of two variables, sampled on a grid of points, drawn as coloured cells
// with real axes: a unit of a network as a function of its two inputs, say. Unlike Heat, whose
// row 0 is at the top as in a printed matrix, a Surface has y growing upwards.
type Surface struct {
	Title, XLabel, YLabel string
	// Data holds the samples: Data.At(r, c) is the value at x = X0 + c·(X1-X0)/(cols-1),
	// y = Y0 + r·(Y1-Y0)/(rows-1), so row 0 is the bottom edge. Each sample colours the cell
	// around it.
	Data           mat.Matrix
	X0, X1, Y0, Y1 float64
	// Colors maps values to colours (values beyond its range take the end colours, NaN is drawn
	// in MaskColor); nil means Diverging over the largest finite |value|. Give two surfaces
	// the same Colors to compare them, with ColorBar(Colors, label) beside them.
	Colors palette.ColorMap
}

// Plot returns the picture. It is an error when Data has fewer than 2 rows or columns or the
// rectangle X0..X1 x Y0..Y1 is empty.
func (s Surface) Plot() (*plot.Plot, error) {
	if s.Data == nil {
		return nil, fmt.Errorf("plots: Surface %q has no data", s.Title)
	}
	rows, cols := s.Data.Dims()
	if rows < 2 || cols < 2 {
		return nil, fmt.Errorf("plots: Surface %q: %d x %d samples, want at least 2 x 2", s.Title, rows, cols)
	}
	if !(s.X1 > s.X0) || !(s.Y1 > s.Y0) {
		return nil, fmt.Errorf("plots: Surface %q: empty rectangle x %g..%g, y %g..%g", s.Title, s.X0, s.X1, s.Y0, s.Y1)
	}
	cm := s.Colors
	if cm == nil {
		lim := 0.0
		for r := range rows {
			for c := range cols {
				if v := s.Data.At(r, c); !math.IsNaN(v) && !math.IsInf(v, 0) {
					lim = max(lim, math.Abs(v))
				}
			}
		}
		if lim == 0 {
			lim = 1
		}
		cm = Diverging(lim)
	}
	g := surfaceGrid{m: s.Data, x0: s.X0, y0: s.Y0, dx: (s.X1 - s.X0) / float64(cols-1), dy: (s.Y1 - s.Y0) / float64(rows-1)}
	p := New(s.Title, s.XLabel, s.YLabel)
	p.Add(surfaceCells{g: g, cm: cm})
	p.X.Min, p.X.Max = s.X0-g.dx/2, s.X1+g.dx/2
	p.Y.Min, p.Y.Max = s.Y0-g.dy/2, s.Y1+g.dy/2
	p.X.Padding, p.Y.Padding = 0, 0
	return p, nil
}

// surfaceGrid is Surface.Data as gonum's GridXYZ: column c at x0 + c·dx, row r at y0 + r·dy.
type surfaceGrid struct {
	m              mat.Matrix
	x0, y0, dx, dy float64
}

func (g surfaceGrid) Dims() (c, r int)   { r, c = g.m.Dims(); return c, r }
func (g surfaceGrid) X(c int) float64    { return g.x0 + float64(c)*g.dx }
func (g surfaceGrid) Y(r int) float64    { return g.y0 + float64(r)*g.dy }
func (g surfaceGrid) Z(c, r int) float64 { return g.m.At(r, c) }

// surfaceCells draws a surfaceGrid through gonum's HeatMap, which wants a palette of discrete
// colours: 255 of them over the colour map's range, and its end colours beyond.
type surfaceCells struct {
	g  surfaceGrid
	cm palette.ColorMap
}

// Plot implements plot.Plotter.
func (s surfaceCells) Plot(c draw.Canvas, p *plot.Plot) {
	pal := s.cm.Palette(255)
	cols := pal.Colors()
	h := &plotter.HeatMap{
		GridXYZ: s.g, Palette: pal, Min: s.cm.Min(), Max: s.cm.Max(),
		Underflow: cols[0], Overflow: cols[len(cols)-1], NaN: MaskColor, Rasterized: true,
	}
	h.Plot(c, p)
}

// DataRange implements plot.DataRanger: the samples' rectangle and half a cell around it.
func (s surfaceCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	c, r := s.g.Dims()
	return s.g.X(0) - s.g.dx/2, s.g.X(c-1) + s.g.dx/2, s.g.Y(0) - s.g.dy/2, s.g.Y(r-1) + s.g.dy/2
}
