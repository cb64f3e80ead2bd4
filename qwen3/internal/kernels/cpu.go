package kernels

import (
	"fmt"
	"os"
	"strings"
)

// Level is the widest instruction set the kernels use. Each kernel has a plain Go form (the
// specification) and, where it pays, assembly forms; the dispatch picks the form of the active
// level, falling back to the next lower form a kernel has.
type Level int

const (
	Generic Level = iota // plain Go
	AVX2                 // 8 lanes: AVX2 with FMA and F16C (x86-64 since 2013-2015)
	AVX512               // 16 lanes: AVX-512 F and BW; kernels without an AVX-512 form run their AVX2 form
)

func (l Level) String() string {
	switch l {
	case Generic:
		return "generic"
	case AVX2:
		return "avx2"
	case AVX512:
		return "avx512"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Supported is the best level this CPU runs.
func Supported() Level { return cpuLevel }

// Active is the level the kernels use now: Supported, lowered by the environment variable
// QWEN3_KERNELS (generic, avx2 or avx512) when the program starts, or by Limit.
func Active() Level {
	switch {
	case useAVX512:
		return AVX512
	case useAVX2:
		return AVX2
	}
	return Generic
}

// Limit makes the kernels use at most level l (never more than Supported) and returns a function
// that restores the previous level. Tests use it to run every path a machine has. It changes
// package state: call it only while no kernel runs on another goroutine.
func Limit(l Level) (restore func()) {
	prev := Active()
	setLevel(min(l, cpuLevel))
	return func() { setLevel(prev) }
}

// levelFromEnv reads QWEN3_KERNELS; an unknown value is reported and ignored.
func levelFromEnv(best Level) Level {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("QWEN3_KERNELS")))
	if v == "" {
		return best
	}
	for l := Generic; l <= AVX512; l++ {
		if v == l.String() {
			return min(l, best)
		}
	}
	fmt.Fprintf(os.Stderr, "qwen3 kernels: QWEN3_KERNELS=%q is not generic, avx2 or avx512; using %v\n", v, best)
	return best
}
