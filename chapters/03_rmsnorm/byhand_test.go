package rmsnorm_test

import (
	"fmt"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	"gonum.org/v1/gonum/mat"
)

// Example_byHand is the worked example of the package doc: one token of d = 4 features through
// RMSNorm and through LayerNorm, what eps does to a small row, and QK-norm on two heads of 2.
func Example_byHand() {
	x := mat.NewDense(1, 4, []float64{1, 2, 3, 4})
	w := []float64{1, 1, 2, 0.5}
	ones := []float64{1, 1, 1, 1}
	fmt.Printf("rms([1 2 3 4]) = sqrt(30/4) = %.4f\n", rmsnorm.RMS(x.RawRowView(0)))
	fmt.Printf("RMSNorm, weight 1            %.4f\n", rmsnorm.RMSNorm(x, ones, rmsnorm.Eps).RawRowView(0))
	fmt.Printf("RMSNorm, weight [1 1 2 0.5]  %.4f\n", rmsnorm.RMSNorm(x, w, rmsnorm.Eps).RawRowView(0))
	fmt.Printf("LayerNorm, (x-2.5)/sqrt(1.25) %.4f\n", rmsnorm.LayerNorm(x, ones, nil, rmsnorm.Eps).RawRowView(0))
	centred := mat.NewDense(1, 4, []float64{-1.5, -0.5, 0.5, 1.5})
	fmt.Printf("RMSNorm of x-2.5              %.4f\n", rmsnorm.RMSNorm(centred, ones, rmsnorm.Eps).RawRowView(0))

	// eps matters only for a row whose mean square is near it: 1e-3 everywhere has mean square 1e-6.
	small := mat.NewDense(1, 4, []float64{1e-3, 1e-3, 1e-3, 1e-3})
	for _, eps := range []float64{0, 1e-6, 1e-5} {
		fmt.Printf("row of 1e-3, eps %-6g -> %.4f\n", eps, rmsnorm.RMSNorm(small, ones, eps).At(0, 0))
	}

	// QK-norm: two heads of head_dim 2; each gets its own RMS.
	q := mat.NewDense(1, 4, []float64{3, 4, 0.03, 0.04})
	heads := rmsnorm.NormHeads(q, []float64{1, 1}, 2, rmsnorm.Eps).RawRowView(0)
	fmt.Printf("heads [3 4 | 0.03 0.04] -> %.4f\n", heads)
	exact := rmsnorm.NormHeads(q, []float64{1, 1}, 2, 0).At(0, 2)
	fmt.Printf("eps shaves %.2f%% off the quiet head (%.5f against %.5f with eps 0)\n", 100*(1-heads[2]/exact), heads[2], exact)
	fmt.Printf("one RMS for the row       -> %.4f\n", rmsnorm.RMSNorm(q, ones, rmsnorm.Eps).RawRowView(0))
	// Output:
	// rms([1 2 3 4]) = sqrt(30/4) = 2.7386
	// RMSNorm, weight 1            [0.3651 0.7303 1.0954 1.4606]
	// RMSNorm, weight [1 1 2 0.5]  [0.3651 0.7303 2.1909 0.7303]
	// LayerNorm, (x-2.5)/sqrt(1.25) [-1.3416 -0.4472 0.4472 1.3416]
	// RMSNorm of x-2.5              [-1.3416 -0.4472 0.4472 1.3416]
	// row of 1e-3, eps 0      -> 1.0000
	// row of 1e-3, eps 1e-06  -> 0.7071
	// row of 1e-3, eps 1e-05  -> 0.3015
	// heads [3 4 | 0.03 0.04] -> [0.8485 1.1314 0.8482 1.1309]
	// eps shaves 0.04% off the quiet head (0.84819 against 0.84853 with eps 0)
	// one RMS for the row       -> [1.1999 1.5999 0.0120 0.0160]
}
