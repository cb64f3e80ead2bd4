package kernels

import "math"

// Q8_0 block layout: a float16 scale d, then 32 signed 8-bit quants; weight j of the block is d·q[j].
const (
	Q8BlockSize  = 32 // weights per block
	Q8BlockBytes = 34 // bytes per block
)

// bf16 widens raw bfloat16 bits to float32: bfloat16 is the top 16 bits of a float32.
func bf16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// f16 converts raw IEEE 754 half-precision bits to float32 (normals, subnormals, Inf and NaN).
func f16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0: // normal: rebias the exponent from 15 to 127
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// subnormal half: mant · 2^-24, exact in float32
	v := float32(mant) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

func dotF32Generic(w, x []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += w[i] * x[i]
		s1 += w[i+1] * x[i+1]
		s2 += w[i+2] * x[i+2]
		s3 += w[i+3] * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += w[i] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotBF16Generic(w []uint16, x []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += bf16(w[i]) * x[i]
		s1 += bf16(w[i+1]) * x[i+1]
		s2 += bf16(w[i+2]) * x[i+2]
		s3 += bf16(w[i+3]) * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += bf16(w[i]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotF16Generic(w []uint16, x []float32) float32 {
	x = x[:len(w)]
	var s float32
	for i, h := range w {
		s += f16(h) * x[i]
	}
	return s
}

func dotQ8_0Generic(w []byte, x []float32) float32 {
	nb := len(w) / Q8BlockBytes
	x = x[:nb*Q8BlockSize]
	var s float32
	for b := 0; b < nb; b++ {
		blk := w[b*Q8BlockBytes : (b+1)*Q8BlockBytes]
		d := f16(uint16(blk[0]) | uint16(blk[1])<<8)
		xb := x[b*Q8BlockSize : (b+1)*Q8BlockSize]
		var p float32
		for j, q := range blk[2:] {
			p += float32(int8(q)) * xb[j]
		}
		s += d * p
	}
	return s
}
