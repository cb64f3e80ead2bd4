package kernels

// The prototypes of multi_avx2_amd64.s.

//go:noescape
func dotQ8_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ8_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ8_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_KActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN8AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN4AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ4_0ActN2AVX2(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

//go:noescape
func dotQ6_KActNAVX2(w *byte, stride, rows int, q *int16, scale *float32, sum *int32, n int, out *float32, outStride, cols, tokens int)

//go:noescape
func dotF32N8AVX2(w *float32, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N4AVX2(w *float32, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF32N2AVX2(w *float32, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N8AVX2(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N4AVX2(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotBF16N2AVX2(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N8AVX2(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N4AVX2(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

//go:noescape
func dotF16N2AVX2(w *uint16, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)

// The forms of dispatch_amd64.go's batched quantized tables: tokens t..t+nt-1 (nt 8, 4 or 2; any
// from 2 to 8 for Q6_K) of a, groups of eight blocks (Q8_0, Q4_0) or super-blocks.

type actNKernel = func(w *byte, stride, rows int, q *int16, scale, sum *float32, n int, out *float32, outStride, cols int)

func actRowsNAVX2(k8, k4, k2 actNKernel, group int) actRowsNKernel {
	return func(w *byte, rowBytes, rows int, a *Act, nb, cols, t, nt int, out []float32, outStride int) {
		k := k2
		switch nt {
		case 8:
			k = k8
		case 4:
			k = k4
		}
		b := t * cols / ActBlock
		k(w, rowBytes, rows, &a.Q[t*cols], &a.Scale[b], &a.Sum[b], nb/group, &out[t*outStride], outStride, cols)
	}
}

var (
	dotQ8_0ActRowsNAVX2 = actRowsNAVX2(dotQ8_0ActN8AVX2, dotQ8_0ActN4AVX2, dotQ8_0ActN2AVX2, 8)
	dotQ4_0ActRowsNAVX2 = actRowsNAVX2(dotQ4_0ActN8AVX2, dotQ4_0ActN4AVX2, dotQ4_0ActN2AVX2, 8)
	dotQ4_KActRowsNAVX2 = actRowsNAVX2(dotQ4_KActN8AVX2, dotQ4_KActN4AVX2, dotQ4_KActN2AVX2, 1)
)

func dotQ6_KActRowsNAVX2(w *byte, rowBytes, rows int, a *Act, nb, cols, t, nt int, out []float32, outStride int) {
	dotQ6_KActNAVX2(w, rowBytes, rows, &a.Q[t*cols], &a.Scale[t*cols/ActBlock], &a.Sum16[t*cols/16], nb, &out[t*outStride], outStride, cols, nt)
}
