package plots

import (
	"image/color"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"
)

func TestDiverging(t *testing.T) {
	cm := Diverging(2)
	if cm.Min() != -2 || cm.Max() != 2 {
		t.Fatalf("Diverging(2) spans %g .. %g, want -2 .. 2", cm.Min(), cm.Max())
	}
	lo, mid, hi := Color(cm, -2), Color(cm, 0), Color(cm, 2)
	r, _, b, _ := lo.RGBA()
	if !(b > r) {
		t.Errorf("-2 is %v, want blue", lo)
	}
	r, _, b, _ = hi.RGBA()
	if !(r > b) {
		t.Errorf("+2 is %v, want red", hi)
	}
	if l := luma(mid); l < luma(lo) || l < luma(hi) || l < 0.8 {
		t.Errorf("0 is %v (luma %.2f), want the lightest colour (ends %.2f, %.2f)", mid, l, luma(lo), luma(hi))
	}
	for _, bad := range []float64{0, -1, math.Inf(1), math.NaN()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Diverging(%g) did not panic", bad)
				}
			}()
			Diverging(bad)
		}()
	}
}

// TestSurface draws f(x, y) = x and f(x, y) = y - 1 over -1..1 x 0..2: the left half blue and the
// right half red, then the bottom blue and the top red (y grows upwards), in the data area where
// the axes put them.
func TestSurface(t *testing.T) {
	const n = 41
	fx, fy := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	for r := range n {
		for c := range n {
			x, y := -1+2*float64(c)/(n-1), 2*float64(r)/(n-1)
			fx.Set(r, c, x)
			fy.Set(r, c, y-1)
		}
	}
	for _, c := range []struct {
		name                  string
		data                  *mat.Dense
		left, right, top, bot func(color.Color) bool
	}{
		{"x", fx, isBlue, isRed, nil, nil},
		{"y-1", fy, nil, nil, isRed, isBlue},
	} {
		s := Surface{Title: c.name, XLabel: "x", YLabel: "y", Data: c.data, X0: -1, X1: 1, Y0: 0, Y1: 2}
		p, err := s.Plot()
		if err != nil {
			t.Fatal(err)
		}
		const half = 1.0 / (n - 1) // half a cell: 2/(n-1)/2 on both axes
		if math.Abs(p.X.Min+1+half) > 1e-12 || math.Abs(p.X.Max-1-half) > 1e-12 || math.Abs(p.Y.Min+half) > 1e-12 || math.Abs(p.Y.Max-2-half) > 1e-12 {
			t.Errorf("%s: axes %g..%g x %g..%g, want the rectangle and half a cell", c.name, p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
		}
		img := decode(t, Must(PNG(p, 4*vg.Inch, 4*vg.Inch)), 384, 384)
		// Points well inside the data area, as fractions of the picture's width and height
		// (the title and the axes take its edges).
		for _, q := range []struct {
			name string
			x, y float64
			ok   func(color.Color) bool
		}{{"left", 0.3, 0.45, c.left}, {"right", 0.85, 0.45, c.right}, {"top", 0.6, 0.2, c.top}, {"bottom", 0.6, 0.75, c.bot}} {
			got := img.At(int(q.x*384), int(q.y*384))
			if q.ok != nil && !q.ok(got) {
				t.Errorf("%s: the %s of the surface is %v", c.name, q.name, got)
			}
		}
	}
	for _, bad := range []struct {
		name string
		s    Surface
	}{
		{"an empty rectangle", Surface{Data: mat.NewDense(2, 2, nil), X0: 1, X1: 1, Y0: 0, Y1: 1}},
		{"one row of samples", Surface{Data: mat.NewDense(1, 5, nil), X0: 0, X1: 1, Y0: 0, Y1: 1}},
		{"no data", Surface{X0: 0, X1: 1, Y0: 0, Y1: 1}},
	} {
		if _, err := bad.s.Plot(); err == nil {
			t.Errorf("a Surface with %s gave no error", bad.name)
		}
	}
}

func isBlue(c color.Color) bool { r, _, b, _ := c.RGBA(); return b > r+0x2000 }
func isRed(c color.Color) bool  { r, _, b, _ := c.RGBA(); return r > b+0x2000 }
