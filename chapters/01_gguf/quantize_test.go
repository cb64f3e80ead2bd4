package gguf

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// must returns a function that returns b, or fails the test on err.
func must(t *testing.T) func(b []byte, err error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}

// TestF32ToF16 round-trips every finite half through chapter 01's F16ToF32 and back, and checks
// rounding to nearest (ties to even) between two neighbours.
func TestF32ToF16(t *testing.T) {
	for h := range 1 << 16 {
		if h&0x7c00 == 0x7c00 { // Inf and NaN
			continue
		}
		if got := F32ToF16(F16ToF32(uint16(h))); got != uint16(h) {
			t.Fatalf("F32ToF16(F16ToF32(%#04x) = %g) = %#04x", h, F16ToF32(uint16(h)), got)
		}
	}
	one, next := F16ToF32(0x3c00), F16ToF32(0x3c01) // 1 and 1 + 2^-10
	for _, c := range []struct {
		x    float32
		want uint16
	}{
		{one + (next-one)*0.49, 0x3c00}, {one + (next-one)*0.51, 0x3c01},
		{one + (next-one)*0.5, 0x3c00}, // a tie goes to the even mantissa
		{1e6, 0x7c00}, {-1e6, 0xfc00}, {65519, 0x7bff}, {1e-9, 0},
	} {
		if got := F32ToF16(c.x); got != c.want {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.x, got, c.want)
		}
	}
}

// TestF32ToBF16 round-trips every bfloat16 through BF16ToF32 and back, and checks rounding to
// nearest with ties to even, and float32's range kept whole (where float16 overflows and
// underflows).
func TestF32ToBF16(t *testing.T) {
	for h := range 1 << 16 {
		x := BF16ToF32(uint16(h))
		if x != x {
			continue // NaN: checked below
		}
		if got := F32ToBF16(x); got != uint16(h) {
			t.Fatalf("F32ToBF16(BF16ToF32(%#04x) = %g) = %#04x", h, x, got)
		}
	}
	one, next := BF16ToF32(0x3f80), BF16ToF32(0x3f81) // 1 and 1 + 2^-7
	for _, c := range []struct {
		x    float32
		want uint16
	}{
		{one + (next-one)*0.49, 0x3f80}, {one + (next-one)*0.51, 0x3f81},
		{one + (next-one)*0.5, 0x3f80},  // a tie goes to the even mantissa
		{next + (next-one)*0.5, 0x3f82}, // and from an odd one up
		{70000, 0x4789},                 // 70144: float16 has no such number (its largest is 65504)
		{1e-8, 0x322c},                  // 1.0011e-08: float16 rounds it to 0
		{math.MaxFloat32, 0x7f80},       // the largest float32 rounds up to +Inf
		{float32(math.Inf(-1)), 0xff80},
	} {
		if got := F32ToBF16(c.x); got != c.want {
			t.Errorf("F32ToBF16(%v) = %#04x (%g), want %#04x (%g)", c.x, got, BF16ToF32(got), c.want, BF16ToF32(c.want))
		}
	}
	if nan := BF16ToF32(F32ToBF16(float32(math.NaN()))); nan == nan {
		t.Errorf("F32ToBF16(NaN) widens to %g, not a NaN", nan)
	}
}

// TestQuantizeRoundTrip quantizes seeded normal values, decodes them with chapter 01's
// Dequantize and bounds the error by the format: half a quantization step. For Q8_0 a step is
// d = max|x|/127 of the block (plus d's own float16 rounding, 2^-11 relative, times 127); for
// Q4_K it is d*sc of the sub-block, plus the rounding of the 6-bit min (dmin/2).
func TestQuantizeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float32, 4*256)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	x[5] = 0 // a zero and an exact extreme
	q8 := must(t)(QuantizeQ8_0(x))
	if len(q8) != len(x)/32*34 {
		t.Fatalf("Q8_0: %d bytes, want %d", len(q8), len(x)/32*34)
	}
	y := make([]float32, len(x))
	if err := Dequantize(y, TypeQ8_0, q8); err != nil {
		t.Fatal(err)
	}
	for b := 0; b < len(x); b += 32 {
		d := F16ToF32(binary.LittleEndian.Uint16(q8[b/32*34:]))
		for j := b; j < b+32; j++ {
			if e := math.Abs(float64(y[j] - x[j])); e > float64(d)*(0.5+127*0x1p-11) {
				t.Fatalf("Q8_0 value %d: %v -> %v, error %.3g beyond half a step (d = %g)", j, x[j], y[j], e, d)
			}
		}
	}
	q4 := must(t)(QuantizeQ4_K(x))
	if len(q4) != len(x)/256*144 {
		t.Fatalf("Q4_K: %d bytes, want %d", len(q4), len(x)/256*144)
	}
	if err := Dequantize(y, TypeQ4_K, q4); err != nil {
		t.Fatal(err)
	}
	var worst float64
	for b := 0; b < len(x); b += 256 {
		blk := q4[b/256*144:]
		d, dmin := F16ToF32(binary.LittleEndian.Uint16(blk)), F16ToF32(binary.LittleEndian.Uint16(blk[2:]))
		for s := b; s < b+256; s += 32 {
			lo, hi := float32(0), x[s]
			for _, v := range x[s : s+32] {
				lo, hi = min(lo, v), max(hi, v)
			}
			// Half the sub-block's step (max-min)/15, plus the rounding of its 6-bit scale (up to
			// d/2 per step, 15 steps at the top) and of its 6-bit min (dmin/2).
			bound := float64(hi-lo)/30 + 7.5*float64(d) + float64(dmin)/2
			for j := s; j < s+32; j++ {
				e := math.Abs(float64(y[j] - x[j]))
				if e > bound {
					t.Fatalf("Q4_K value %d: %v -> %v, error %.3g beyond %.3g (d %g, dmin %g)", j, x[j], y[j], e, bound, d, dmin)
				}
				worst = max(worst, e/bound)
			}
		}
	}
	t.Logf("Q4_K: worst error %.2f of its bound on N(0,1) values", worst)
	if _, err := QuantizeQ4_K(x[:100]); err == nil {
		t.Error("Q4_K of 100 values gave no error")
	}
	if _, err := QuantizeQ8_0(x[:33]); err == nil {
		t.Error("Q8_0 of 33 values gave no error")
	}
}
