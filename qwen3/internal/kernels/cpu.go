package kernels

import (
	"fmt"
	"os"
	"strings"
)

// Level is the widest instruction set the kernels use. Each kernel has a plain Go form (the
// specification) and, where it pays, assembly forms; the dispatch (dispatch.go) picks the form of
// the active level, falling back to the next lower level's form where a level has none of its
// own.
//
// Levels are ordered within one architecture: Generic (plain Go, every machine) is 0, and each
// architecture names its own higher levels (cpu_amd64.go: AVX2, AVX512, AVX512VNNI;
// cpu_arm64.go: NEON, DotProd), each level's name saying every CPU feature it adds to the ones
// below. QWEN3_KERNELS takes their names.
type Level int

// Generic is the plain Go form of every kernel.
const Generic Level = 0

// String is the level's name ("generic", "avx2", "avx512", "avx512vnni", "neon", "dotprod"),
// what QWEN3_KERNELS takes.
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

// envErr is what was wrong with QWEN3_KERNELS when the program started (nil: nothing).
var envErr error

// EnvError reports a value of QWEN3_KERNELS that names no level of this architecture, read when
// the program started (nil when it is unset or names one). The kernels then run at Supported.
// The package prints nothing: a command says it where its user looks.
func EnvError() error { return envErr }

func init() {
	l, err := levelFromEnv(os.Getenv("QWEN3_KERNELS"), cpuLevel)
	envErr = err
	setLevel(l)
}

// setLevel makes l the active level and points every dispatch table at its form for l.
func setLevel(l Level) {
	active = l
	for _, o := range ops {
		o.setLevel(l)
	}
}

// levelFromEnv reads a value of QWEN3_KERNELS: a level's name (case and spaces aside) lowers best
// to it; empty leaves best; anything else leaves best and is an error.
func levelFromEnv(v string, best Level) (Level, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return best, nil
	}
	for l := range Level(len(levelNames)) {
		if v == l.String() {
			return min(l, best), nil
		}
	}
	return best, fmt.Errorf("kernels: QWEN3_KERNELS=%q is not one of %s; using %v", v, strings.Join(levelNames[:], ", "), best)
}
