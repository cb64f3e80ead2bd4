package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestStubRemovesUnusedImports(t *testing.T) {
	src := `package p

import (
	"fmt"
	"math"
	"strings"
)

func A(x float64) float64 {
	// exercise: p.A — square root
	// tests: TestA
	// difficulty: easy, 5 min
	return math.Sqrt(x)
	// mistake: square
	//	- return math.Sqrt(x)
	//	+ return x * x
	// end exercise
}

func B(s string) string {
	// exercise: p.B — upper case
	// tests: TestB
	// difficulty: easy, 5 min
	u := strings.ToUpper(s)
	return u
	// end exercise
}

func C() { fmt.Println() }
`
	fences, err := findFences("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	stubAll := func(i int) ([]string, bool) {
		return []string{fences[i].Indent + "panic(" + quote(stubMessage(fences[i].Name)) + ")"}, true
	}
	out, err := removeUnusedImports("p.go", replaceBodies([]byte(src), fences, stubAll), func(p string) string { return p })
	if err != nil {
		t.Fatal(err)
	}
	want := `package p

import (
	"fmt"
	// "math" // the solution used it: uncomment it when your code does
	// "strings" // the solution used it: uncomment it when your code does
)

func A(x float64) float64 {
	// exercise: p.A — square root
	// tests: TestA
	// difficulty: easy, 5 min
	panic("exercise p.A: not implemented")
	// end exercise
}

func B(s string) string {
	// exercise: p.B — upper case
	// tests: TestB
	// difficulty: easy, 5 min
	panic("exercise p.B: not implemented")
	// end exercise
}

func C() { fmt.Println() }
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(string(out), "x * x") {
		t.Error("the workspace shows a listed mistake")
	}
}

func TestRemoveUnusedImportsNames(t *testing.T) {
	// The package name of a chapter differs from its directory; a named import uses its own name;
	// blank imports stay; a single-line import declaration goes as a whole.
	src := `package p

import "os"

import (
	_ "embed"
	rn "example.com/m/chapters/03_rmsnorm"
	"example.com/m/chapters/04_rope"
)

func F() { rope.Use(); _ = rn.X }
`
	names := map[string]string{"example.com/m/chapters/04_rope": "rope", "os": "os"}
	out, err := removeUnusedImports("p.go", []byte(src), func(p string) string { return names[p] })
	if err != nil {
		t.Fatal(err)
	}
	want := `package p

// import "os" // the solution used it: uncomment it when your code does

import (
	_ "embed"
	rn "example.com/m/chapters/03_rmsnorm"
	"example.com/m/chapters/04_rope"
)

func F() { rope.Use(); _ = rn.X }
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestRewriteImports(t *testing.T) {
	src := `package rope_test

import (
	"fmt"

	rope "example.com/m/chapters/04_rope"
	"example.com/m/chapters/04_rope/sub"
	"example.com/m/chapters/04_ropes"
)
`
	out, err := rewriteImports("x_test.go", []byte(src), "example.com/m/chapters/04_rope", "example.com/m/workspace/04_rope")
	if err != nil {
		t.Fatal(err)
	}
	want := `package rope_test

import (
	"fmt"

	rope "example.com/m/workspace/04_rope"
	"example.com/m/workspace/04_rope/sub"
	"example.com/m/chapters/04_ropes"
)
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestInsertCatch(t *testing.T) {
	src := `package p

import (
	"testing"
)

func TestA(t *testing.T) {
	t.Run("sub", func(t *testing.T) { A() })
	f := func(x int) int { return x }
	_ = f
}

func ExampleA() {
	A()
	// Output:
}

func FuzzA(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {})
}

func helper(t *testing.T) {}
`
	out, err := insertCatch("p_test.go", []byte(src), "example.com/m/scripts/exercise/catch")
	if err != nil {
		t.Fatal(err)
	}
	want := `package p

import (
	"testing"

	"example.com/m/scripts/exercise/catch" // added by scripts/exercise, with every deferred catch.Panic
)

func TestA(t *testing.T) {
	defer catch.Panic(t)
	t.Run("sub", func(t *testing.T) { defer catch.Panic(t); A() })
	f := func(x int) int { return x }
	_ = f
}

func ExampleA() {
	defer catch.ExamplePanic()
	A()
	// Output:
}

func FuzzA(f *testing.F) {
	defer catch.Panic(f)
	f.Fuzz(func(t *testing.T, b []byte) { defer catch.Panic(t) })
}

func helper(t *testing.T) {}
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	// A file without an import block gets one.
	out, err = insertCatch("q_test.go", []byte("package p\n\nfunc ExampleB() {\n\t// Output:\n}\n"), "c")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "import \"c\"") || !strings.Contains(string(out), "defer catch.ExamplePanic()") {
		t.Errorf("without imports:\n%s", out)
	}
}

func TestParseTestOutput(t *testing.T) {
	out := `--- FAIL: TestA (0.00s)
    a_test.go:10: wrong
    a_test.go:11: still wrong
--- FAIL: TestB (0.00s)
    --- FAIL: TestB/sub (0.00s)
        b_test.go:3: exercise p.B: not implemented
--- FAIL: ExampleC (0.00s)
got:
1
want:
2
--- FAIL: TestE (0.00s)
    --- FAIL: TestE/1 (0.00s)
        e.go:3: exercise p.E: not implemented
    --- FAIL: TestE/2 (0.00s)
        e.go:3: exercise p.E: not implemented
    --- FAIL: TestE/3 (0.00s)
        e.go:3: exercise p.E: not implemented
FAIL
exit status 1
`
	r := parseTestOutput(out, false)
	if !reflect.DeepEqual(r.Failed, []string{"TestA", "TestB", "ExampleC", "TestE"}) {
		t.Errorf("Failed = %q", r.Failed)
	}
	// An example counts its got: lines, not its want: lines (the chapter's text); one stub met in
	// three subtests counts once.
	if want := map[string]int{"TestA": 3, "TestB": 3, "ExampleC": 3, "TestE": 3}; !reflect.DeepEqual(r.Lines, want) {
		t.Errorf("Lines = %v, want %v", r.Lines, want)
	}
	if want := []string{"a_test.go:10: wrong", "a_test.go:11: still wrong"}; !reflect.DeepEqual(r.First["TestA"], want) {
		t.Errorf("First = %q", r.First)
	}
	if r.Escaped || r.TimedOut || r.BuildErr || r.Passed {
		t.Errorf("flags %+v", r)
	}
	// One message printed from two lines of a loop, in subtests: counted without its file:line.
	r = parseTestOutput("--- FAIL: TestD (0.00s)\n    d_test.go:5: bad header\n    --- FAIL: TestD/x (0.00s)\n        d_test.go:9: bad header\n    d_test.go:5: bad header\n    d_test.go:6: other\nFAIL\n", false)
	if r.Repeats["TestD"] != 3 {
		t.Errorf("Repeats = %v, want TestD: 3", r.Repeats)
	}
	r = parseTestOutput("--- FAIL: TestA (0.00s)\npanic: boom [recovered]\n\tpanic: boom\n\ngoroutine 1 [running]:\nFAIL\tp\t0.1s\n", false)
	if !r.Escaped {
		t.Error("an escaped panic was not seen")
	}
	r = parseTestOutput("panic: test timed out after 1m0s\n", false)
	if !r.TimedOut || r.Escaped {
		t.Errorf("a timeout read as %+v", r)
	}
}
