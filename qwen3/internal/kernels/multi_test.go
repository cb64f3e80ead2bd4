package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// The batched kernels must give, bit for bit, what the one-token kernels give each token (that is
// what makes a qwen3.Batch step equal to Session.Step), and so also agree with chapter 01.

var rowsNKernels = map[gguf.GGMLType]func([]float32, int, int, []byte, int, *Act, int){
	gguf.TypeQ8_0: DotQ8_0ActRowsN, gguf.TypeQ4_0: DotQ4_0ActRowsN, gguf.TypeQ4_K: DotQ4_KActRowsN, gguf.TypeQ6_K: DotQ6_KActRowsN,
}

// sentinel marks the outputs a batched kernel must not write (between the rows of two tokens).
const sentinel = -12345.5

// checkRowsNOut compares a batched result with the one-token results want[t][r] bit for bit and
// checks that the gaps between tokens kept the sentinel.
func checkRowsNOut(t *testing.T, name string, out []float32, stride, rows int, want [][]float32) {
	t.Helper()
	for tok := range want {
		for r := 0; r < stride && tok*stride+r < len(out); r++ {
			got := out[tok*stride+r]
			if r >= rows {
				if got != sentinel {
					t.Fatalf("%s: token %d wrote past its %d rows (index %d = %v)", name, tok, rows, r, got)
				}
				continue
			}
			if math.Float32bits(got) != math.Float32bits(want[tok][r]) {
				t.Fatalf("%s: token %d row %d = %v, the one-token kernel gives %v", name, tok, r, got, want[tok][r])
			}
		}
	}
}

func TestDotActRowsN(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	eachLevel(t, func(t *testing.T) {
		for typ, rowsN := range rowsNKernels {
			b := blockOf[typ]
			for _, nb := range []int{1, 3, 8, 16, 24} { // blocks per row: whole groups of eight or not
				for _, tokens := range []int{1, 2, 3, 4, 5, 8, 9} {
					const rows = 5
					cols, rowBytes, stride := nb*b.size, nb*b.bytes, rows+3
					w := randBlocks(r, typ, rows*nb)
					x := randX(r, tokens*cols)
					batch := NewAct(tokens * cols)
					batch.Quantize(x)
					out := make([]float32, (tokens-1)*stride+rows)
					for i := range out {
						out[i] = sentinel
					}
					rowsN(out, stride, rows, w, rowBytes, batch, tokens)
					want := make([][]float32, tokens)
					for tok := range want {
						one := NewAct(cols) // each token rounded alone, as Session.Step does
						one.Quantize(x[tok*cols : (tok+1)*cols])
						want[tok] = make([]float32, rows)
						rowsKernels[typ](want[tok], w, rowBytes, one)
						for i := range rows {
							ref, mag := actRef(t, typ, w[i*rowBytes:(i+1)*rowBytes], one)
							if !closeTo(want[tok][i], ref, mag, cols) {
								t.Fatalf("%v: token %d row %d = %v, float64 reference %v", typ, tok, i, want[tok][i], ref)
							}
						}
					}
					checkRowsNOut(t, typ.String(), out, stride, rows, want)
				}
			}
		}
	})
}

func TestDotFloatRowsN(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	randU16 := func(n int, bf bool) []uint16 {
		w := make([]uint16, n)
		for i := range w {
			if bf {
				w[i] = uint16(math.Float32bits(float32(r.NormFloat64())) >> 16)
			} else {
				w[i] = uint16(r.Uint32())&^0x7c00 | uint16(r.IntN(24))<<10
			}
		}
		return w
	}
	eachLevel(t, func(t *testing.T) {
		for _, cols := range []int{8, 24, 64, 1024} {
			for _, tokens := range []int{1, 2, 3, 4, 5, 8, 9} {
				for _, rows := range []int{1, 4, 7, 19} { // 19: two groups of eight rows in the AVX-512 BF16 kernel
					stride, xStride := rows+2, cols+8
					x := randX(r, (tokens-1)*xStride+cols)
					wf := randX(r, rows*cols)
					wb, wh := randU16(rows*cols, true), randU16(rows*cols, false)
					for _, k := range []struct {
						name string
						many func(out []float32)
						one  func(out, x []float32)
					}{
						{"F32", func(out []float32) { DotF32RowsN(out, stride, rows, wf, cols, x, xStride, tokens) },
							func(out, x []float32) { DotF32Rows(out, wf, cols, x) }},
						{"BF16", func(out []float32) { DotBF16RowsN(out, stride, rows, wb, cols, x, xStride, tokens) },
							func(out, x []float32) { DotBF16Rows(out, wb, cols, x) }},
						{"F16", func(out []float32) { DotF16RowsN(out, stride, rows, wh, cols, x, xStride, tokens) },
							func(out, x []float32) { DotF16Rows(out, wh, cols, x) }},
					} {
						out := make([]float32, (tokens-1)*stride+rows)
						for i := range out {
							out[i] = sentinel
						}
						k.many(out)
						want := make([][]float32, tokens)
						for tok := range want {
							want[tok] = make([]float32, rows)
							k.one(want[tok], x[tok*xStride:])
						}
						checkRowsNOut(t, k.name, out, stride, rows, want)
					}
				}
			}
		}
	})
}

func TestRowsNPanics(t *testing.T) {
	a := NewAct(2 * 64)
	w := make([]byte, 4*2*Q8BlockBytes)
	f := make([]float32, 64)
	for name, fn := range map[string]func(){
		"out short":      func() { DotQ8_0ActRowsN(make([]float32, 6), 3, 4, w, 2*Q8BlockBytes, a, 2) },
		"stride < rows":  func() { DotQ8_0ActRowsN(make([]float32, 16), 3, 4, w, 2*Q8BlockBytes, a, 2) },
		"act short":      func() { DotQ8_0ActRowsN(make([]float32, 16), 8, 4, w, 2*Q8BlockBytes, a, 3) },
		"weights short":  func() { DotQ8_0ActRowsN(make([]float32, 16), 8, 5, w, 2*Q8BlockBytes, a, 2) },
		"partial block":  func() { DotQ4_0ActRowsN(make([]float32, 16), 8, 1, w, 20, a, 1) },
		"x short":        func() { DotF32RowsN(make([]float32, 8), 4, 2, f, 16, f[:39], 24, 2) },
		"x stride":       func() { DotBF16RowsN(make([]float32, 8), 4, 2, make([]uint16, 32), 16, f, 8, 2) },
		"negative rows":  func() { DotF16RowsN(make([]float32, 8), 4, -1, make([]uint16, 32), 16, f, 16, 1) },
		"weights float":  func() { DotF32RowsN(make([]float32, 8), 4, 3, f[:40], 16, f, 16, 2) },
		"negative token": func() { DotF32RowsN(make([]float32, 8), 4, 2, f, 16, f, 16, -1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			fn()
		}()
	}
}

// FuzzDotActRowsN feeds any block bytes to the batched kernels of the fastest level and checks
// them against the one-token kernels, bit for bit, and against chapter 01.
func FuzzDotActRowsN(f *testing.F) {
	r := rand.New(rand.NewPCG(75, 76))
	f.Add(randBlocks(r, gguf.TypeQ8_0, 16), uint8(0), uint8(5), uint64(1))
	f.Add(randBlocks(r, gguf.TypeQ6_K, 2), uint8(3), uint8(4), uint64(2))
	types := []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K}
	f.Fuzz(func(t *testing.T, raw []byte, kind, tokens uint8, seed uint64) {
		typ := types[kind%4]
		b := blockOf[typ]
		const rows = 2
		nb := len(raw) / b.bytes / rows
		if nb == 0 {
			return
		}
		nt := int(tokens%9) + 1
		cols, rowBytes := nb*b.size, nb*b.bytes
		w := raw[:rows*rowBytes]
		if deq := dequant(t, typ, w, rows*cols); !finite(deq) {
			return
		}
		batch := NewAct(nt * cols)
		batch.Quantize(fuzzX(nt*cols, seed))
		out := make([]float32, nt*rows)
		rowsNKernels[typ](out, rows, rows, w, rowBytes, batch, nt)
		for tok := 0; tok < nt; tok++ {
			one := batch.token(tok, cols)
			want := make([]float32, rows)
			rowsKernels[typ](want, w, rowBytes, &one)
			for i := range rows {
				if math.Float32bits(out[tok*rows+i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v token %d row %d: %v, one-token kernel %v", typ, tok, i, out[tok*rows+i], want[i])
				}
				ref, mag := actRef(t, typ, w[i*rowBytes:(i+1)*rowBytes], &one)
				if !closeTo(want[i], ref, mag, cols) {
					t.Fatalf("%v token %d row %d: %v, float64 reference %v", typ, tok, i, want[i], ref)
				}
			}
		}
	})
}
