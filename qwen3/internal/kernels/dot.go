package kernels

import (
	"fmt"
	"unsafe"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
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
	dotRows(dotF32RowsOp, out, w, cols, x, dotF32Generic)
}

// DotBF16Rows is DotF32Rows for raw bfloat16 weights.
func DotBF16Rows(out []float32, w []uint16, cols int, x []float32) {
	checkRows("DotBF16Rows", len(out), len(w), cols, len(x))
	dotRows(dotBF16RowsOp, out, w, cols, x, dotBF16Generic)
}

// DotF16Rows is DotF32Rows for raw half-precision weights.
func DotF16Rows(out []float32, w []uint16, cols int, x []float32) {
	checkRows("DotF16Rows", len(out), len(w), cols, len(x))
	dotRows(dotF16RowsOp, out, w, cols, x, dotF16Generic)
}

// dotRows runs a float multi-row dot through its table: the kernels take what rows and columns
// they can, generic (the plain Go form) the rest of each row, added to what the kernel wrote.
func dotRows[T float32 | uint16](o *rowOp[dotRowsKernel[T]], out []float32, w []T, cols int, x []float32, generic func(w []T, x []float32) float32) {
	r, rows := 0, len(out)
	if cols > 0 && rows > 0 {
		chain := o.chain()
		for i := range chain {
			f := &chain[i]
			n, take := f.fit(o.op, rows-r, cols, true)
			if take == 0 {
				continue
			}
			pw, px, po := noEscape3(&w[r*cols], &x[0], &out[r])
			f.k(pw, int(unsafe.Sizeof(w[0]))*cols, take, px, n, po)
			if n < cols {
				dotRowsTail(out, w, cols, x, r, r+take, n, generic)
			}
			if r += take; r == rows {
				return
			}
		}
		o.left(chain, r, rows)
	}
	dotRowsTail(out, w, cols, x, r, rows, 0, generic)
}

// dotRowsTail does rows r0..r1-1 from column from in plain Go, adding what a kernel wrote when
// from > 0.
func dotRowsTail[T float32 | uint16](out []float32, w []T, cols int, x []float32, r0, r1, from int, generic func(w []T, x []float32) float32) {
	for r := r0; r < r1; r++ {
		s := generic(noEscapeSlice(w[r*cols+from:(r+1)*cols]), noEscapeSlice(x[from:cols]))
		if from > 0 {
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
	if nb > 0 {
		if k, ok := dotQ8_0Op.get(); ok {
			pw, px, _ := noEscape3(&w[0], &x[0], &f16Table)
			return k(pw, px, nb, &f16Table)
		}
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
	k, n := axpyOp.split(len(y))
	if n > 0 {
		k(noEscape(&y[0]), a, noEscape(&x[0]), n)
	}
	for i := n; i < len(y); i++ {
		y[i] += a * x[i]
	}
}

// The plain Go forms (the specification of the assembly ones).

// Q8_0 block layout: a float16 scale d, then 32 signed 8-bit quants; weight j of the block is d·q[j].
const (
	Q8BlockSize  = 32 // weights per block
	Q8BlockBytes = 34 // bytes per block
)

// bf16 and f16 widen raw bfloat16 and IEEE half bits to float32 with chapter 01's conversions,
// the course's one definition of each (exact: normals, subnormals, Inf and NaN).
func bf16(h uint16) float32 { return gguf.BF16ToF32(h) }
func f16(h uint16) float32  { return gguf.F16ToF32(h) }

func dotF32Generic(w, x []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += w[i] * x[i]
		s1 += w[i+1] * x[i+1]
		s2 += w[i+2] * x[i+2]
		s3 += w[i+3] * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += w[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotBF16Generic(w []uint16, x []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += bf16(w[i]) * x[i]
		s1 += bf16(w[i+1]) * x[i+1]
		s2 += bf16(w[i+2]) * x[i+2]
		s3 += bf16(w[i+3]) * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += bf16(w[i]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotF16Generic looks each weight up in f16Table (one load, where F16ToF32's branches measured 6
// times slower) and keeps four sums, as dotBF16Generic does.
func dotF16Generic(w []uint16, x []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += f16Table[w[i]] * x[i]
		s1 += f16Table[w[i+1]] * x[i+1]
		s2 += f16Table[w[i+2]] * x[i+2]
		s3 += f16Table[w[i+3]] * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += f16Table[w[i]] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotQ8_0Generic(w []byte, x []float32) float32 {
	nb := len(w) / Q8BlockBytes
	x = x[:nb*Q8BlockSize]
	var s float32
	for b := 0; b < nb; b++ {
		blk := w[b*Q8BlockBytes : (b+1)*Q8BlockBytes]
		d := f16(uint16(blk[0]) | uint16(blk[1])<<8)
		xb := x[b*Q8BlockSize : (b+1)*Q8BlockSize]
		var p float32
		for j, q := range blk[2:] {
			p += float32(int8(q)) * xb[j]
		}
		s += d * p
	}
	return s
}
