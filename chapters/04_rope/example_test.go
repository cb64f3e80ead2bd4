package rope_test

import (
	"fmt"

	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"gonum.org/v1/gonum/mat"
)

func ExampleInvFreq() {
	// Qwen3: head_dim 128, theta 1e6. Pair 0 turns 1 radian per token, pair 63 almost not at all.
	f := rope.InvFreq(128, 1e6)
	fmt.Printf("%d pairs: %.4g %.4g ... %.4g\n", len(f), f[0], f[1], f[63])
	// Output:
	// 64 pairs: 1 0.8058 ... 1.241e-06
}

func ExampleTable_Rotate() {
	// One token, one head of head_dim 4: the pairs are (0,2) and (1,3), with inv_freq [1, 0.1].
	tab := rope.NewTable(4, 8, 100)
	x := mat.NewDense(1, 4, []float64{1, 1, 0, 0})
	y := tab.Rotate(x, 3) // position 3: pair 0 turns by 3 rad, pair 1 by 0.3 rad
	fmt.Printf("%.4f\n", mat.Formatted(y))
	// Output:
	// [-0.9900   0.9553   0.1411   0.2955]
}
