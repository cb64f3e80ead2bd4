package kernels

import (
	"fmt"
	"unsafe"
)

// DotF32 returns Σ w[i]·x[i]. x must be at least as long as w.
func DotF32(w, x []float32) float32 {
	if len(x) < len(w) {
		panic(fmt.Sprintf("kernels: DotF32 with %d weights and %d inputs", len(w), len(x)))
	}
	if useAVX2 && len(w) >= 8 {
		n := len(w) &^ 7
		s := dotF32AVX2(unsafe.SliceData(w), unsafe.SliceData(x), n)
		if n < len(w) {
			s += dotF32Generic(w[n:], x[n:])
		}
		return s
	}
	return dotF32Generic(w, x)
}

// DotBF16 returns Σ bf16(w[i])·x[i] for raw bfloat16 weights. x must be at least as long as w.
func DotBF16(w []uint16, x []float32) float32 {
	if len(x) < len(w) {
		panic(fmt.Sprintf("kernels: DotBF16 with %d weights and %d inputs", len(w), len(x)))
	}
	if useAVX2 && len(w) >= 8 {
		n := len(w) &^ 7
		s := dotBF16AVX2(unsafe.SliceData(w), unsafe.SliceData(x), n)
		if n < len(w) {
			s += dotBF16Generic(w[n:], x[n:])
		}
		return s
	}
	return dotBF16Generic(w, x)
}

// DotF16 returns Σ f16(w[i])·x[i] for raw half-precision weights. x must be at least as long as w.
func DotF16(w []uint16, x []float32) float32 {
	if len(x) < len(w) {
		panic(fmt.Sprintf("kernels: DotF16 with %d weights and %d inputs", len(w), len(x)))
	}
	if useAVX2 && len(w) >= 8 {
		n := len(w) &^ 7
		s := dotF16AVX2(unsafe.SliceData(w), unsafe.SliceData(x), n)
		if n < len(w) {
			s += dotF16Generic(w[n:], x[n:])
		}
		return s
	}
	return dotF16Generic(w, x)
}

// DotQ8_0 returns Σ_b d_b·Σ_j q_bj·x_bj over the Q8_0 blocks of w (34 bytes per 32 weights).
// len(w) must be a multiple of 34 and x must hold at least 32 values per block.
func DotQ8_0(w []byte, x []float32) float32 {
	nb := len(w) / Q8BlockBytes
	if len(w)%Q8BlockBytes != 0 || len(x) < nb*Q8BlockSize {
		panic(fmt.Sprintf("kernels: DotQ8_0 with %d bytes of blocks and %d inputs", len(w), len(x)))
	}
	if useAVX512 && nb > 0 {
		return dotQ8_0AVX512(unsafe.SliceData(w), unsafe.SliceData(x), nb, &f16Table)
	}
	if useAVX2 && nb > 0 {
		return dotQ8_0AVX2(unsafe.SliceData(w), unsafe.SliceData(x), nb, &f16Table)
	}
	return dotQ8_0Generic(w, x)
}

// f16Table holds the float32 value of every half-precision bit pattern: the Q8_0 kernels look
// block scales up in it. It is computed once when the program starts and never written again.
var f16Table = func() (t [65536]float32) {
	for h := range t {
		t[h] = f16(uint16(h))
	}
	return t
}()

// Axpy adds a·x to y: y[i] += a·x[i]. x must be at least as long as y. Attention sums the
// value vectors with it, weighted by their probabilities.
func Axpy(y []float32, a float32, x []float32) {
	if len(x) < len(y) {
		panic(fmt.Sprintf("kernels: Axpy of %d inputs into %d outputs", len(x), len(y)))
	}
	n := 0
	if useAVX2 && len(y) >= 8 {
		n = len(y) &^ 7
		axpyAVX2(unsafe.SliceData(y), a, unsafe.SliceData(x), n)
	}
	for i := n; i < len(y); i++ {
		y[i] += a * x[i]
	}
}
