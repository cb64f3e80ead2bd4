package rope_test

import (
	"fmt"
	"math"

	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"gonum.org/v1/gonum/floats"
)

// Example_byHand is the worked example of the package doc: head_dim 4 (two pairs), theta 100, so
// inv_freq = [100^0, 100^(-2/4)] = [1, 0.1], small enough to rotate on paper.
func Example_byHand() {
	tab := rope.NewTable(4, 16, 100)
	fmt.Printf("inv_freq %.4g\n", tab.InvFreq())
	q := []float64{1, 2, 0, 0} // pair 0 is (q[0], q[2]) = (1, 0), pair 1 is (q[1], q[3]) = (2, 0)
	for _, pos := range []int{0, 1, 2} {
		v := append([]float64(nil), q...)
		tab.RotateHead(v, pos)
		fmt.Printf("q at position %d: %.4f  (norm %.4f)\n", pos, v, floats.Norm(v, 2))
	}

	// The score of a rotated query and key depends on their distance only.
	k := []float64{0, 1, 1, 0}
	score := func(m, n int) float64 {
		a, b := append([]float64(nil), q...), append([]float64(nil), k...)
		tab.RotateHead(a, m)
		tab.RotateHead(b, n)
		return floats.Dot(a, b)
	}
	fmt.Printf("q·k at (5, 3): %.4f, at (12, 10): %.4f, at (2, 0): %.4f; at (3, 5): %.4f\n",
		score(5, 3), score(12, 10), score(2, 0), score(3, 5))
	fmt.Printf("by hand, m-n = 2: sin 2 + 2 cos 0.2 = %.4f + %.4f = %.4f\n", math.Sin(2), 2*math.Cos(0.2), math.Sin(2)+2*math.Cos(0.2))
	// Output:
	// inv_freq [1 0.1]
	// q at position 0: [1.0000 2.0000 0.0000 0.0000]  (norm 2.2361)
	// q at position 1: [0.5403 1.9900 0.8415 0.1997]  (norm 2.2361)
	// q at position 2: [-0.4161 1.9601 0.9093 0.3973]  (norm 2.2361)
	// q·k at (5, 3): 2.8694, at (12, 10): 2.8694, at (2, 0): 2.8694; at (3, 5): 1.0508
	// by hand, m-n = 2: sin 2 + 2 cos 0.2 = 0.9093 + 1.9601 = 2.8694
}

// Example_theta shows why Qwen3's rope_theta is 1e6 and not the original 10,000: at a distance of
// Δ tokens, pair i has turned Δ·inv_freq[i] radians. A pair that has turned less than a quarter
// turn still says "similar" for a query and key that point the same way; the others have turned
// many times and say nothing reliable about distance that far. Qwen3-0.6B, head_dim 128.
func Example_theta() {
	for _, theta := range []float64{1e4, 1e6} {
		f := rope.InvFreq(128, theta)
		fmt.Printf("theta %-7g slowest pair turns %.3g rad/token, a full turn every %.0f tokens\n",
			theta, f[63], 2*math.Pi/f[63])
		for _, dist := range []int{4096, 32768} {
			slow := 0
			for _, w := range f {
				if float64(dist)*w < math.Pi/2 {
					slow++
				}
			}
			fmt.Printf("  at distance %5d: %2d of 64 pairs have turned less than a quarter turn\n", dist, slow)
		}
	}
	// Output:
	// theta 10000   slowest pair turns 0.000115 rad/token, a full turn every 54410 tokens
	//   at distance  4096:  9 of 64 pairs have turned less than a quarter turn
	//   at distance 32768:  0 of 64 pairs have turned less than a quarter turn
	// theta 1e+06   slowest pair turns 1.24e-06 rad/token, a full turn every 5063256 tokens
	//   at distance  4096: 27 of 64 pairs have turned less than a quarter turn
	//   at distance 32768: 17 of 64 pairs have turned less than a quarter turn
}
