package kernels

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// Batched decoding: a qwen3.Batch step decodes one token of each of B sequences, so every matrix
// pass multiplies the same weight rows with B different inputs. The one-token kernels, called B
// times over a block of rows, read the block from memory once (the later calls find it in the
// cache) but decode every weight B times: for the quantized types the decoding (widening,
// unpacking nibbles, converting scales) is half the work of a dot product. The kernels here
// decode each block of weights once, into registers, and multiply it with the inputs of several
// tokens (four at a time on amd64):
//
//	out[t*outStride+r] = row r · input t        r < rows, t < tokens
//
// Each result is bit for bit the one-token kernel's on that token's input (DotF32Rows,
// DotQ8_0ActRows, ...): the integer sums are exact in any order, and the float operations on each
// lane are the same ones in the same order. So a batch of sequences decodes exactly as each
// sequence would alone, and the tests say so with equality. The plain Go form below is the
// specification: one one-token call per token.

// DotF32RowsN writes out[t*outStride+r] = Σ_i w[r*cols+i]·x[t*xStride+i] for r < rows and
// t < tokens: DotF32Rows for several inputs at once.
func DotF32RowsN(out []float32, outStride, rows int, w []float32, cols int, x []float32, xStride, tokens int) {
	checkRowsN("DotF32RowsN", len(out), outStride, rows, len(w), rows*cols, len(x), xStride, cols, tokens)
	dotRowsN(dotF32RowsNOp, out, outStride, rows, w, cols, x, xStride, tokens, DotF32Rows)
}

// DotBF16RowsN is DotF32RowsN for raw bfloat16 weights: DotBF16Rows for several inputs.
func DotBF16RowsN(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) {
	checkRowsN("DotBF16RowsN", len(out), outStride, rows, len(w), rows*cols, len(x), xStride, cols, tokens)
	dotRowsN(dotBF16RowsNOp, out, outStride, rows, w, cols, x, xStride, tokens, DotBF16Rows)
}

// DotF16RowsN is DotF32RowsN for raw half-precision weights: DotF16Rows for several inputs.
func DotF16RowsN(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) {
	checkRowsN("DotF16RowsN", len(out), outStride, rows, len(w), rows*cols, len(x), xStride, cols, tokens)
	dotRowsN(dotF16RowsNOp, out, outStride, rows, w, cols, x, xStride, tokens, DotF16Rows)
}

// DotQ8_0ActRowsN writes out[t*outStride+r] = row r · token t of a for r < rows and t < tokens,
// the rows rowBytes apart in w: DotQ8_0ActRows for several inputs. a holds the tokens' inputs one
// after another, each as long as a row (an Act of the whole batch, rounded in one Quantize call:
// the same values as each token's own Act, since blocks never straddle two tokens).
func DotQ8_0ActRowsN(out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, tokens int) {
	dotActRowsN(q8_0, out, outStride, rows, w, rowBytes, a, tokens)
}

// DotQ4_0ActRowsN is DotQ8_0ActRowsN for rows of Q4_0 blocks.
func DotQ4_0ActRowsN(out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, tokens int) {
	dotActRowsN(q4_0, out, outStride, rows, w, rowBytes, a, tokens)
}

// DotQ4_KActRowsN is DotQ8_0ActRowsN for rows of Q4_K super-blocks.
func DotQ4_KActRowsN(out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, tokens int) {
	dotActRowsN(q4_K, out, outStride, rows, w, rowBytes, a, tokens)
}

// DotQ6_KActRowsN is DotQ8_0ActRowsN for rows of Q6_K super-blocks.
func DotQ6_KActRowsN(out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, tokens int) {
	dotActRowsN(q6_K, out, outStride, rows, w, rowBytes, a, tokens)
}

func dotActRowsN(k actKind, out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, tokens int) {
	kk := actKinds[k]
	if rowBytes < 0 || rowBytes%kk.blockBytes != 0 {
		panic(fmt.Sprintf("kernels: %s rows of %d bytes are not whole blocks of %d", kk.name, rowBytes, kk.blockBytes))
	}
	nb := rowBytes / kk.blockBytes
	cols := nb * kk.size
	checkRowsN(actRowsNNames[k], len(out), outStride, rows, len(w), rows*rowBytes, a.Len(), cols, cols, tokens)
	t := 0
	if o := dotActRowsNOps[k]; rows > 0 {
		if f := o.get(nb); f != nil {
			t = o.steps(f, tokens, func(t0, nt int) {
				f.k(noEscape(&w[0]), rowBytes, rows, noEscape(a), nb, cols, t0, nt, noEscapeSlice(out), outStride)
			})
		}
	}
	for ; t < tokens; t++ {
		at := a.token(t, cols)
		dotActRows(k, out[t*outStride:t*outStride+rows], w, rowBytes, &at)
	}
}

// dotRowsN runs a batched float dot through its table: the tokens eight, four or two at a time,
// each group's rows through the chain of kernels; rows no kernel takes, and a last odd token, go
// through one (the one-token dot of the type), which gives the same bits.
func dotRowsN[T float32 | uint16](o *rowOp[dotRowsNKernels[T]], out []float32, outStride, rows int, w []T, cols int, x []float32, xStride, tokens int, one func(out []float32, w []T, cols int, x []float32)) {
	t := 0
	if rows > 0 {
		t = o.tokens(tokens, func(t0, nt int) {
			g := 4 - bits.Len(uint(nt)) // the kernel for 8, 4 or 2 tokens
			r := 0
			if cols > 0 {
				chain := o.chain()
				for i := 0; i < len(chain) && r < rows; i++ {
					f := &chain[i]
					if _, take := f.fit(o.op, rows-r, cols, true); take > 0 { // every form takes whole rows
						pw, px, po := noEscape3(&w[r*cols], &x[t0*xStride], &out[t0*outStride+r])
						f.k[g](pw, int(unsafe.Sizeof(w[0]))*cols, take, px, xStride, cols, po, outStride)
						r += take
					}
				}
				o.left(chain, r, rows)
			}
			for tt := t0; r < rows && tt < t0+nt; tt++ {
				one(noEscapeSlice(out[tt*outStride+r:tt*outStride+rows]), noEscapeSlice(w[r*cols:]), cols, noEscapeSlice(x[tt*xStride:]))
			}
		})
	}
	for ; t < tokens; t++ {
		one(noEscapeSlice(out[t*outStride:t*outStride+rows]), noEscapeSlice(w), cols, noEscapeSlice(x[t*xStride:]))
	}
}

// actRowsNNames names the batched kernels in their panics (without building a string per call).
var actRowsNNames = [...]string{q8_0: "DotQ8_0ActRowsN", q4_0: "DotQ4_0ActRowsN", q4_K: "DotQ4_KActRowsN", q6_K: "DotQ6_KActRowsN"}

// token returns the Act of token t of a batch Act whose tokens have n values each: a view, no copy.
func (a *Act) token(t, n int) Act {
	b, g := t*n/ActBlock, t*n/16
	return Act{Q: a.Q[t*n : (t+1)*n], Scale: a.Scale[b : b+n/ActBlock], Sum: a.Sum[b : b+n/ActBlock], Sum16: a.Sum16[g : g+n/16]}
}

// checkRowsN checks the shapes of a batched dot: out holds tokens rows of results outStride
// apart, w at least need weights, x tokens inputs of cols values xStride apart.
func checkRowsN(name string, outLen, outStride, rows, wLen, need, xLen, xStride, cols, tokens int) {
	switch {
	case rows < 0 || cols < 0 || tokens < 0 || wLen < need:
		panic(fmt.Sprintf("kernels: %s of %d rows of %d values (%d weights given) for %d tokens", name, rows, cols, wLen, tokens))
	case tokens == 0:
	case tokens > 1 && (outStride < rows || xStride < cols):
		panic(fmt.Sprintf("kernels: %s with output stride %d for %d rows and input stride %d for %d values", name, outStride, rows, xStride, cols))
	case outLen < (tokens-1)*outStride+rows || xLen < (tokens-1)*xStride+cols:
		panic(fmt.Sprintf("kernels: %s of %d tokens: %d outputs (stride %d, %d rows), %d inputs (stride %d, %d values)", name, tokens, outLen, outStride, rows, xLen, xStride, cols))
	}
}
