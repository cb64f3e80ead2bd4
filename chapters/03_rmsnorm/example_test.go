package rmsnorm_test

import (
	"fmt"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	"gonum.org/v1/gonum/mat"
)

func ExampleRMSNorm() {
	// Two tokens, three features. The second token is the first one scaled by 1000:
	// after the norm both rows are the same.
	x := mat.NewDense(2, 3, []float64{
		1, -2, 2,
		1000, -2000, 2000,
	})
	w := []float64{1, 1, 0.5}
	y := rmsnorm.RMSNorm(x, w, rmsnorm.Eps)
	fmt.Printf("%.4f\n", mat.Formatted(y))
	fmt.Printf("rms in: %.4g and %.4g\n", rmsnorm.RMS(x.RawRowView(0)), rmsnorm.RMS(x.RawRowView(1)))
	// Output:
	// ⎡ 0.5774  -1.1547   0.5774⎤
	// ⎣ 0.5774  -1.1547   0.5774⎦
	// rms in: 1.732 and 1732
}

func ExampleNormHeads() {
	// One token, two heads of head_dim 2: each head is normalized on its own.
	q := mat.NewDense(1, 4, []float64{3, 4, 0.03, 0.04})
	y := rmsnorm.NormHeads(q, []float64{1, 1}, 2, 0)
	fmt.Printf("%.4f\n", mat.Formatted(y))
	// Output:
	// [0.8485  1.1314  0.8485  1.1314]
}
