package plots

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot/plotter"
)

// LogLogSlope fits log y = a + b log x to pts by least squares and returns b: the exponent of the
// power law y ~ x^b that follows them best (1 for linear growth, 2 for quadratic), the slope of
// the points on log-log axes. Fewer than two points, points whose x or y is not positive (no
// logarithm), or points that all share one x are errors.
func LogLogSlope(pts plotter.XYs) (float64, error) {
	if len(pts) < 2 {
		return 0, fmt.Errorf("plots: LogLogSlope: %d points, want at least 2", len(pts))
	}
	xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		if !(p.X > 0 && p.Y > 0) {
			return 0, fmt.Errorf("plots: LogLogSlope: point %d is (%g, %g), want both positive", i, p.X, p.Y)
		}
		xs[i], ys[i] = math.Log(p.X), math.Log(p.Y)
	}
	if stat.Variance(xs, nil) == 0 {
		return 0, fmt.Errorf("plots: LogLogSlope: every point has x = %g", pts[0].X)
	}
	_, b := stat.LinearRegression(xs, ys, nil, false)
	return b, nil
}
