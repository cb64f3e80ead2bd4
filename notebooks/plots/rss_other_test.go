//go:build !unix

package plots

// peakRSS is not measured here (0).
func peakRSS() float64 { return 0 }
