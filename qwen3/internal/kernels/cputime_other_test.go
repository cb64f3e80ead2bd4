//go:build !linux

package kernels

// threadCPU is not measured here (the benchmarks then report wall-clock rates only).
func threadCPU() int64 { return 0 }
