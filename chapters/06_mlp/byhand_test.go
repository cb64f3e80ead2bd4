package mlp_test

import (
	"fmt"

	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	"gonum.org/v1/gonum/mat"
)

// Example_byHand is the worked example of the package doc: hidden 2, intermediate 2, one token,
// through SwiGLU step by step, and through the plain ReLU block that came before.
func Example_byHand() {
	x := mat.NewDense(1, 2, []float64{1, 2})
	gate := mat.NewDense(2, 2, []float64{1, 0, 0, -1}) // g = (x1, -x2)
	up := mat.NewDense(2, 2, []float64{1, 1, 1, -1})   // u = (x1 + x2, x1 - x2)
	down := mat.NewDense(2, 2, []float64{1, 0, 0, 1})  // identity, to see h itself

	g := mat.NewDense(1, 2, nil)
	g.Mul(x, gate.T())
	u := mat.NewDense(1, 2, nil)
	u.Mul(x, up.T())
	fmt.Printf("g = x gate^T = %v, u = x up^T = %v\n", g.RawRowView(0), u.RawRowView(0))
	fmt.Printf("silu(g) = [%.4f %.4f]\n", mlp.SiLU(g.At(0, 0)), mlp.SiLU(g.At(0, 1)))
	fmt.Printf("SwiGLU: silu(g) ⊙ u = %.4f\n", mlp.Forward(x, gate, up, down).RawRowView(0))
	fmt.Printf("ReLU block, relu(g): %.4f\n", mlp.PlainForward(x, gate, down, mlp.ReLU).RawRowView(0))

	// A ReLU block is linear along every ray; the gate multiplies two projections of the input.
	for _, s := range []float64{1, 2, 4} {
		xs := mat.NewDense(1, 2, []float64{3 * s, 2 * s})
		// One unit (intermediate 1): gate reads x1, up reads x2; down writes the unit to feature 0.
		w1, w2, wd := mat.NewDense(1, 2, []float64{1, 0}), mat.NewDense(1, 2, []float64{0, 1}), mat.NewDense(2, 1, []float64{1, 0})
		sw := mlp.Forward(xs, w1, w2, wd)
		re := mlp.PlainForward(xs, w1, wd, mlp.ReLU)
		fmt.Printf("x = (%2g, %2g): silu(x1)·x2 = %7.3f (x1·x2 = %3g), relu(x1) = %2g\n", 3*s, 2*s, sw.At(0, 0), 6*s*s, re.At(0, 0))
	}
	// Output:
	// g = x gate^T = [1 -2], u = x up^T = [3 -1]
	// silu(g) = [0.7311 -0.2384]
	// SwiGLU: silu(g) ⊙ u = [2.1932 0.2384]
	// ReLU block, relu(g): [1.0000 0.0000]
	// x = ( 3,  2): silu(x1)·x2 =   5.715 (x1·x2 =   6), relu(x1) =  3
	// x = ( 6,  4): silu(x1)·x2 =  23.941 (x1·x2 =  24), relu(x1) =  6
	// x = (12,  8): silu(x1)·x2 =  95.999 (x1·x2 =  96), relu(x1) = 12
}

// Example_activations puts the three activations side by side, with their slopes where ReLU has
// none (the package doc's "Nothing is shut for good").
func Example_activations() {
	for _, z := range []float64{-3, -1, 0, 1, 3} {
		fmt.Printf("z = %2g: relu %5.2f  gelu %6.3f  silu %6.3f\n", z, mlp.ReLU(z), mlp.GELU(z), mlp.SiLU(z))
	}
	slope := func(f func(float64) float64, z float64) float64 { return (f(z+1e-6) - f(z-1e-6)) / 2e-6 }
	fmt.Printf("slope at z = -2: relu %.3f, gelu %.3f, silu %.3f\n", slope(mlp.ReLU, -2), slope(mlp.GELU, -2), slope(mlp.SiLU, -2))
	// Output:
	// z = -3: relu  0.00  gelu -0.004  silu -0.142
	// z = -1: relu  0.00  gelu -0.159  silu -0.269
	// z =  0: relu  0.00  gelu  0.000  silu  0.000
	// z =  1: relu  1.00  gelu  0.841  silu  0.731
	// z =  3: relu  3.00  gelu  2.996  silu  2.858
	// slope at z = -2: relu 0.000, gelu -0.085, silu -0.091
}
