package kernels

import "golang.org/x/sys/cpu"

// The levels of amd64, above Generic. Each adds CPU features to the ones below it, and its name
// says which: Kernels (package qwen3) and QWEN3_KERNELS use the names.
const (
	// AVX2: 8-lane vectors, AVX2 with FMA and F16C (half-precision conversion); x86-64 CPUs since
	// 2013-2015.
	AVX2 Level = 1
	// AVX512: 16-lane vectors, AVX-512 F, BW, DQ and VL on top (Intel since Skylake-SP, AMD since
	// Zen 4); operations without an AVX-512 form run their AVX2 form.
	AVX512 Level = 2
	// AVX512VNNI: AVX-512 VNNI on top (VPDPWSSD, VPDPBUSD: Intel since Ice Lake and Cascade Lake,
	// AMD since Zen 4): the block-quantized dots and tiles in 512-bit registers.
	AVX512VNNI Level = 3
)

var levelNames = [...]string{"generic", "avx2", "avx512", "avx512vnni"}

// numLevels is the number of levels of this architecture, Generic included.
const numLevels = len(levelNames)

// cpuLevel is the best level this CPU runs.
var cpuLevel = func() Level {
	x := cpu.X86
	switch {
	case !(x.HasAVX2 && x.HasFMA && x.HasAVX && x86HasF16C()):
		return Generic
	case !(x.HasAVX512F && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL):
		return AVX2
	case !x.HasAVX512VNNI:
		return AVX512
	}
	return AVX512VNNI
}()

// x86HasF16C reports F16C (CPUID.1:ECX bit 29), which x/sys/cpu does not expose.
func x86HasF16C() bool {
	_, _, ecx, _ := cpuid(1, 0)
	return ecx&(1<<29) != 0
}

// cpuid executes CPUID with eax and ecx (cpu_amd64.s).
func cpuid(eax, ecx uint32) (a, b, c, d uint32)
