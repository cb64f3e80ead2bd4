package plots

import (
	"math"
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestLogLogSlope recovers the exponents of exact power laws and refuses what has no logarithm.
func TestLogLogSlope(t *testing.T) {
	for _, exp := range []float64{1, 2, 0.5} {
		var pts plotter.XYs
		for _, x := range []float64{16, 32, 64, 128} {
			pts = append(pts, plotter.XY{X: x, Y: 3 * math.Pow(x, exp)})
		}
		if got, err := LogLogSlope(pts); err != nil || math.Abs(got-exp) > 1e-12 {
			t.Errorf("y = 3 x^%g: slope %g, %v", exp, got, err)
		}
	}
	for _, bad := range []plotter.XYs{{{X: 1, Y: 1}}, {{X: 1, Y: 1}, {X: 0, Y: 2}}, {{X: 1, Y: 1}, {X: 2, Y: -1}}, {{X: 2, Y: 1}, {X: 2, Y: 3}}} {
		if _, err := LogLogSlope(bad); err == nil {
			t.Errorf("LogLogSlope(%v): no error", bad)
		}
	}
}
