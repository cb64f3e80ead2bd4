package kernels

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// The levels of arm64, above Generic.
//
// NEON (Advanced SIMD, 4 float32 or 8 int16 lanes) is part of every arm64 CPU. DotProd adds the
// dot-product instructions SDOT and UDOT (FEAT_DotProd, Armv8.2+; every Apple M-series chip,
// AWS Graviton2 and later, Ampere Altra, Raspberry Pi 5's Cortex-A76; not the Pi 4's Cortex-A72):
// sixteen 8-bit products summed in fours into 32-bit lanes per instruction. Only the decoding dots
// of the block-quantized types (quant_dotprod_arm64.s) have a DotProd form; every other kernel runs its
// NEON form at DotProd.
const (
	NEON    Level = 1 // Advanced SIMD: every arm64 CPU
	DotProd Level = 2 // Advanced SIMD with SDOT/UDOT (FEAT_DotProd)
)

var levelNames = [...]string{"generic", "neon", "dotprod"}

// numLevels is the number of levels of this architecture, Generic included.
const numLevels = len(levelNames)

// cpuLevel is what this CPU runs. golang.org/x/sys/cpu reads the dot product from the kernel's
// hardware capabilities on Linux (HWCAP_ASIMDDP), from sysctl hw.optional.arm.FEAT_DotProd on
// macOS and from IsProcessorFeaturePresent on Windows. Where it cannot tell, it answers no and
// the kernels stay at NEON, which is always safe. The one exception is macOS: every Mac that runs
// arm64 code is an M-series chip (Armv8.5 and later, all with the dot product), but macOS 11 has
// no FEAT_DotProd sysctl, so there the answer would be a wrong no.
var cpuLevel = func() Level {
	switch {
	case !cpu.ARM64.HasASIMD:
		return Generic
	case cpu.ARM64.HasASIMDDP || runtime.GOOS == "darwin":
		return DotProd
	}
	return NEON
}()
