package kernels

import (
	"fmt"
	"os"
	"strings"
)

// Level is the widest instruction set the kernels use. Each kernel has a plain Go form (the
// specification) and, where it pays, assembly forms; the dispatch picks the form of the active
// level, falling back to the next lower form a kernel has.
//
// Levels are ordered within one architecture: Generic (plain Go, every machine) is 0, and each
// architecture names its own higher levels (cpu_amd64.go: AVX2, AVX512). QWEN3_KERNELS takes
// their names.
type Level int

// Generic is the plain Go form of every kernel.
const Generic Level = 0

func (l Level) String() string {
	if l >= 0 && int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Supported is the best level this CPU runs.
func Supported() Level { return cpuLevel }

// active is the level the dispatch uses: set once when the program starts, and by Limit in tests.
var active Level

// Active is the level the kernels use now: Supported, lowered by the environment variable
// QWEN3_KERNELS (a level's name, see Level) when the program starts, or by Limit.
func Active() Level { return active }

// Limit makes the kernels use at most level l (never more than Supported) and returns a function
// that restores the previous level. Tests use it to run every path a machine has. It changes
// package state: call it only while no kernel runs on another goroutine.
func Limit(l Level) (restore func()) {
	prev := Active()
	setLevel(min(l, cpuLevel))
	return func() { setLevel(prev) }
}

func init() { setLevel(levelFromEnv(cpuLevel)) }

// setLevel makes l the active level and sets the architecture's dispatch flags.
func setLevel(l Level) {
	active = l
	archSetLevel(l)
}

// levelFromEnv reads QWEN3_KERNELS; an unknown value is reported and ignored.
func levelFromEnv(best Level) Level {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("QWEN3_KERNELS")))
	if v == "" {
		return best
	}
	for l := range Level(len(levelNames)) {
		if v == l.String() {
			return min(l, best)
		}
	}
	fmt.Fprintf(os.Stderr, "qwen3 kernels: QWEN3_KERNELS=%q is not one of %s; using %v\n", v, strings.Join(levelNames, ", "), best)
	return best
}
