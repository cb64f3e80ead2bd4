package kernels

import "golang.org/x/sys/cpu"

// cpuLevel is what this CPU runs: AVX2 needs AVX2 (8-lane integer widening), FMA and F16C
// (half-precision conversion); AVX512 needs AVX-512 F and BW on top.
var cpuLevel = func() Level {
	switch {
	case !(cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX && x86HasF16C()):
		return Generic
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW:
		return AVX512
	}
	return AVX2
}()

// The levels of amd64, above Generic.
const (
	AVX2   Level = 1 // 8 lanes: AVX2 with FMA and F16C (x86-64 since 2013-2015)
	AVX512 Level = 2 // 16 lanes: AVX-512 F and BW; kernels without an AVX-512 form run their AVX2 form
)

var levelNames = []string{"generic", "avx2", "avx512"}

// useAVX2 and useAVX512 select the assembly kernels (set once at start; Limit changes them in
// tests). useVNNI adds, at the AVX512 level, the kernels that need AVX-512 VNNI (VPDPWSSD: Intel
// since Ice Lake, AMD since Zen 4); without it those kernels run their AVX2 form.
var useAVX2, useAVX512, useVNNI bool

func archSetLevel(l Level) {
	useAVX2, useAVX512 = l >= AVX2, l >= AVX512
	useVNNI = useAVX512 && cpu.X86.HasAVX512VNNI
}

// x86HasF16C reports F16C (CPUID.1:ECX bit 29), which x/sys/cpu does not expose.
func x86HasF16C() bool {
	_, _, ecx, _ := cpuid(1, 0)
	return ecx&(1<<29) != 0
}

// cpuid executes CPUID with eax and ecx (cpu_amd64.s).
func cpuid(eax, ecx uint32) (a, b, c, d uint32)
