// Package catch turns a panic inside one test into the failure of that test alone.
//
// A fresh exercise workspace (go run ./scripts/exercise NN) holds stubs that panic:
//
//	panic("exercise rope.InvFreq: not implemented")
//
// A panic in a test kills the whole test binary, so the first stub would hide every other
// exercise's tests. The exercise tool therefore starts each test, subtest, fuzz target and
// example of a workspace with a deferred call of this package:
//
//	func TestInvFreqGolden(t *testing.T) {
//		defer catch.Panic(t)
//		...
//
//	func ExampleInvFreq() {
//		defer catch.ExamplePanic()
//		...
//
// Chapters do not call it themselves: only the copies the tool writes do (workspace/ and the
// copies of `exercise check`), so a chapter's tests read the same with or without it. A stub's
// panic then fails as one short line at the stub:
//
//	--- FAIL: TestInvFreqGolden (0.00s)
//	    rope.go:22: exercise rope.InvFreq: not implemented
//
// and any other panic (an index out of range in the learner's code) as the panic and the calls
// that led to it, in a few lines.
package catch

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Panic recovers a panic of the test t and fails t with it instead: t stops, the other tests go
// on. It must be called by defer directly, as the first statement of the test function:
//
//	defer catch.Panic(t)
func Panic(t testing.TB) {
	r := recover()
	if r == nil {
		return
	}
	t.Helper() // the failure is reported at the line that panicked
	t.Fatal(describe(r, callers()))
}

// ExamplePanic recovers a panic of an Example function and prints it to standard output, where
// the example's // Output: check sees it: the example fails, showing the panic as what it got,
// and the other examples still run. It must be called by defer directly:
//
//	defer catch.ExamplePanic()
func ExamplePanic() {
	r := recover()
	if r == nil {
		return
	}
	fmt.Fprintln(os.Stdout, describe(r, callers()))
}

// stubSuffix ends the message of every exercise stub (see scripts/exercise).
const stubSuffix = ": not implemented"

// maxFrames is how many calls a panic's description lists: enough to find the learner's line,
// few enough to keep the failure short.
const maxFrames = 4

// A frame is one call on the stack of a panic.
type frame struct {
	Function string // "github.com/…/workspace/04_rope.(*Table).RotateHead"
	File     string
	Line     int
}

// callers returns the stack of the panic being recovered, from the panicking function outwards,
// without the runtime's and the testing package's frames. It must be called by Panic or
// ExamplePanic, whose frames it skips with its own.
func callers() []frame {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs) // skip runtime.Callers, callers and Panic/ExamplePanic
	frames := runtime.CallersFrames(pcs[:n])
	var out []frame
	for {
		f, more := frames.Next()
		if !hidden(f.Function) {
			out = append(out, frame{Function: f.Function, File: f.File, Line: f.Line})
		}
		if !more {
			return out
		}
	}
}

// hidden reports whether a function belongs to the machinery around a test rather than to the
// code under test.
func hidden(function string) bool {
	return strings.HasPrefix(function, "runtime.") || strings.HasPrefix(function, "testing.")
}

// describe says what panicked. An exercise stub's own message says it all; anything else gets
// the panic value and the calls that led to it, innermost first.
func describe(r any, stack []frame) string {
	msg := fmt.Sprint(r)
	if s, ok := r.(string); ok && strings.HasPrefix(s, "exercise ") && strings.HasSuffix(s, stubSuffix) {
		return s
	}
	if err, ok := r.(error); ok {
		msg = err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "panic: %s", msg)
	for i, f := range stack {
		if i == maxFrames {
			fmt.Fprintf(&b, "\n\t... %d more calls", len(stack)-maxFrames)
			break
		}
		verb := "called from"
		if i == 0 {
			verb = "in"
		}
		fmt.Fprintf(&b, "\n\t%s %s (%s:%d)", verb, shortFunc(f.Function), shortFile(f.File), f.Line)
	}
	return b.String()
}

// shortFunc drops the import path but keeps the directory the symbol table names the package
// by: "github.com/…/workspace/04_rope.(*Table).RotateHead" becomes "04_rope.(*Table).RotateHead".
func shortFunc(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

// shortFile keeps the file's directory and name: "04_rope/rope.go".
func shortFile(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}
