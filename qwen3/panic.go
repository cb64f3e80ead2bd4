package qwen3

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// PanicError is a panic inside the engine, on any of its worker goroutines (a kernel given
// shapes it cannot take, say), returned to the caller as an error instead of ending the program.
// The tokens of the pass that panicked do not join their caches, and the model stays usable.
type PanicError struct {
	// Kernel is the function that panicked: the kernel the engine called (for example
	// "kernels.DotF32Rows"), or the engine's own function when no kernel was running.
	Kernel string
	// Pass is what the engine was computing: the layer, the matrix with its type and shape, and
	// the tokens with their positions.
	Pass string
	// Value is what panic was called with; Stack the panicking goroutine's stack.
	Value any
	Stack []byte
}

func (p *PanicError) Error() string {
	return fmt.Sprintf("panic in %s during %s: %v", p.Kernel, p.Pass, p.Value)
}

// Unwrap returns the value panicked with when it is an error (a runtime.Error, for example).
func (p *PanicError) Unwrap() error {
	err, _ := p.Value.(error)
	return err
}

// newPanicError describes the panic in progress; it must be called by the deferred function
// that recovered v, while the panicking frames are still on the stack.
func newPanicError(v any) *PanicError {
	if p, ok := v.(*PanicError); ok { // a worker's panic, passed on by the pool
		return p
	}
	return &PanicError{Kernel: panicSite(), Value: v, Stack: debug.Stack()}
}

const kernelsPkg = "github.com/qwen3go/qwen3go/qwen3/internal/kernels."

// panicSite names the function where the panic in progress began, seen from the deferred
// function that recovers it: above runtime.gopanic (and the runtime's own frames that raise an
// index or nil error) is the function that panicked; when it is in package kernels, the kernel
// the engine called is the outermost of the kernels frames that follow, which is named.
func panicSite() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	seenPanic, site := false, ""
	for {
		f, more := frames.Next()
		switch {
		case !seenPanic:
			seenPanic = f.Function == "runtime.gopanic"
		case strings.HasPrefix(f.Function, "runtime."):
		case site == "":
			site = f.Function
			if !strings.HasPrefix(site, kernelsPkg) {
				return short(site)
			}
		case strings.HasPrefix(f.Function, kernelsPkg):
			site = f.Function
		default:
			return short(site)
		}
		if !more {
			if site == "" {
				return "an unknown function"
			}
			return short(site)
		}
	}
}

// short drops the module path from a function's name: "kernels.DotF32Rows", "qwen3.(*engine).attend".
func short(fn string) string { return fn[strings.LastIndex(fn, "/")+1:] }

// recover turns a panic of the forward pass in progress into *err, a *PanicError that says
// what was running; the caller defers it while holding the engine's lock.
func (e *engine) recover(err *error) {
	v := recover()
	if v == nil {
		return
	}
	p := newPanicError(v)
	p.Pass = e.describe()
	*err = p
}

// pass is a step of the forward pass, for the error a panic becomes.
type pass uint8

const (
	passEmbed pass = iota
	passNorm
	passQKV
	passRotateStore
	passAttention
	passQuantize
	passO
	passGateUp
	passDown
	passHead
)

var passNames = [...]string{
	passEmbed:       "the embedding lookup",
	passNorm:        "the RMSNorm",
	passQKV:         "the Q, K and V projections",
	passRotateStore: "QK-norm, RoPE and the cache store",
	passAttention:   "attention",
	passQuantize:    "the rounding of activations to int16",
	passO:           "the output projection",
	passGateUp:      "the gate and up projections",
	passDown:        "the down projection",
	passHead:        "the LM head",
}

// stage is where the forward pass is: a step, and the matrix it multiplies (nil for none).
type stage struct {
	pass pass
	w    *matrix
}

// at records the step about to run.
func (e *engine) at(p pass, w *matrix) { e.stage = stage{p, w} }

// describe says what the forward pass was running: "layer 3, the gate and up projections
// (model.layers.3.mlp.gate_proj.weight: Q8_0 3072x1024), 1 token at position 57".
func (e *engine) describe() string {
	var b strings.Builder
	if e.l != nil && e.stage.pass != passEmbed && e.stage.pass != passHead {
		fmt.Fprintf(&b, "layer %d, ", e.li)
	}
	b.WriteString(passNames[e.stage.pass])
	if w := e.stage.w; w != nil {
		fmt.Fprintf(&b, " (%s: %v %dx%d)", w.Name, w.Type, w.Rows, w.Cols)
	}
	switch {
	case e.n == 1:
		fmt.Fprintf(&b, ", 1 token at position %d", e.posOf[0])
	case e.batch:
		fmt.Fprintf(&b, ", a batch of %d tokens at positions %v", e.n, e.posOf[:e.n])
	default:
		fmt.Fprintf(&b, ", %d tokens at positions %d..%d", e.n, e.posOf[0], e.posOf[e.n-1])
	}
	return b.String()
}
