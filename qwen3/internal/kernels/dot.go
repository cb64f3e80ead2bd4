package kernels

import "fmt"

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
	if dotF32RowsArch(out, w, cols, x) {
		return
	}
	for r := range out {
		out[r] = dotF32Generic(w[r*cols:(r+1)*cols], x[:cols])
	}
}

// DotBF16Rows is DotF32Rows for raw bfloat16 weights.
func DotBF16Rows(out []float32, w []uint16, cols int, x []float32) {
	checkRows("DotBF16Rows", len(out), len(w), cols, len(x))
	if dotBF16RowsArch(out, w, cols, x) {
		return
	}
	for r := range out {
		out[r] = dotBF16Generic(w[r*cols:(r+1)*cols], x[:cols])
	}
}

// DotF16Rows is DotF32Rows for raw half-precision weights.
func DotF16Rows(out []float32, w []uint16, cols int, x []float32) {
	checkRows("DotF16Rows", len(out), len(w), cols, len(x))
	if dotF16RowsArch(out, w, cols, x) {
		return
	}
	for r := range out {
		out[r] = dotF16Generic(w[r*cols:(r+1)*cols], x[:cols])
	}
}

// finishRows completes a multi-row dot after an assembly kernel did the first n columns of every
// row (n = 0: none): tail(r) is row r's dot over the other columns, in plain Go.
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
	if s, ok := dotQ8_0Arch(w, x, nb); ok {
		return s
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
	for i := axpyArch(y, a, x); i < len(y); i++ {
		y[i] += a * x[i]
	}
}
