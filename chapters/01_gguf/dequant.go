package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Dequantize decodes src, the bytes of len(dst) values of type t, into dst.
//
// Every block type stores y = scale * q (plus, for Q4_K, minus a per-group minimum) where q is a
// small integer and scale a float16. The arithmetic follows ggml's reference C code in float32,
// operation for operation, so the results are bit-identical to ggml and to gguf-py.
//
// It returns an error if t is not supported, len(dst) is not a whole number of blocks, or src
// has the wrong length.
func Dequantize(dst []float32, t GGMLType, src []byte) error {
	if !t.CanDequantize() {
		return fmt.Errorf("dequantizing %v is not supported", t)
	}
	bs, ts := t.BlockSize(), t.TypeSize()
	n := int64(len(dst))
	if n%bs != 0 {
		return fmt.Errorf("%d values are not a whole number of %v blocks of %d", n, t, bs)
	}
	if want := n / bs * ts; int64(len(src)) != want {
		return fmt.Errorf("%d %v values need %d bytes, got %d", n, t, want, len(src))
	}
	// One loop per type, so the type switch is not paid per value.
	switch t {
	case TypeF32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
		}
	case TypeF16:
		for i := range dst {
			dst[i] = F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	case TypeBF16:
		for i := range dst {
			dst[i] = BF16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
		}
	case TypeF64: // rounded to the nearest float32
		for i := range dst {
			dst[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:])))
		}
	default:
		block := map[GGMLType]func(y []float32, b []byte){
			TypeQ8_0: DequantizeQ8_0, TypeQ4_0: dequantizeQ4_0, TypeQ4_K: dequantizeQ4_K, TypeQ6_K: dequantizeQ6_K,
		}[t]
		for b := int64(0); b < n/bs; b++ {
			block(dst[b*bs:(b+1)*bs], src[b*ts:(b+1)*ts])
		}
	}
	return nil
}

// BF16ToF32 widens a bfloat16: bfloat16 is the top half of a float32 (1 sign, 8 exponent and
// 7 mantissa bits), so the conversion is a 16-bit shift and exact.
func BF16ToF32(h uint16) float32 {
	// exercise: gguf.BF16ToF32 — put the 16 bits in the top half of a float32
	// tests: TestBF16ToF32
	// difficulty: easy, 5 min
	return math.Float32frombits(uint32(h) << 16)
	// hint: A bfloat16 is a float32 with its low 16 bits cut off: sign, the same 8 exponent bits,
	// and the top 7 mantissa bits. Nothing needs converting, only moving.
	// hint: float32 bits = h << 16 (h in the top half, zeros below); math.Float32frombits turns
	// bits into the number.
	// hint: One line: return math.Float32frombits(uint32(h) << ...)
	// mistake: the 16 bits in the bottom half of the float32
	// says: a bfloat16 is the top 16 bits of a float32
	//	- return math.Float32frombits(uint32(h) << 16)
	//	+ return math.Float32frombits(uint32(h))
	// mistake: read as IEEE float16, which has 5 exponent bits, not bfloat16's 8
	// says: read as float16
	//	- return math.Float32frombits(uint32(h) << 16)
	//	+ return F16ToF32(h)
	// mistake: the sign bit masked off
	// says: the sign bit
	//	- return math.Float32frombits(uint32(h) << 16)
	//	+ return math.Float32frombits(uint32(h&0x7fff) << 16)
	// end exercise
}

// F16ToF32 widens an IEEE 754 half-precision float (1 sign, 5 exponent, 10 mantissa bits, bias 15)
// to float32 (bias 127), exactly: normal numbers, subnormals, zeros, infinities and NaNs.
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN: keep the payload
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp != 0: // normal: re-bias the exponent
		return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
	case mant == 0: // signed zero
		return math.Float32frombits(sign)
	}
	// subnormal: mant * 2^-24, exact in float32
	v := float32(mant) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// DequantizeQ8_0 decodes one Q8_0 block (34 bytes: float16 d, then 32 int8 q) into 32 values:
//
//	y[j] = d * q[j]
func DequantizeQ8_0(y []float32, block []byte) {
	// exercise: gguf.DequantizeQ8_0 — read the float16 scale, then scale each signed byte
	// tests: TestDequantizeQ8_0 ExampleDequantize TestGoldenSampleTensors
	// difficulty: easy, 15 min
	d := F16ToF32(binary.LittleEndian.Uint16(block))
	for j := range 32 {
		y[j] = float32(int8(block[2+j])) * d
	}
	// hint: A block is 34 bytes: first the scale, then the 32 quants. Read the scale once, then
	// each quant as a signed number and multiply.
	// hint: d = F16ToF32(little-endian uint16 of bytes 0-1); y[j] = float32(int8(block[2+j])) * d.
	// The int8 conversion matters: byte 0xf8 is -8, not 248.
	// hint: The shape:
	//	d := F16ToF32(binary.LittleEndian.Uint16(block))
	//	for j := range 32 {
	//		y[j] = ...
	//	}
	// mistake: the bytes read as unsigned (uint8), so negative quants come out near +256 d
	// says: read as unsigned
	//	- y[j] = float32(int8(block[2+j])) * d
	//	+ y[j] = float32(block[2+j]) * d
	// mistake: the scale read as bfloat16 instead of float16
	// says: the scale is read as bfloat16
	//	- d := F16ToF32(binary.LittleEndian.Uint16(block))
	//	+ d := BF16ToF32(binary.LittleEndian.Uint16(block))
	// mistake: the quants read from byte 0, over the scale
	// says: the quants are read from byte 0
	//	- y[j] = float32(int8(block[2+j])) * d
	//	+ y[j] = float32(int8(block[j])) * d
	// mistake: the scale read as a 4-byte float32, so the quants start 2 bytes late
	// says: the scale is read as float32
	//	- d := F16ToF32(binary.LittleEndian.Uint16(block))
	//	+ d := math.Float32frombits(binary.LittleEndian.Uint32(block))
	//
	//	- y[j] = float32(int8(block[2+j])) * d
	//	+ y[j] = float32(int8(block[4+j])) * d
	// end exercise
}

// dequantizeQ4_0 decodes one Q4_0 block (18 bytes: float16 d, then 16 bytes of 4-bit q) into 32
// values. The low nibbles are values 0..15, the high nibbles values 16..31, both offset by 8:
//
//	y[j] = (q[j]&0xF - 8) * d,   y[j+16] = (q[j]>>4 - 8) * d
func dequantizeQ4_0(y []float32, block []byte) {
	d := F16ToF32(binary.LittleEndian.Uint16(block))
	qs := block[2:18]
	for j := range 16 {
		y[j] = float32(int(qs[j]&0xf)-8) * d
		y[j+16] = float32(int(qs[j]>>4)-8) * d
	}
}

// q4KScaleMin unpacks the 6-bit scale and 6-bit minimum of sub-block j (0..7) from the 12 packed
// bytes of a Q4_K block. Sub-blocks 0..3 use the low 6 bits of bytes j and j+4; sub-blocks 4..7
// take their low 4 bits from byte j+4 and their top 2 bits from the spare high bits of bytes
// j-4 (scale) and j (minimum).
func q4KScaleMin(j int, s []byte) (scale, min uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return s[j+4]&0xf | (s[j-4]>>6)<<4, s[j+4]>>4 | (s[j]>>6)<<4
}

// dequantizeQ4_K decodes one Q4_K super-block (144 bytes) into 256 values.
//
// Layout: float16 d, float16 dmin, 12 bytes of packed 6-bit scales and mins for 8 sub-blocks of
// 32, then 128 bytes of 4-bit quants. The quants come in 4 chunks of 32 bytes; chunk c holds
// sub-block 2c in its low nibbles and sub-block 2c+1 in its high nibbles. For sub-block s:
//
//	y = (d*scale[s]) * q - (dmin*min[s])
func dequantizeQ4_K(y []float32, block []byte) {
	d := F16ToF32(binary.LittleEndian.Uint16(block[0:]))
	dmin := F16ToF32(binary.LittleEndian.Uint16(block[2:]))
	scales := block[4:16]
	qs := block[16:144]
	for c := range 4 {
		q := qs[32*c : 32*c+32]
		sc, m := q4KScaleMin(2*c, scales)
		d1, m1 := d*float32(sc), dmin*float32(m)
		sc, m = q4KScaleMin(2*c+1, scales)
		d2, m2 := d*float32(sc), dmin*float32(m)
		out := y[64*c : 64*c+64]
		for l := range 32 {
			// The explicit float32 conversions forbid fusing a*b-c into one FMA instruction,
			// which would round differently from ggml's reference code.
			out[l] = float32(d1*float32(q[l]&0xf)) - m1
			out[l+32] = float32(d2*float32(q[l]>>4)) - m2
		}
	}
}

// dequantizeQ6_K decodes one Q6_K super-block (210 bytes) into 256 values.
//
// Layout: 128 bytes ql (low 4 bits of each quant), 64 bytes qh (high 2 bits, four quants per
// byte), 16 int8 scales (one per 16 values), float16 d. Each half of 128 values uses 64 bytes of
// ql and 32 of qh; value l+32k of the half (k = 0..3) takes nibble k/2 of ql[l + 32*(k%2)] and bits
// 2k..2k+1 of qh[l]. The 6-bit quant is centred by subtracting 32:
//
//	y = d * scale[i/16] * (q - 32)
func dequantizeQ6_K(y []float32, block []byte) {
	ql, qh := block[0:128], block[128:192]
	sc := block[192:208]
	d := F16ToF32(binary.LittleEndian.Uint16(block[208:]))
	for half := range 2 {
		l4, h2, s := ql[64*half:], qh[32*half:], sc[8*half:]
		out := y[128*half:]
		for l := range 32 {
			is := l / 16
			q1 := int(l4[l]&0xf|(h2[l]>>0&3)<<4) - 32
			q2 := int(l4[l+32]&0xf|(h2[l]>>2&3)<<4) - 32
			q3 := int(l4[l]>>4|(h2[l]>>4&3)<<4) - 32
			q4 := int(l4[l+32]>>4|(h2[l]>>6&3)<<4) - 32
			out[l] = d * float32(int8(s[is])) * float32(q1)
			out[l+32] = d * float32(int8(s[is+2])) * float32(q2)
			out[l+64] = d * float32(int8(s[is+4])) * float32(q3)
			out[l+96] = d * float32(int8(s[is+6])) * float32(q4)
		}
	}
}
