// Package kernels holds the inner loops of the qwen3 engine: dot products of one weight row, stored
// in the file's precision, with a float32 activation vector.
//
//	DotF32(w, x)   = Σ w[i]·x[i]                 w float32
//	DotBF16(w, x)  = Σ bf16(w[i])·x[i]           w raw bfloat16 bits (the top half of a float32)
//	DotF16(w, x)   = Σ f16(w[i])·x[i]            w raw IEEE half bits
//	DotQ8_0(w, x)  = Σ_b d_b · Σ_j q_bj·x_bj     w Q8_0 blocks: {f16 d; int8 q[32]} = 34 bytes per 32 weights
//
// The weights are never widened into a float32 copy: decoding them inside the loop keeps the bytes
// streamed from memory per token at the file's size (BF16 half of F32, Q8_0 about a quarter), and
// decode speed on a CPU is bounded by exactly that stream.
//
// Each function has a plain Go version (dot_generic.go, the specification) and, on amd64 with AVX2,
// FMA and F16C, an assembly version (dot_amd64.s) that does 8 lanes per instruction. The tests and
// fuzz targets check the two against each other and against chapter 01's dequantizers, in float64.
// Activations stay float32 in every kernel (no int8 activation quantization as llama.cpp does), so
// the engine's numbers stay within 1e-4 of the float64 chapters.
package kernels
