package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// eachLevel runs f once per kernel level this machine has (generic, AVX2, AVX-512), so that
// every path of the dispatch is tested, not only the fastest.
func eachLevel(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for l := Generic; l <= Supported(); l++ {
		t.Run(l.String(), func(t *testing.T) {
			defer Limit(l)()
			if Active() != l {
				t.Fatalf("Limit(%v) left the kernels at %v", l, Active())
			}
			f(t)
		})
	}
}

// Random blocks with scales in a realistic range (the quants and packed scales are any bytes).
func halfScale(r *rand.Rand) uint16 { return 0x1800 + uint16(r.IntN(0x0c00)) } // ~0.002 .. ~0.03

func randBlocks(r *rand.Rand, typ gguf.GGMLType, nb int) []byte {
	size := map[gguf.GGMLType]int{gguf.TypeQ8_0: Q8BlockBytes, gguf.TypeQ4_0: Q4BlockBytes, gguf.TypeQ4_K: Q4KBytes, gguf.TypeQ6_K: Q6KBytes}[typ]
	w := make([]byte, nb*size)
	for i := range w {
		w[i] = byte(r.Uint32())
	}
	for b := 0; b < nb; b++ {
		blk := w[b*size:]
		switch typ {
		case gguf.TypeQ8_0, gguf.TypeQ4_0:
			binary.LittleEndian.PutUint16(blk, halfScale(r))
		case gguf.TypeQ4_K:
			binary.LittleEndian.PutUint16(blk, halfScale(r)>>1)     // d, for 6-bit scales
			binary.LittleEndian.PutUint16(blk[2:], halfScale(r)>>1) // dmin
		case gguf.TypeQ6_K:
			binary.LittleEndian.PutUint16(blk[208:], halfScale(r)>>1)
		}
	}
	return w
}

var blockOf = map[gguf.GGMLType]struct{ size, bytes int }{
	gguf.TypeQ8_0: {Q8BlockSize, Q8BlockBytes}, gguf.TypeQ4_0: {Q4BlockSize, Q4BlockBytes},
	gguf.TypeQ4_K: {QKSize, Q4KBytes}, gguf.TypeQ6_K: {QKSize, Q6KBytes},
}

var dotAct = map[gguf.GGMLType]func([]byte, *Act) float32{
	gguf.TypeQ8_0: DotQ8_0Act, gguf.TypeQ4_0: DotQ4_0Act, gguf.TypeQ4_K: DotQ4_KAct, gguf.TypeQ6_K: DotQ6_KAct,
}

// actRef is the dot product of chapter 01's dequantized weights with the Act's values
// (Scale·Q), in float64, and the magnitude its float32 rounding is measured against: Σ|w·a| plus,
// for Q4_K, the minimums' terms (dequantizing cancels d·scale·q against dmin·min, so a weight's
// rounding error follows the larger of the two, not their difference).
func actRef(t testing.TB, typ gguf.GGMLType, w []byte, a *Act) (dot, mag float64) {
	t.Helper()
	n := len(w) / blockOf[typ].bytes * blockOf[typ].size
	deq := make([]float32, n)
	if err := gguf.Dequantize(deq, typ, w); err != nil {
		t.Fatal(err)
	}
	var mins []float32
	if typ == gguf.TypeQ4_K { // the same blocks with every quant 0: −dmin·min per value
		z := append([]byte(nil), w...)
		for b := 0; b < len(z)/Q4KBytes; b++ {
			clear(z[b*Q4KBytes+16 : (b+1)*Q4KBytes])
		}
		mins = make([]float32, n)
		if err := gguf.Dequantize(mins, typ, z); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range deq {
		x := float64(a.Scale[i/ActBlock]) * float64(a.Q[i])
		dot += float64(v) * x
		mag += math.Abs(float64(v) * x)
		if mins != nil {
			mag += 2 * math.Abs(float64(mins[i])*x)
		}
	}
	return dot, mag
}

func TestQuantizeAct(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	x := randX(r, 32*37)
	clear(x[64:96]) // an all-zero block
	x[200] = 1e6    // an outlier: its block's others round coarsely, the rest are untouched
	var want *Act
	eachLevel(t, func(t *testing.T) {
		a := NewAct(len(x))
		a.Quantize(x)
		for i, v := range x {
			s := a.Scale[i/ActBlock]
			// half a step, plus the float32 rounding of x·(32767/amax): up to 32767·2⁻²³ of a step
			if got := s * float32(a.Q[i]); math.Abs(float64(got-v)) > float64(s)*0.505+1e-30 {
				t.Fatalf("value %d: %v became %v·%d = %v, more than half a step (%v) away", i, v, s, a.Q[i], got, s/2)
			}
		}
		for b := range a.Scale {
			var sum int32
			for _, q := range a.Q[b*ActBlock : (b+1)*ActBlock] {
				sum += int32(q)
			}
			if a.Sum[b] != a.Scale[b]*float32(sum) {
				t.Fatalf("block %d: Sum %v, want %v", b, a.Sum[b], a.Scale[b]*float32(sum))
			}
			for h := 0; h < 2; h++ {
				var s16 int32
				for _, q := range a.Q[b*ActBlock+16*h : b*ActBlock+16*h+16] {
					s16 += int32(q)
				}
				if a.Sum16[2*b+h] != s16 {
					t.Fatalf("block %d half %d: Sum16 %d, want %d", b, h, a.Sum16[2*b+h], s16)
				}
			}
		}
		if a.Scale[2] != 0 {
			t.Errorf("zero block: scale %v", a.Scale[2])
		}
		if want == nil {
			want = a
			return
		}
		for i := range a.Q { // every path rounds identically
			if a.Q[i] != want.Q[i] || a.Scale[i/ActBlock] != want.Scale[i/ActBlock] {
				t.Fatalf("value %d: %d·%v, generic %d·%v", i, a.Q[i], a.Scale[i/ActBlock], want.Q[i], want.Scale[i/ActBlock])
			}
		}
	})
}

func TestDotAct(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	eachLevel(t, func(t *testing.T) {
		for typ, dot := range dotAct {
			for _, nb := range []int{0, 1, 3, 8, 9, 12, 17} {
				if blockOf[typ].size == Q8BlockSize {
					nb *= 4 // also several groups of eight blocks
				}
				w := randBlocks(r, typ, nb)
				n := nb * blockOf[typ].size
				x := randX(r, n+64) // an Act longer than the row: only its start is used
				a := NewAct(n + 64)
				a.Quantize(x)
				want, mag := actRef(t, typ, w, a)
				if got := dot(w, a); !closeTo(got, want, mag, n) {
					t.Errorf("%v %d blocks: %v, float64 reference %v (magnitude %v)", typ, nb, got, want, mag)
				}
			}
		}
	})
}

var rowsKernels = map[gguf.GGMLType]func([]float32, []byte, int, *Act){
	gguf.TypeQ8_0: DotQ8_0ActRows, gguf.TypeQ4_0: DotQ4_0ActRows, gguf.TypeQ4_K: DotQ4_KActRows, gguf.TypeQ6_K: DotQ6_KActRows,
}

// TestDotActRows: the multi-row kernels give each row's dot product, also for rows whose block
// count is not a multiple of the assembly kernels' step (Q8_0 and Q4_0 take eight blocks at once).
func TestDotActRows(t *testing.T) {
	r := rand.New(rand.NewPCG(59, 60))
	eachLevel(t, func(t *testing.T) {
		for typ, rowsDot := range rowsKernels {
			for _, nb := range []int{1, 4, 8, 13, 16} {
				const rows = 5
				b := blockOf[typ]
				rowBytes := nb * b.bytes
				w := randBlocks(r, typ, rows*nb)
				a := NewAct(nb * b.size)
				a.Quantize(randX(r, nb*b.size))
				out := make([]float32, rows)
				rowsDot(out, w, rowBytes, a)
				for i := range out {
					want, mag := actRef(t, typ, w[i*rowBytes:(i+1)*rowBytes], a)
					if !closeTo(out[i], want, mag, nb*b.size) {
						t.Errorf("%v %d blocks, row %d of %d: %v, float64 reference %v", typ, nb, i, rows, out[i], want)
					}
				}
			}
		}
	})
}

// An Act's rounding error against the float32 activations, as the engine sees it: the dot product
// with the Act differs from the float one by at most half a step per value (Σ|w|·scale/2).
func TestDotActRounding(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	w := randBlocks(r, gguf.TypeQ8_0, 32)
	x := randX(r, 1024)
	a := NewAct(len(x))
	a.Quantize(x)
	deq := make([]float32, len(x))
	if err := gguf.Dequantize(deq, gguf.TypeQ8_0, w); err != nil {
		t.Fatal(err)
	}
	var exact, bound float64
	for i, v := range deq {
		exact += float64(v) * float64(x[i])
		bound += math.Abs(float64(v)) * float64(a.Scale[i/ActBlock]) / 2
	}
	got := DotQ8_0Act(w, a)
	if d := math.Abs(float64(got) - exact); d > bound+1e-6*math.Abs(exact) {
		t.Errorf("Act dot %v, float dot %v: differ by %.3g, more than the rounding bound %.3g", got, exact, d, bound)
	} else {
		t.Logf("Act dot differs from the float one by %.3g (bound %.3g, %.2g of |dot|)", d, bound, d/math.Abs(exact))
	}
}

func TestDecodeQuant(t *testing.T) {
	r := rand.New(rand.NewPCG(57, 58))
	decode := map[gguf.GGMLType]func([]float32, []byte){
		gguf.TypeQ8_0: DecodeQ8_0, gguf.TypeQ4_0: DecodeQ4_0, gguf.TypeQ4_K: DecodeQ4_K, gguf.TypeQ6_K: DecodeQ6_K,
	}
	eachLevel(t, func(t *testing.T) {
		for typ, dec := range decode {
			for _, nb := range []int{0, 1, 2, 5} {
				w := randBlocks(r, typ, nb)
				n := nb * blockOf[typ].size
				got := make([]float32, n)
				dec(got, w)
				want := make([]float32, n)
				if err := gguf.Dequantize(want, typ, w); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v %d blocks: value %d = %v, chapter 01 %v", typ, nb, i, got[i], want[i])
					}
				}
			}
		}
	})
}

func TestQuantPanics(t *testing.T) {
	a := NewAct(64)
	for name, f := range map[string]func(){
		"NewAct 33":        func() { NewAct(33) },
		"Quantize long":    func() { a.Quantize(make([]float32, 96)) },
		"Quantize part":    func() { a.Quantize(make([]float32, 40)) },
		"Q8_0 long row":    func() { DotQ8_0Act(make([]byte, 3*Q8BlockBytes), a) },
		"Q4_0 part block":  func() { DotQ4_0Act(make([]byte, Q4BlockBytes+1), a) },
		"Q4_K long row":    func() { DotQ4_KAct(make([]byte, Q4KBytes), a) },
		"Q6_K long row":    func() { DotQ6_KAct(make([]byte, Q6KBytes), a) },
		"DecodeQ4_K short": func() { DecodeQ4_K(make([]float32, 255), make([]byte, Q4KBytes)) },
		"rows short":       func() { DotQ4_KActRows(make([]float32, 3), make([]byte, 2*Q4KBytes), Q4KBytes, NewAct(256)) },
		"rows odd stride":  func() { DotQ8_0ActRows(make([]float32, 2), make([]byte, 80), 40, a) },
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

// The fuzz targets feed any block bytes and check the dispatched kernels (the fastest path of
// this machine) against chapter 01; the generic path is checked in the same call.

func fuzzDotAct(f *testing.F, typ gguf.GGMLType) {
	r := rand.New(rand.NewPCG(uint64(typ), 1))
	f.Add(randBlocks(r, typ, 9), uint64(1))
	f.Fuzz(func(t *testing.T, raw []byte, seed uint64) {
		b := blockOf[typ]
		nb := len(raw) / b.bytes
		w := raw[:nb*b.bytes]
		n := nb * b.size
		deq := make([]float32, n)
		if err := gguf.Dequantize(deq, typ, w); err != nil {
			t.Fatal(err)
		}
		if !finite(deq) {
			return
		}
		a := NewAct(n)
		a.Quantize(fuzzX(n, seed))
		want, mag := actRef(t, typ, w, a)
		if got := dotAct[typ](w, a); !closeTo(got, want, mag, n) {
			t.Fatalf("%v: %v, float64 reference %v", typ, got, want)
		}
		defer Limit(Generic)()
		if got := dotAct[typ](w, a); !closeTo(got, want, mag, n) {
			t.Fatalf("%v generic: %v, float64 reference %v", typ, got, want)
		}
	})
}

func FuzzDotQ8_0Act(f *testing.F) { fuzzDotAct(f, gguf.TypeQ8_0) }
func FuzzDotQ4_0Act(f *testing.F) { fuzzDotAct(f, gguf.TypeQ4_0) }
func FuzzDotQ4_KAct(f *testing.F) { fuzzDotAct(f, gguf.TypeQ4_K) }
func FuzzDotQ6_KAct(f *testing.F) { fuzzDotAct(f, gguf.TypeQ6_K) }

func FuzzDecodeQuant(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 3))
	f.Add(randBlocks(r, gguf.TypeQ6_K, 2), uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8) {
		typ := []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K}[kind%4]
		dec := map[gguf.GGMLType]func([]float32, []byte){
			gguf.TypeQ8_0: DecodeQ8_0, gguf.TypeQ4_0: DecodeQ4_0, gguf.TypeQ4_K: DecodeQ4_K, gguf.TypeQ6_K: DecodeQ6_K,
		}[typ]
		b := blockOf[typ]
		w := raw[:len(raw)/b.bytes*b.bytes]
		n := len(w) / b.bytes * b.size
		want := make([]float32, n)
		if err := gguf.Dequantize(want, typ, w); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, n)
		dec(got, w)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("%v: value %d = %v, chapter 01 %v", typ, i, got[i], want[i])
			}
		}
	})
}
