package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// The tests of the chapter's two dequantizing exercises, BF16ToF32 and DequantizeQ8_0. go test runs
// files in name order: these run before the tests that parse and read whole files (gguf_test.go,
// golden_test.go), so that a wrong block reader is named here rather than met there as a panic or
// as wrong numbers.

func TestBF16ToF32(t *testing.T) {
	for _, x := range []float32{0, 1, -2, 3.140625, 1e30, -1e-30} {
		bits := math.Float32bits(x)
		if bits&0xffff != 0 {
			x = math.Float32frombits(bits &^ 0xffff) // truncate to a bfloat16 value
		}
		h := uint16(math.Float32bits(x) >> 16)
		got := BF16ToF32(h)
		if got == x {
			continue
		}
		why := "a bfloat16 is the top 16 bits of a float32 (sign, 8 exponent bits, 7 mantissa bits)"
		switch {
		case got == -x:
			why = "the sign bit is lost: " + why
		case got == F16ToF32(h):
			why = "that is h read as float16 (5 exponent bits): " + why
		}
		t.Fatalf("BF16ToF32(%#04x) = %v, want %v: %s", h, got, x, why)
	}
}

// checkQ8_0 decodes one hand-made Q8_0 block with DequantizeQ8_0 and, when the values are wrong,
// fails t naming the classic mistake they come from. The block is followed by two spare bytes, so
// that a reader of a 4-byte scale does not run off the end but shows what it read.
func checkQ8_0(t *testing.T) {
	t.Helper()
	var q [32]int8
	for j := range q {
		q[j] = int8(j*9 - 128)
	}
	q[31] = 127
	const d = float32(0.0625)
	block := append(packQ8_0(f16Bits(t, d), q), 0x2a, 0x00)
	y := make([]float32, 32)
	DequantizeQ8_0(y, block)
	like := func(f func(j int) float32) bool {
		for j := range y {
			if y[j] != f(j) {
				return false
			}
		}
		return true
	}
	if like(func(j int) float32 { return float32(q[j]) * d }) {
		return
	}
	le := binary.LittleEndian
	why := "want y[j] = d * q[j]"
	switch {
	case like(func(int) float32 { return 0 }):
		why = "nothing was written into y"
	case like(func(j int) float32 { return math.Float32frombits(le.Uint32(block)) * float32(int8(block[4+j])) }):
		why = "the scale is read as float32 (4 bytes) and the quants from byte 4"
	case like(func(j int) float32 { return float32(block[2+j]) * d }):
		why = "the quants are read as unsigned bytes: 0xf8 is -8 (int8), not 248"
	case like(func(j int) float32 { return BF16ToF32(le.Uint16(block)) * float32(q[j]) }):
		why = "the scale is read as bfloat16: it is an IEEE float16 (F16ToF32)"
	default:
		for k := 0; k <= 4; k++ {
			if k != 2 && like(func(j int) float32 { return float32(int8(block[k+j])) * d }) {
				why = fmt.Sprintf("the quants are read from byte %d: they start at byte 2, after the scale", k)
			}
		}
	}
	t.Fatalf("one Q8_0 block with scale d = %v and quants q = %d %d %d ...: y = %v %v %v ..., want %v %v %v ...:\n"+
		"%s; a Q8_0 block is 2 bytes of float16 scale d, then 32 int8 quants q (34 bytes), y[j] = d*q[j]",
		d, q[0], q[1], q[2], y[0], y[1], y[2], d*float32(q[0]), d*float32(q[1]), d*float32(q[2]), why)
}

func TestDequantizeQ8_0(t *testing.T) {
	checkQ8_0(t)
	// Through Dequantize, two blocks of exactly 34 bytes each: nothing may be read past them.
	var q [32]int8
	for j := range q {
		q[j] = int8(j*9 - 128)
	}
	d := float32(0.0625)
	src := append(packQ8_0(f16Bits(t, d), q), packQ8_0(f16Bits(t, -d), q)...)
	y := make([]float32, 64)
	if err := Dequantize(y, TypeQ8_0, src); err != nil {
		t.Fatal(err)
	}
	for j := range y {
		want := float32(q[j%32]) * d
		if j >= 32 {
			want = -want
		}
		if y[j] != want { // exact: small integers times a power of two
			t.Fatalf("two blocks, scales %v and %v: y[%d] = %v, want %v: block b's values are y[32b:32b+32]", d, -d, j, y[j], want)
		}
	}
}
