package kernels

import (
	"fmt"
	"unsafe"
)

// DotF32 returns Σ w[i]·x[i]. x must be at least as long as w.
func DotF32(w, x []float32) float32 {
	var out [1]float32
	DotF32Rows(out[:], w, len(w), x)
	return out[0]
}

// DotBF16 returns Σ bf16(w[i])·x[i] for raw bfloat16 weights. x must be at least as long as w.
func DotBF16(w []uint16, x []float32) float32 {
	var out [1]float32
	DotBF16Rows(out[:], w, len(w), x)
	return out[0]
}

// DotF16 returns Σ f16(w[i])·x[i] for raw half-precision weights. x must be at least as long as w.
func DotF16(w []uint16, x []float32) float32 {
	var out [1]float32
	DotF16Rows(out[:], w, len(w), x)
	return out[0]
}

// DotF32Rows writes out[r] = Σ_i w[r*cols+i]·x[i] for r < len(out): a chunk of rows of a matrix
// pass in one call. x must hold at least cols values.
func DotF32Rows(out, w []float32, cols int, x []float32) {
	checkRows("DotF32Rows", len(out), len(w), cols, len(x))
	if four := len(out) &^ 3; useAVX2 && four > 0 && cols%16 == 0 && cols > 0 {
		dotF32x4AVX2(unsafe.SliceData(w), 4*cols, four, unsafe.SliceData(x), cols, unsafe.SliceData(out))
		if four == len(out) {
			return
		}
		out, w = out[four:], w[four*cols:]
	}
	n := 0
	if useAVX2 && cols >= 8 && len(out) > 0 {
		n = cols &^ 7
		dotF32AVX2(unsafe.SliceData(w), 4*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	}
	finishRows(out, cols, n, func(r int) float32 { return dotF32Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
}

// DotBF16Rows is DotF32Rows for raw bfloat16 weights.
func DotBF16Rows(out []float32, w []uint16, cols int, x []float32) {
	checkRows("DotBF16Rows", len(out), len(w), cols, len(x))
	n := 0
	if useAVX2 && cols >= 8 && len(out) > 0 {
		n = cols &^ 7
		dotBF16AVX2(unsafe.SliceData(w), 2*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	}
	finishRows(out, cols, n, func(r int) float32 { return dotBF16Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
}

// DotF16Rows is DotF32Rows for raw half-precision weights.
func DotF16Rows(out []float32, w []uint16, cols int, x []float32) {
	checkRows("DotF16Rows", len(out), len(w), cols, len(x))
	n := 0
	if useAVX2 && cols >= 8 && len(out) > 0 {
		n = cols &^ 7
		dotF16AVX2(unsafe.SliceData(w), 2*cols, len(out), unsafe.SliceData(x), n, unsafe.SliceData(out))
	}
	finishRows(out, cols, n, func(r int) float32 { return dotF16Generic(w[r*cols+n:(r+1)*cols], x[n:cols]) })
}

// finishRows completes a multi-row dot after the assembly kernel did the first n columns of every
// row (n = 0: none, or no AVX2): tail(r) is row r's dot over the other columns, in plain Go.
func finishRows(out []float32, cols, n int, tail func(r int) float32) {
	if n == cols && n > 0 {
		return
	}
	for r := range out {
		s := tail(r)
		if n > 0 {
			s += out[r]
		}
		out[r] = s
	}
}

func checkRows(name string, rows, weights, cols, inputs int) {
	if cols < 0 || weights < rows*cols || inputs < cols {
		panic(fmt.Sprintf("kernels: %s of %d rows of %d weights (%d given) with %d inputs", name, rows, cols, weights, inputs))
	}
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
