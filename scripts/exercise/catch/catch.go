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
// that led to it, in a few lines. When one of those calls is inside an exercise's fence (the
// `// exercise:` and `// end exercise` lines the workspace keeps), the report begins with the
// exercise, its task and the doc comment of the function that holds it: the layout or shape the
// exercise is given and must give back, which is what a panic inside it usually got wrong.
//
//	--- FAIL: TestDequantizeQ8_0 (0.00s)
//	    dequant.go:112: your code for exercise gguf.DequantizeQ8_0 panicked: runtime error: index out of range [34] with length 34
//	        its task: read the float16 scale, then scale each signed byte
//	        its doc: DequantizeQ8_0 decodes one Q8_0 block (34 bytes: float16 d, then 32 int8 q) into 32 values: y[j] = d * q[j]
//	        in 01_gguf.DequantizeQ8_0 (01_gguf/dequant.go:112)
//	        ...
package catch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
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
	if ex, ok := inExercise(stack); ok {
		fmt.Fprintf(&b, "your code for exercise %s panicked: %s", ex.Name, msg)
		if ex.Task != "" {
			fmt.Fprintf(&b, "\n\tits task: %s", ex.Task)
		}
		if ex.Doc != "" {
			fmt.Fprintf(&b, "\n\tits doc: %s", ex.Doc)
		}
	} else {
		fmt.Fprintf(&b, "panic: %s", msg)
	}
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

// exerciseMarker and endMarker are the first and last lines of an exercise's fence (see
// scripts/exercise).
const (
	exerciseMarker = "// exercise:"
	endMarker      = "// end exercise"
)

// maxDoc is how many characters of a function's doc comment a panic's report quotes.
const maxDoc = 300

// An exercise is the fence a panicking line is in.
type exercise struct {
	Name string // "gguf.DequantizeQ8_0"
	Task string // what its `// exercise:` line asks for
	Doc  string // the first paragraph of the doc comment of the function that holds it
}

// inExercise returns the exercise whose fence holds the innermost call of stack that is inside a
// fence of the package under test, reading the source files the calls name. go test runs a test
// binary in its package's directory, so that is where the learner's files are; the fences of other
// chapters (whose solutions the package imports) are not the learner's code.
func inExercise(stack []frame) (exercise, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return exercise{}, false
	}
	for _, f := range stack {
		if filepath.Dir(f.File) != dir {
			continue
		}
		src, err := os.ReadFile(f.File)
		if err != nil {
			continue
		}
		if ex, ok := fenceAt(f.File, src, f.Line); ok {
			return ex, true
		}
	}
	return exercise{}, false
}

// fenceAt returns the exercise whose fence holds line (1-based) of the Go source src.
func fenceAt(file string, src []byte, line int) (exercise, bool) {
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return exercise{}, false
	}
	begin := 0
	for i := line - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.TrimSpace(lines[i]), exerciseMarker) {
			begin = i + 1
			break
		}
	}
	if begin == 0 {
		return exercise{}, false
	}
	// The fence must close before another opens: a line after a fence's end is not in it.
	closed := false
	for i := line - 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == endMarker {
			closed = true
			break
		}
		if strings.HasPrefix(t, exerciseMarker) && i != begin-1 {
			break
		}
	}
	if !closed {
		return exercise{}, false
	}
	rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[begin-1]), exerciseMarker))
	name, task, _ := strings.Cut(rest, " ")
	task = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(task), "—–-:"))
	return exercise{Name: name, Task: task, Doc: funcDoc(file, src, begin)}, name != ""
}

// funcDoc returns the first paragraph of the doc comment of the function declared around line,
// with the code block that follows it when it ends with a colon (a formula), on one line.
func funcDoc(file string, src []byte, line int) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return ""
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Doc == nil || fset.Position(fn.Pos()).Line > line || fset.Position(fn.End()).Line < line {
			continue
		}
		paras := strings.Split(strings.TrimSpace(fn.Doc.Text()), "\n\n")
		doc := paras[0]
		if strings.HasSuffix(doc, ":") && len(paras) > 1 {
			doc += " " + paras[1]
		}
		doc = strings.Join(strings.Fields(doc), " ")
		if r := []rune(doc); len(r) > maxDoc {
			doc = string(r[:maxDoc-1]) + "…"
		}
		return doc
	}
	return ""
}
