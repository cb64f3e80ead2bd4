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
