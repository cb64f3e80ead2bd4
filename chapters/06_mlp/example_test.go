package mlp_test

import (
	"fmt"

	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	"gonum.org/v1/gonum/mat"
)

func ExampleSiLU() {
	for _, z := range []float64{-4, -1, 0, 1, 4} {
		fmt.Printf("silu(%g) = %.4f\n", z, mlp.SiLU(z))
	}
	// Output:
	// silu(-4) = -0.0719
	// silu(-1) = -0.2689
	// silu(0) = 0.0000
	// silu(1) = 0.7311
	// silu(4) = 3.9281
}

func ExampleForward() {
	// hidden 2, intermediate 3. The gate row of feature 2 is negative, so that feature is
	// almost shut for this positive input.
	x := mat.NewDense(1, 2, []float64{1, 2})
	gate := mat.NewDense(3, 2, []float64{1, 0, 0, 1, -3, -3})
	up := mat.NewDense(3, 2, []float64{1, 1, 1, -1, 1, 1})
	down := mat.NewDense(2, 3, []float64{1, 0, 1, 0, 1, 1})
	fmt.Printf("%.4f\n", mat.Formatted(mlp.Forward(x, gate, up, down)))
	// Output:
	// [ 2.1898  -1.7649]
}
