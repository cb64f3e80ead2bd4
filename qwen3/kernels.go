package qwen3

import "github.com/qwen3go/qwen3go/qwen3/internal/kernels"

// Kernels names the instruction set the engine's inner loops use on this machine: "generic"
// (plain Go), "avx2" or "avx512" on amd64, "neon" or "dotprod" on arm64 (the best the CPU has,
// or lower when the environment variable QWEN3_KERNELS names a lower level at start). A benchmark
// report should say it.
func Kernels() string { return kernels.Active().String() }
