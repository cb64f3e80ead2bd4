package kernels

import gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"

// Q8_0 block layout: a float16 scale d, then 32 signed 8-bit quants; weight j of the block is d·q[j].
const (
	Q8BlockSize  = 32 // weights per block
	Q8BlockBytes = 34 // bytes per block
)

// bf16 and f16 widen raw bfloat16 and IEEE half bits to float32 with chapter 01's conversions,
// the course's one definition of each (exact: normals, subnormals, Inf and NaN).
func bf16(h uint16) float32 { return gguf.BF16ToF32(h) }
func f16(h uint16) float32  { return gguf.F16ToF32(h) }

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

// dotF16Generic looks each weight up in f16Table (one load, where F16ToF32's branches measured 6
// times slower) and keeps four sums, as dotBF16Generic does.
func dotF16Generic(w []uint16, x []float32) float32 {
	x = x[:len(w)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(w); i += 4 {
		s0 += f16Table[w[i]] * x[i]
		s1 += f16Table[w[i+1]] * x[i+1]
		s2 += f16Table[w[i+2]] * x[i+2]
		s3 += f16Table[w[i+3]] * x[i+3]
	}
	for ; i < len(w); i++ {
		s0 += f16Table[w[i]] * x[i]
	}
	return (s0 + s1) + (s2 + s3)
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
