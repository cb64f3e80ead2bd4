package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The writer's side of the quantized types: this course reads quantized files, and these
// functions write the blocks that Dequantize reads, so that tests can build weights of every type
// and the notebooks can measure what each type loses. They round to nearest, the plainest way to
// fill each format. llama.cpp's Q8_0 does the same (ggml/src/ggml-quants.c, quantize_row_q8_0_ref);
// its Q4_K searches each sub-block for a slightly better scale and minimum (make_qkx2_quants), so
// its Q4_K errors are a little smaller than these.

// F32ToF16 rounds x to the nearest IEEE half-precision number (ties to even) and returns its
// bits: the inverse of gguf.F16ToF32. Values beyond ±65504 become ±Inf; NaN stays NaN.
func F32ToF16(x float32) uint16 {
	f := float64(x)
	var sign uint16
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	switch {
	case math.IsNaN(f):
		return 0x7e00
	case f >= 65520: // halfway between 65504 and the next step (65536) rounds up to Inf
		return sign | 0x7c00
	case f < 0x1p-14: // subnormal: multiples of 2^-24
		return sign | uint16(math.RoundToEven(f*0x1p24))
	}
	frac, exp := math.Frexp(f) // f = frac * 2^exp, frac in [0.5, 1)
	m := math.RoundToEven((frac*2 - 1) * 1024)
	e := exp - 1 + 15
	if m == 1024 {
		m, e = 0, e+1
	}
	if e >= 31 {
		return sign | 0x7c00
	}
	return sign | uint16(e)<<10 | uint16(m)
}

// F32ToBF16 rounds x to the nearest bfloat16 (ties to even), as PyTorch's x.to(torch.bfloat16)
// does, and returns its bits: the inverse of gguf.BF16ToF32. bfloat16 is float32 with the low 16
// mantissa bits cut, so the rounding adds half of the dropped part (plus the tie-breaking bit) and
// keeps the top 16 bits; float32's exponent, and so its range, is kept whole: only values beyond
// about ±3.39e38 become ±Inf. NaN stays NaN.
func F32ToBF16(x float32) uint16 {
	b := math.Float32bits(x)
	if x != x { // NaN: keep it a NaN (quiet), whatever the rounding would do to its payload
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// f16 rounds x to half precision and back.
func f16(x float32) float32 { return F16ToF32(F32ToF16(x)) }

// QuantizeQ8_0 packs x (a multiple of 32 values) into Q8_0 blocks of 34 bytes: per block of 32,
// d = max|x|/127 stored as float16, then q[j] = round(x[j]/d) as int8, so that x[j] ≈ d*q[j].
func QuantizeQ8_0(x []float32) ([]byte, error) {
	if len(x)%32 != 0 {
		return nil, fmt.Errorf("gguf: Q8_0 needs a multiple of 32 values, got %d", len(x))
	}
	out := make([]byte, 0, len(x)/32*34)
	for b := 0; b < len(x); b += 32 {
		blk := x[b : b+32]
		var amax float32
		for _, v := range blk {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		d := f16(amax / 127)
		out = binary.LittleEndian.AppendUint16(out, F32ToF16(d))
		for _, v := range blk {
			q := 0.0
			if d != 0 {
				q = math.Round(float64(v / d))
			}
			out = append(out, byte(int8(max(-127, min(127, q)))))
		}
	}
	return out, nil
}

// QuantizeQ4_K packs x (a multiple of 256 values) into Q4_K super-blocks of 144 bytes. Each
// sub-block s of 32 values is mapped to 4-bit quants q in 0..15 with x ≈ D_s*q - M_s, where
// D_s = (max - min)/15 and M_s = -min (min taken as at most 0). The sub-block scales and mins are
// in turn stored as 6-bit integers times two float16 super-block factors: D_s = d*sc[s] and
// M_s = dmin*m[s], with d = max D_s / 63 and dmin = max M_s / 63.
func QuantizeQ4_K(x []float32) ([]byte, error) {
	if len(x)%256 != 0 {
		return nil, fmt.Errorf("gguf: Q4_K needs a multiple of 256 values, got %d", len(x))
	}
	out := make([]byte, 0, len(x)/256*144)
	for b := 0; b < len(x); b += 256 {
		blk := x[b : b+256]
		var scale, mins [8]float32
		for s := range 8 {
			lo, hi := float32(0), float32(math.Inf(-1))
			for _, v := range blk[32*s : 32*s+32] {
				lo, hi = min(lo, v), max(hi, v)
			}
			scale[s], mins[s] = (hi-lo)/15, -lo
		}
		var maxScale, maxMin float32
		for s := range 8 {
			maxScale, maxMin = max(maxScale, scale[s]), max(maxMin, mins[s])
		}
		d, dmin := f16(maxScale/63), f16(maxMin/63)
		var sc, m [8]uint8
		var q [256]uint8
		for s := range 8 {
			if d > 0 {
				sc[s] = uint8(min(63, math.Round(float64(scale[s]/d))))
			}
			if dmin > 0 {
				m[s] = uint8(min(63, math.Round(float64(mins[s]/dmin))))
			}
			ds, ms := d*float32(sc[s]), dmin*float32(m[s])
			for j := range 32 {
				v := 0.0
				if ds > 0 {
					v = math.Round(float64((blk[32*s+j] + ms) / ds))
				}
				q[32*s+j] = uint8(max(0, min(15, v)))
			}
		}
		out = binary.LittleEndian.AppendUint16(out, F32ToF16(d))
		out = binary.LittleEndian.AppendUint16(out, F32ToF16(dmin))
		// 12 bytes of scales and mins: sub-blocks 0..3 in the low 6 bits of bytes s (scale) and
		// s+4 (min); sub-blocks 4..7 split into 4 low bits in byte s+8 and 2 high bits in the
		// spare top bits of bytes s-4 and s (the layout q4KScaleMin unpacks).
		var packed [12]byte
		for j := range 4 {
			packed[j] = sc[j] | (sc[j+4]>>4)<<6
			packed[j+4] = m[j] | (m[j+4]>>4)<<6
			packed[j+8] = sc[j+4]&0xf | (m[j+4]&0xf)<<4
		}
		out = append(out, packed[:]...)
		// Quants: 4 chunks of 32 bytes, sub-block 2c in the low nibbles, 2c+1 in the high ones.
		for c := range 4 {
			for l := range 32 {
				out = append(out, q[64*c+l]|q[64*c+32+l]<<4)
			}
		}
	}
	return out, nil
}
