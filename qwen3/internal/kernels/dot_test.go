package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// The reference for every kernel is chapter 01's dequantizer followed by a float64 dot product:
// the simple, readable version the fast one must agree with.

func refDot(w []float32, x []float32) (dot, absSum float64) {
	for i := range w {
		p := float64(w[i]) * float64(x[i])
		dot += p
		absSum += math.Abs(p)
	}
	return dot, absSum
}

// close reports whether a float32 dot product is within float32 rounding of the float64 one:
// each of n products and sums can err by about 2^-24 of the running magnitude, bounded by Σ|w·x|.
func closeTo(got float32, want, absSum float64, n int) bool {
	tol := 4*float64(n+8)*0x1p-24*absSum + 1e-30
	return math.Abs(float64(got)-want) <= tol
}

func dequant(t *testing.T, typ gguf.GGMLType, raw []byte, n int) []float32 {
	t.Helper()
	out := make([]float32, n)
	if err := gguf.Dequantize(out, typ, raw); err != nil {
		t.Fatal(err)
	}
	return out
}

func randX(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

func f32bytes(w []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 4*len(w))
}
func u16bytes(w []uint16) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), 2*len(w))
}

// checkAll runs one case through the public kernel at every level this machine has, and through
// the generic form.
func checkAll(t *testing.T, name string, n int, want, absSum float64, public func() float32, generic float32) {
	t.Helper()
	if !closeTo(generic, want, absSum, n) {
		t.Errorf("%s n=%d: generic %v, float64 reference %v", name, n, generic, want)
	}
	for l := Generic; l <= Supported(); l++ {
		restore := Limit(l)
		got := public()
		restore()
		if !closeTo(got, want, absSum, n) {
			t.Errorf("%s n=%d at level %v: %v, float64 reference %v", name, n, l, got, want)
		}
	}
}

func TestDotF32(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 100, 1024, 3072} {
		w, x := randX(r, n), randX(r, n)
		want, abs := refDot(dequant(t, gguf.TypeF32, f32bytes(w), n), x)
		checkAll(t, "F32", n, want, abs, func() float32 { return DotF32(w, x) }, dotF32Generic(w, x))
	}
}

func TestDotBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 8, 15, 16, 40, 1024, 3072} {
		w := make([]uint16, n)
		for i := range w {
			w[i] = uint16(math.Float32bits(float32(r.NormFloat64())) >> 16)
		}
		x := randX(r, n)
		want, abs := refDot(dequant(t, gguf.TypeBF16, u16bytes(w), n), x)
		checkAll(t, "BF16", n, want, abs, func() float32 { return DotBF16(w, x) }, dotBF16Generic(w, x))
	}
}

func TestDotF16(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 3, 8, 24, 1024} {
		w := make([]uint16, n)
		for i := range w {
			w[i] = uint16(r.Uint32()) &^ 0x7c00 // clear the exponent's top bits: finite, small values incl. subnormals
			w[i] |= uint16(r.IntN(24)) << 10
		}
		x := randX(r, n)
		want, abs := refDot(dequant(t, gguf.TypeF16, u16bytes(w), n), x)
		checkAll(t, "F16", n, want, abs, func() float32 { return DotF16(w, x) }, dotF16Generic(w, x))
	}
}

func q8Blocks(r *rand.Rand, nb int) []byte {
	w := make([]byte, nb*Q8BlockBytes)
	for b := 0; b < nb; b++ {
		blk := w[b*Q8BlockBytes:]
		binary.LittleEndian.PutUint16(blk, 0x2000+uint16(r.IntN(0x1000))) // d between ~0.008 and ~0.03
		for j := 2; j < Q8BlockBytes; j++ {
			blk[j] = byte(r.Uint32())
		}
	}
	return w
}

func TestDotQ8_0(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, nb := range []int{0, 1, 2, 3, 32, 96} {
		w := q8Blocks(r, nb)
		n := nb * Q8BlockSize
		x := randX(r, n)
		want, abs := refDot(dequant(t, gguf.TypeQ8_0, w, n), x)
		checkAll(t, "Q8_0", n, want, abs, func() float32 { return DotQ8_0(w, x) }, dotQ8_0Generic(w, x))
	}
}

func TestF16Table(t *testing.T) {
	for h := range f16Table {
		if got, want := f16Table[h], gguf.F16ToF32(uint16(h)); math.Float32bits(got) != math.Float32bits(want) && !(got != got && want != want) {
			t.Fatalf("f16Table[%#04x] = %v, chapter 01 gives %v", h, got, want)
		}
	}
}

func TestPanicsOnShortInput(t *testing.T) {
	for name, f := range map[string]func(){
		"F32":                func() { DotF32(make([]float32, 8), make([]float32, 7)) },
		"F32 rows":           func() { DotF32Rows(make([]float32, 3), make([]float32, 16), 8, make([]float32, 8)) },
		"BF16 rows":          func() { DotBF16Rows(make([]float32, 2), make([]uint16, 16), 8, make([]float32, 7)) },
		"BF16":               func() { DotBF16(make([]uint16, 8), make([]float32, 7)) },
		"F16":                func() { DotF16(make([]uint16, 8), make([]float32, 7)) },
		"Q8_0":               func() { DotQ8_0(make([]byte, 34), make([]float32, 31)) },
		"Q8_0 partial block": func() { DotQ8_0(make([]byte, 35), make([]float32, 64)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// The fuzz targets feed arbitrary weight bytes (any bit pattern, NaN and Inf included) and check
// the fast kernels against chapter 01's dequantizer and a float64 dot product.

func fuzzX(n int, seed uint64) []float32 { return randX(rand.New(rand.NewPCG(seed, 99)), n) }

func finite(w []float32) bool {
	for _, v := range w {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 1e30 {
			return false
		}
	}
	return true
}

func FuzzDotBF16(f *testing.F) {
	f.Add([]byte{0x80, 0x3f, 0x00, 0x40, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint64(1))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		n := len(raw) / 2
		w := make([]uint16, n)
		for i := range w {
			w[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		deq := dequant(t, gguf.TypeBF16, raw[:2*n], n)
		if !finite(deq) {
			return
		}
		x := fuzzX(n, seed)
		want, abs := refDot(deq, x)
		if got := DotBF16(w, x); !closeTo(got, want, abs, n) {
			t.Fatalf("DotBF16 = %v, float64 reference %v", got, want)
		}
	})
}

func FuzzDotF16(f *testing.F) {
	f.Add([]byte{0x00, 0x3c, 0x00, 0xc0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint64(2))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		n := len(raw) / 2
		w := make([]uint16, n)
		for i := range w {
			w[i] = binary.LittleEndian.Uint16(raw[2*i:])
		}
		deq := dequant(t, gguf.TypeF16, raw[:2*n], n)
		if !finite(deq) {
			return
		}
		x := fuzzX(n, seed)
		want, abs := refDot(deq, x)
		if got := DotF16(w, x); !closeTo(got, want, abs, n) {
			t.Fatalf("DotF16 = %v, float64 reference %v", got, want)
		}
	})
}

func FuzzDotQ8_0(f *testing.F) {
	f.Add(q8Blocks(rand.New(rand.NewPCG(1, 1)), 3), uint64(3))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		nb := len(raw) / Q8BlockBytes
		w := raw[:nb*Q8BlockBytes]
		n := nb * Q8BlockSize
		deq := dequant(t, gguf.TypeQ8_0, w, n)
		if !finite(deq) {
			return
		}
		x := fuzzX(n, seed)
		want, abs := refDot(deq, x)
		if got := DotQ8_0(w, x); !closeTo(got, want, abs, n) {
			t.Fatalf("DotQ8_0 = %v, float64 reference %v", got, want)
		}
	})
}

func FuzzDotF32(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 64, 1, 2, 3, 4}, uint64(4))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		n := len(raw) / 4
		w := make([]float32, n)
		for i := range w {
			w[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
		deq := dequant(t, gguf.TypeF32, raw[:4*n], n)
		if !finite(deq) {
			return
		}
		x := fuzzX(n, seed)
		want, abs := refDot(deq, x)
		if got := DotF32(w, x); !closeTo(got, want, abs, n) {
			t.Fatalf("DotF32 = %v, float64 reference %v", got, want)
		}
	})
}

// TestDotRows: the float multi-row kernels give each row's dot product, rows with tails too.
func TestDotRows(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	eachLevel(t, func(t *testing.T) {
		for _, cols := range []int{1, 8, 12, 64, 1000, 1024} {
			const rows = 7 // F32: four rows at once, then three one by one
			wf, x := randX(r, rows*cols), randX(r, cols)
			wh := make([]uint16, rows*cols)
			for i := range wh {
				wh[i] = uint16(math.Float32bits(wf[i]) >> 16)
			}
			for name, c := range map[string]struct {
				typ  gguf.GGMLType
				raw  []byte
				rows func([]float32)
			}{
				"F32":  {gguf.TypeF32, f32bytes(wf), func(o []float32) { DotF32Rows(o, wf, cols, x) }},
				"BF16": {gguf.TypeBF16, u16bytes(wh), func(o []float32) { DotBF16Rows(o, wh, cols, x) }},
				"F16":  {gguf.TypeF16, u16bytes(wh), func(o []float32) { DotF16Rows(o, wh, cols, x) }},
			} {
				out := make([]float32, rows)
				c.rows(out)
				deq := dequant(t, c.typ, c.raw, rows*cols)
				for i := range out {
					if !finite(deq[i*cols : (i+1)*cols]) {
						continue
					}
					want, abs := refDot(deq[i*cols:(i+1)*cols], x)
					if !closeTo(out[i], want, abs, cols) {
						t.Errorf("%s cols %d row %d: %v, float64 %v", name, cols, i, out[i], want)
					}
				}
			}
		}
	})
}

func TestAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{0, 1, 7, 8, 9, 33, 128, 1000} {
		y, x := randX(r, n), randX(r, n)
		want := make([]float64, n)
		for i := range y {
			want[i] = float64(y[i]) + 0.75*float64(x[i])
		}
		Axpy(y, 0.75, x)
		for i := range y {
			if math.Abs(float64(y[i])-want[i]) > 1e-6*(1+math.Abs(want[i])) {
				t.Fatalf("n=%d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
	}
}
