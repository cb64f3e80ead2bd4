package catch

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// recorder stands in for a test: it keeps what Panic reports instead of failing.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.fatal = args[0].(string) }

// reported runs f as a workspace test would, with Panic deferred, and returns what it reported.
func reported(f func()) string {
	r := &recorder{}
	func() {
		defer Panic(r)
		f()
	}()
	return r.fatal
}

//go:noinline
func stub() int { panic("exercise rope.InvFreq: not implemented") }

//go:noinline
func outOfRange(s []int, i int) int { return s[i] }

func TestStubPanicIsOneLine(t *testing.T) {
	got := reported(func() { stub() })
	if got != "exercise rope.InvFreq: not implemented" {
		t.Errorf("a stub's panic reported as %q, want the stub's message alone", got)
	}
}

func TestOtherPanicNamesTheCalls(t *testing.T) {
	got := reported(func() { outOfRange(make([]int, 3), 5) })
	lines := strings.Split(got, "\n")
	if len(lines) < 3 || len(lines) > maxFrames+2 {
		t.Fatalf("reported %d lines, want the panic and 2..%d calls:\n%s", len(lines), maxFrames+1, got)
	}
	if lines[0] != "panic: runtime error: index out of range [5] with length 3" {
		t.Errorf("first line %q, want the runtime error", lines[0])
	}
	if !strings.Contains(lines[1], "in catch.outOfRange (catch/catch_test.go:") {
		t.Errorf("second line %q, want the function that panicked and its file", lines[1])
	}
	if !strings.Contains(lines[2], "called from catch.TestOtherPanicNamesTheCalls.") {
		t.Errorf("third line %q, want its caller", lines[2])
	}
	for _, l := range lines {
		if strings.Contains(l, "runtime.") || strings.Contains(l, "testing.") {
			t.Errorf("the runtime's and testing's frames are not the learner's business: %q", l)
		}
	}
}

func TestErrorPanic(t *testing.T) {
	got := reported(func() { panic(errors.New("mat: dimension mismatch")) })
	if !strings.HasPrefix(got, "panic: mat: dimension mismatch\n") {
		t.Errorf("an error value reported as %q", got)
	}
}

func TestNoPanicNoReport(t *testing.T) {
	if got := reported(func() {}); got != "" {
		t.Errorf("nothing panicked, yet reported %q", got)
	}
}

func TestExamplePanicPrints(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	func() {
		defer ExamplePanic()
		stub()
	}()
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	if string(out) != "exercise rope.InvFreq: not implemented\n" {
		t.Errorf("ExamplePanic printed %q, want the stub's message on its own line", out)
	}
}

// afterFence panics in code that follows a fence, which is not the exercise's (another fence
// follows it in this file).
//
//go:noinline
func afterFence(s []int, i int) int {
	// exercise: catch.afterFence — nothing
	// tests: TestPanicInAnExerciseNamesIt
	// difficulty: easy, 5 min
	_ = 0
	// end exercise
	return s[i]
}

// fencedIndex returns s[i]. Its body is fenced as an exercise's would be in a workspace, so that a
// panic in it is reported as the exercise's.
//
//go:noinline
func fencedIndex(s []int, i int) int {
	// exercise: catch.fencedIndex — return element i of s
	// tests: TestPanicInAnExerciseNamesIt
	// difficulty: easy, 5 min
	return s[i]
	// end exercise
}

func TestPanicInAnExerciseNamesIt(t *testing.T) {
	got := reported(func() { fencedIndex(make([]int, 3), 5) })
	lines := strings.Split(got, "\n")
	want := []string{
		"your code for exercise catch.fencedIndex panicked: runtime error: index out of range [5] with length 3",
		"\tits task: return element i of s",
		"\tits doc: fencedIndex returns s[i]. Its body is fenced as an exercise's would be in a workspace, so that a panic in it is reported as the exercise's.",
	}
	if len(lines) < len(want)+1 {
		t.Fatalf("reported %d lines, want the exercise, its task, its doc and the calls:\n%s", len(lines), got)
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d: %q, want %q", i+1, lines[i], w)
		}
	}
	if !strings.Contains(lines[3], "in catch.fencedIndex (catch/catch_test.go:") {
		t.Errorf("line 4 %q, want the function that panicked and its file", lines[3])
	}

	// A panic after a fence, in the function's own code, is not the exercise's.
	got = reported(func() { afterFence(make([]int, 3), 5) })
	if !strings.HasPrefix(got, "panic: runtime error: index out of range [5] with length 3\n") {
		t.Errorf("a panic after the fence reported as %q, want a plain panic", got)
	}
}

func TestFenceAt(t *testing.T) {
	src := []byte("package p\n\nfunc F() {\n\t// exercise: p.F — do it\n\tx()\n\t// end exercise\n\ty()\n}\n\nfunc G() {\n\t// exercise: p.G — and this\n\tz()\n\t// end exercise\n}\n")
	for _, c := range []struct {
		line int
		want bool
	}{{1, false}, {3, false}, {5, true}, {7, false}, {0, false}, {99, false}, {12, true}} {
		ex, ok := fenceAt("p.go", src, c.line)
		if ok != c.want || (ok && c.line == 5 && (ex.Name != "p.F" || ex.Task != "do it")) || (ok && c.line == 12 && ex.Name != "p.G") {
			t.Errorf("line %d: %+v, %v; want in the fence: %v", c.line, ex, ok, c.want)
		}
	}
	unclosed := []byte("package p\n\nfunc F() {\n\t// exercise: p.F — do it\n\tx()\n}\n")
	if _, ok := fenceAt("p.go", unclosed, 5); ok {
		t.Error("a fence never closed holds nothing")
	}
}
