package gguf

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The packers below are the inverse of the dequantizers: they lay out chosen scales and quants the
// way ggml does, so the tests know the exact values each block must decode to.

func f16Bits(t *testing.T, x float32) uint16 {
	// Only values exactly representable as float16 are used; find the bits by search over normals.
	for h := range uint32(0x7c00) {
		if F16ToF32(uint16(h)) == x {
			return uint16(h)
		}
		if F16ToF32(uint16(h)|0x8000) == x {
			return uint16(h) | 0x8000
		}
	}
	t.Fatalf("%v is not a float16", x)
	return 0
}

func packQ8_0(d uint16, q [32]int8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, d)
	for _, v := range q {
		b = append(b, byte(v))
	}
	return b
}

func packQ4_0(d uint16, q [32]uint8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, d)
	for j := range 16 {
		b = append(b, q[j]&0xf|q[j+16]<<4)
	}
	return b
}

func packQ4K(d, dmin uint16, sc, m [8]uint8, q [256]uint8) []byte {
	b := binary.LittleEndian.AppendUint16(nil, d)
	b = binary.LittleEndian.AppendUint16(b, dmin)
	var s [12]byte
	for j := range 4 {
		s[j] = sc[j]&63 | (sc[j+4]>>4)<<6
		s[j+4] = m[j]&63 | (m[j+4]>>4)<<6
		s[j+8] = sc[j+4]&0xf | (m[j+4]&0xf)<<4
	}
	b = append(b, s[:]...)
	for c := range 4 {
		for l := range 32 {
			b = append(b, q[64*c+l]&0xf|q[64*c+32+l]<<4)
		}
	}
	return b
}

func packQ6K(d uint16, sc [16]int8, q [256]uint8) []byte {
	ql := make([]byte, 128)
	qh := make([]byte, 64)
	for i, v := range q {
		h, r := i/128, i%128
		k, l := r/32, r%32
		qlIdx := 64*h + l + 32*(k%2)
		ql[qlIdx] |= (v & 0xf) << (4 * (k / 2))
		qh[32*h+l] |= (v >> 4 & 3) << (2 * k)
	}
	b := append(ql, qh...)
	for _, s := range sc {
		b = append(b, byte(s))
	}
	return binary.LittleEndian.AppendUint16(b, d)
}

func TestF16ToF32(t *testing.T) {
	cases := map[uint16]float32{
		0x0000: 0, 0x3c00: 1, 0xc000: -2, 0x7bff: 65504, 0x0001: 1.0 / (1 << 24), 0x0400: 1.0 / (1 << 14),
		0x3555: 0.33325195, 0x7c00: float32(math.Inf(1)), 0xfc00: float32(math.Inf(-1)),
	}
	for h, want := range cases {
		if got := F16ToF32(h); got != want {
			t.Errorf("F16ToF32(%#04x) = %v, want %v", h, got, want)
		}
	}
	if !math.IsNaN(float64(F16ToF32(0x7e00))) {
		t.Errorf("F16ToF32(0x7e00) is not NaN")
	}
	if math.Signbit(float64(F16ToF32(0x8000))) != true {
		t.Errorf("F16ToF32(0x8000) lost the sign of -0")
	}
	// Every finite half against the textbook formula (-1)^s * 2^(e-15) * (1 + m/1024), or 2^-14 * m/1024.
	for h := range 1 << 16 {
		e, m := h>>10&0x1f, h&0x3ff
		if e == 0x1f {
			continue
		}
		var want float64
		if e == 0 {
			want = math.Ldexp(float64(m)/1024, -14)
		} else {
			want = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if h&0x8000 != 0 {
			want = -want
		}
		if got := F16ToF32(uint16(h)); float64(got) != want {
			t.Fatalf("F16ToF32(%#04x) = %v, want %v", h, got, want)
		}
	}
}

func TestDequantizeQ4_0(t *testing.T) {
	var q [32]uint8
	for j := range q {
		q[j] = uint8(j*7) % 16
	}
	d := float32(-1.5)
	y := make([]float32, 32)
	if err := Dequantize(y, TypeQ4_0, packQ4_0(f16Bits(t, d), q)); err != nil {
		t.Fatal(err)
	}
	for j := range y {
		if want := float32(int(q[j])-8) * d; y[j] != want {
			t.Errorf("y[%d] = %v, want %v", j, y[j], want)
		}
	}
}

func TestDequantizeQ4_K(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		var sc, m [8]uint8
		var q [256]uint8
		for i := range 8 {
			sc[i], m[i] = uint8(rng.IntN(64)), uint8(rng.IntN(64))
		}
		for i := range q {
			q[i] = uint8(rng.IntN(16))
		}
		d, dmin := float32(0.0078125), float32(0.001953125) // powers of two: products are exact
		y := make([]float32, 256)
		if err := Dequantize(y, TypeQ4_K, packQ4K(f16Bits(t, d), f16Bits(t, dmin), sc, m, q)); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			s := i / 32
			want := d*float32(sc[s])*float32(q[i]) - dmin*float32(m[s])
			if y[i] != want {
				t.Fatalf("trial %d: y[%d] = %v, want %v (sub-block %d: scale %d min %d q %d)", trial, i, y[i], want, s, sc[s], m[s], q[i])
			}
		}
	}
}

func TestDequantizeQ6_K(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		var sc [16]int8
		var q [256]uint8
		for i := range sc {
			sc[i] = int8(rng.IntN(256) - 128)
		}
		for i := range q {
			q[i] = uint8(rng.IntN(64))
		}
		d := float32(0.00048828125)
		y := make([]float32, 256)
		if err := Dequantize(y, TypeQ6_K, packQ6K(f16Bits(t, d), sc, q)); err != nil {
			t.Fatal(err)
		}
		for i := range y {
			want := d * float32(sc[i/16]) * float32(int(q[i])-32)
			if y[i] != want {
				t.Fatalf("trial %d: y[%d] = %v, want %v (scale %d q %d)", trial, i, y[i], want, sc[i/16], q[i])
			}
		}
	}
}

func TestDequantizeErrors(t *testing.T) {
	for _, c := range []struct {
		typ  GGMLType
		n    int
		src  int
		want string
	}{
		{TypeQ8_0, 33, 34, "not a whole number of Q8_0 blocks"},
		{TypeQ8_0, 32, 33, "need 34 bytes, got 33"},
		{TypeF32, 2, 4, "need 8 bytes"},
		{GGMLType(13), 256, 176, "dequantizing Q5_K is not supported"},
	} {
		err := Dequantize(make([]float32, c.n), c.typ, make([]byte, c.src))
		assertErr(t, err, c.want)
	}
}
