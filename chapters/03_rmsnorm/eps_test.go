package rmsnorm_test

import (
	"fmt"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	"gonum.org/v1/gonum/mat"
)

// Example_eps shows where eps matters, and what the two classic mistakes do there: eps outside
// the square root, x / (rms + eps), and LLaMA's 1e-5 (the default norm_eps of Meta's llama/model.py)
// instead of Qwen3's 1e-6. Each row is a constant row of the given RMS; the printed value is the
// RMS of the normalized row (weight 1), which the right norm brings to 1 wherever eps is small
// beside the row's mean square.
func Example_eps() {
	fmt.Println("RMS in    eps inside (Qwen3)   eps outside   eps 1e-5")
	for _, r := range []float64{1, 1e-2, 1e-3, 1e-4} {
		x := mat.NewDense(1, 4, []float64{r, r, r, r})
		ones := []float64{1, 1, 1, 1}
		inside := rmsnorm.RMSNorm(x, ones, rmsnorm.Eps).At(0, 0)
		outside := r / (rmsnorm.RMS(x.RawRowView(0)) + rmsnorm.Eps)
		llama := rmsnorm.RMSNorm(x, ones, 1e-5).At(0, 0)
		fmt.Printf("%-8g  %-19.4f  %-12.4f  %.4f\n", r, inside, outside, llama)
	}
	// Output:
	// RMS in    eps inside (Qwen3)   eps outside   eps 1e-5
	// 1         1.0000               1.0000        1.0000
	// 0.01      0.9950               0.9999        0.9535
	// 0.001     0.7071               0.9990        0.3015
	// 0.0001    0.0995               0.9901        0.0316
}
