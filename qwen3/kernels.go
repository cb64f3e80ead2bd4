package qwen3

import "github.com/qwen3go/qwen3go/qwen3/internal/kernels"

// Kernels names the instruction set the engine's inner loops use on this machine, a name that
// says every CPU feature they use: "generic" (plain Go); on amd64 "avx2" (with FMA and F16C),
// "avx512" (AVX-512 F, BW, DQ, VL on top) or "avx512vnni" (and AVX-512 VNNI); on arm64 "neon" or
// "dotprod" (the best the CPU has, or lower when the environment variable QWEN3_KERNELS names a
// lower level at start). A benchmark report should say it.
func Kernels() string { return kernels.Active().String() }
