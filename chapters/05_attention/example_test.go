package attention_test

import (
	"fmt"

	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"gonum.org/v1/gonum/mat"
)

func ExampleMask() {
	// Two new tokens after three cached ones: each sees the cache and itself, not the future.
	fmt.Println(mat.Formatted(attention.Mask(2, 5, 3)))
	// Output:
	// ⎡   0     0     0     0  -Inf⎤
	// ⎣   0     0     0     0     0⎦
}

func ExampleKVHead() {
	// Qwen3-0.6B: 16 query heads share 8 key/value heads in consecutive pairs.
	for h := 0; h < 16; h++ {
		fmt.Print(attention.KVHead(h, 16, 8), " ")
	}
	fmt.Println()
	// Output:
	// 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7
}

func ExampleSoftmax() {
	scores := []float64{2, 1, 0.1}
	attention.Softmax(scores)
	fmt.Printf("%.3f\n", scores)
	// Output:
	// [0.659 0.242 0.099]
}
