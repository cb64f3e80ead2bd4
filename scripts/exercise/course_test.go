package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run the tool on a course of its own: a module in a temporary directory with one
// small chapter (three exercises, each built on the one before) and a copy of package catch, so
// that status, hint, watch and check run real go commands on real workspaces in a few seconds.

const courseDoc = `// Package sq is a chapter made for the exercise tool's tests.
//
// # Exercises
//
//  1. [Square] (sq.go; easy, 5 min): x times x.
//  2. [Cube] (sq.go; easy, 5 min): Square(x) times x.
//  3. [Pow4] (sq.go; easy, 5 min): the square of the square.
//
// # Check your understanding
//
// Answers.
package sq
`

const courseSrc = `package sq

import "math"

// Root returns the square root of x: not an exercise, but an import the tool must keep.
func Root(x float64) float64 { return math.Sqrt(x) }

// Square returns x*x.
func Square(x int) int {
	// exercise: sq.Square — x times x
	// tests: TestSquare
	// difficulty: easy, 5 min
	return x * x
	// hint: a number times itself
	// hint: x² = x·x
	// hint: one line:
	//	return x ... x
	// mistake: doubled
	// says: that is 2x
	//	- return x * x
	//	+ return 2 * x
	// mistake: one too many
	// says: that is x*x+1
	//	- return x * x
	//	+ return x*x + 1
	// end exercise
}

// Cube returns x*x*x, from Square.
func Cube(x int) int {
	// exercise: sq.Cube — Square(x) times x
	// tests: TestCube
	// difficulty: easy, 5 min
	return Square(x) * x
	// hint: use Square
	// hint: x³ = x²·x
	// hint: return Square(x) ... x
	// mistake: squared again
	// says: that is x⁴
	//	- return Square(x) * x
	//	+ return Square(x) * Square(x)
	// mistake: x added
	// says: that is x²+x
	//	- return Square(x) * x
	//	+ return Square(x) + x
	// end exercise
}

// Pow4 returns x⁴, the square of the square.
func Pow4(x int) int {
	// exercise: sq.Pow4 — the square of the square
	// tests: TestPow4
	// difficulty: easy, 5 min
	return Square(Square(x))
	// hint: use Square twice
	// hint: x⁴ = (x²)²
	// hint: return Square(...)
	// mistake: the cube
	// says: that is x³
	//	- return Square(Square(x))
	//	+ return Square(x) * x
	// mistake: not squared twice
	// says: that is x²
	//	- return Square(Square(x))
	//	+ return Square(x)
	// end exercise
}
`

const courseTest = `package sq

import "testing"

func TestSquare(t *testing.T) {
	t.Parallel()
	for _, x := range []int{2, 3} {
		switch got := Square(x); got {
		case x * x:
		case 2 * x:
			t.Fatalf("Square(%d) = %d: that is 2x; multiply x by itself", x, got)
		case x*x + 1:
			t.Fatalf("Square(%d) = %d: that is x*x+1", x, got)
		default:
			t.Fatalf("Square(%d) = %d, want %d", x, got, x*x)
		}
	}
}

func TestCube(t *testing.T) {
	t.Parallel()
	for _, x := range []int{2, 3} {
		switch got := Cube(x); got {
		case x * x * x:
		case x * x * x * x:
			t.Fatalf("Cube(%d) = %d: that is x⁴", x, got)
		case x*x + x:
			t.Fatalf("Cube(%d) = %d: that is x²+x", x, got)
		default:
			t.Fatalf("Cube(%d) = %d, want %d", x, got, x*x*x)
		}
	}
}

func TestPow4(t *testing.T) {
	for _, x := range []int{2, 3} {
		switch got := Pow4(x); got {
		case x * x * x * x:
		case x * x * x:
			t.Fatalf("Pow4(%d) = %d: that is x³", x, got)
		case x * x:
			t.Fatalf("Pow4(%d) = %d: that is x²", x, got)
		default:
			t.Fatalf("Pow4(%d) = %d, want %d", x, got, x*x*x*x)
		}
	}
}
`

// newCourse writes the small course into a temporary directory and returns its module and
// chapters.
func newCourse(t *testing.T) (module, []chapter) {
	t.Helper()
	real, err := findModule()
	if err != nil {
		t.Fatal(err)
	}
	catchSrc, err := os.ReadFile(filepath.Join(real.Root, catchPath, "catch.go"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                    "module example.com/course\n\ngo 1.26.0\n",
		catchPath + "/catch.go":     string(catchSrc),
		"chapters/01_sq/doc.go":     courseDoc,
		"chapters/01_sq/sq.go":      courseSrc,
		"chapters/01_sq/sq_test.go": courseTest,
	}
	for name, src := range files {
		writeFile(t, filepath.Join(root, name), src)
	}
	mod := module{Root: root, Path: "example.com/course"}
	chs, err := listChapters(root)
	if err != nil {
		t.Fatal(err)
	}
	return mod, chs
}

func writeFile(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startChapter writes the course's workspace of chapter 01 and returns its directory.
func startChapter(t *testing.T, mod module, chs []chapter) string {
	t.Helper()
	var out bytes.Buffer
	if err := makeWorkspace(&out, mod, chs[0], false); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(mod.Root, "workspace", "01_sq")
	// The lines it prints are the workspace's, where the stubs above an exercise have shortened the file.
	if want := fmt.Sprintf("sq.Pow4  (workspace/01_sq/sq.go:%d; easy, 5 min)", lineOf(t, dir, "// exercise: sq.Pow4")); !strings.Contains(out.String(), "Wrote workspace/01_sq/ with 3 exercises") ||
		!strings.Contains(out.String(), want) {
		t.Errorf("makeWorkspace printed:\n%s\nwant a line with %q", out.String(), want)
	}
	return dir
}

// lineOf returns the line of the workspace file sq.go that starts with prefix (after indentation).
func lineOf(t *testing.T, dir, prefix string) int {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "sq.go"))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line %q in the workspace", prefix)
	return 0
}

// solve writes into the workspace file sq.go the body of each exercise named in bodies.
func solve(t *testing.T, dir string, bodies map[string]string) {
	t.Helper()
	path := filepath.Join(dir, "sq.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for name, body := range bodies {
		stub := "panic(" + quote(stubMessage(name)) + ")"
		if !strings.Contains(s, stub) {
			t.Fatalf("no stub of %s in the workspace", name)
		}
		s = strings.Replace(s, stub, body, 1)
	}
	writeFile(t, path, s)
}

// statusOf runs status on the course and returns what it printed.
func statusOf(t *testing.T, mod module, chs []chapter) string {
	t.Helper()
	var out bytes.Buffer
	if err := status(&out, mod, chs); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// stateLine returns the line of status's table for an exercise.
func stateLine(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, " "+name+" ") {
			return l
		}
	}
	return ""
}

func TestStatusOnACourse(t *testing.T) {
	t.Parallel()
	mod, chs := newCourse(t)
	out := statusOf(t, mod, chs)
	if !strings.Contains(out, "not started: go run ./scripts/exercise 01") {
		t.Errorf("status before the chapter is started:\n%s", out)
	}
	dir := startChapter(t, mod, chs)
	out = statusOf(t, mod, chs)
	for _, name := range []string{"sq.Square", "sq.Cube", "sq.Pow4"} {
		if l := stateLine(out, name); !strings.Contains(l, stateStub) {
			t.Errorf("fresh workspace: %s's line is %q, want %q", name, l, stateStub)
		}
	}
	if !strings.Contains(out, "Next: sq.Square") {
		t.Errorf("fresh workspace, status:\n%s\nwant Next: sq.Square", out)
	}

	// A wrong Square fails the tests of Cube and Pow4, which are right: status blames Square
	// alone, never the other right one (issue 32's cascades).
	solve(t, dir, map[string]string{"sq.Square": "return 2 * x", "sq.Cube": "return Square(x) * x", "sq.Pow4": "return Square(Square(x))"})
	out = statusOf(t, mod, chs)
	if l := stateLine(out, "sq.Pow4"); !strings.Contains(l, "fix sq.Square first") || strings.Contains(l, "sq.Cube") {
		t.Errorf("Square wrong, Cube and Pow4 right: Pow4's line is\n%s\nwant it to blame sq.Square alone", l)
	}
	if l := stateLine(out, "sq.Cube"); !strings.Contains(l, "fix sq.Square first") {
		t.Errorf("Square wrong: Cube's line is\n%s\nwant it to blame sq.Square", l)
	}
	if !strings.Contains(out, "Next: sq.Square") || !strings.Contains(out, "0 of 3 exercises done") {
		t.Errorf("Square wrong, status:\n%s\nwant Next: sq.Square and 0 done", out)
	}
}

// TestStatusCountsOnlyTestsThatRan: an exercise is done only when every test its fence names ran
// and passed. A skipped test, or one that is not in the workspace any more, proves nothing.
func TestStatusCountsOnlyTestsThatRan(t *testing.T) {
	t.Parallel()
	mod, chs := newCourse(t)
	dir := startChapter(t, mod, chs)
	solve(t, dir, map[string]string{"sq.Square": "return x * x", "sq.Cube": "return 0", "sq.Pow4": "return 0"})
	testFile := filepath.Join(dir, "sq_test.go")
	src, err := os.ReadFile(testFile)
	if err != nil {
		t.Fatal(err)
	}

	// Cube's test skipped, Pow4's test removed.
	s := strings.Replace(string(src), "func TestCube(t *testing.T) {", "func TestCube(t *testing.T) {\n\tt.Skip(\"later\")", 1)
	s = strings.Replace(s, "func TestPow4(t *testing.T) {", "func notATest(t *testing.T) {", 1)
	writeFile(t, testFile, s)
	out := statusOf(t, mod, chs)
	if l := stateLine(out, "sq.Square"); !strings.Contains(l, stateDone) {
		t.Errorf("Square right: its line is %q, want done", l)
	}
	if l := stateLine(out, "sq.Cube"); !strings.Contains(l, "TestCube skipped") || strings.Contains(l, " "+stateDone) {
		t.Errorf("TestCube skipped: Cube's line is %q, want not done, saying TestCube was skipped", l)
	}
	if l := stateLine(out, "sq.Pow4"); !strings.Contains(l, "TestPow4 did not run") || strings.Contains(l, "passes with") {
		t.Errorf("TestPow4 gone: Pow4's line is %q, want not done, saying TestPow4 did not run (and blaming no one else)", l)
	}
	if !strings.Contains(out, "1 of 3 exercises done") {
		t.Errorf("status:\n%s\nwant 1 of 3 done", out)
	}
}

// TestStatusRefusesMovedFences: a workspace whose fences were renamed, reordered or removed is
// refused with what differs, never judged by the wrong code.
func TestStatusRefusesMovedFences(t *testing.T) {
	t.Parallel()
	mod, chs := newCourse(t)
	dir := startChapter(t, mod, chs)
	path := filepath.Join(dir, "sq.go")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cube := string(orig)[strings.Index(string(orig), "// Cube returns"):strings.Index(string(orig), "// Pow4 returns")]
	pow4 := string(orig)[strings.Index(string(orig), "// Pow4 returns"):]
	for _, c := range []struct {
		name, src, want string
	}{
		{"renamed", strings.Replace(string(orig), "// exercise: sq.Cube", "// exercise: sq.Cubed", 1),
			"exercise 2 is named sq.Cubed, the chapter's sq.Cube"},
		{"reordered", strings.Replace(string(orig), cube+pow4, pow4+"\n"+cube, 1),
			"its exercises are in the order sq.Square, sq.Pow4, sq.Cube, the chapter's sq.Square, sq.Cube, sq.Pow4"},
		{"removed", strings.Replace(string(orig), pow4, "func Pow4(x int) int { return x * x * x * x }\n", 1),
			"has 2 exercise fence(s) (sq.Square, sq.Cube), the chapter's file 3"},
		{"unclosed", strings.Replace(string(orig), pow4, strings.Replace(pow4, "// end exercise", "", 1), 1),
			"exercise sq.Pow4 is never closed"},
	} {
		writeFile(t, path, c.src)
		out := statusOf(t, mod, chs)
		if !strings.Contains(out, "refused") || !strings.Contains(out, c.want) || stateLine(out, "sq.Square") != "" {
			t.Errorf("%s fence: status said\n%s\nwant the chapter refused, saying %q", c.name, out, c.want)
		}
	}

	// A file that holds exercises is gone; another holds them.
	writeFile(t, path, string(orig))
	if err := os.Rename(path, filepath.Join(dir, "other.go")); err != nil {
		t.Fatal(err)
	}
	out := statusOf(t, mod, chs)
	if !strings.Contains(out, "workspace/01_sq/other.go holds exercise sq.Square, which chapters/01_sq has in another file") {
		t.Errorf("fences moved to another file: status said\n%s", out)
	}
	if err := os.Remove(filepath.Join(dir, "other.go")); err != nil {
		t.Fatal(err)
	}
	out = statusOf(t, mod, chs)
	if !strings.Contains(out, "workspace/01_sq/sq.go is missing: it holds exercise(s) sq.Square, sq.Cube, sq.Pow4") {
		t.Errorf("sq.go removed: status said\n%s", out)
	}
}

func TestHintsAreGraded(t *testing.T) {
	t.Parallel()
	mod, chs := newCourse(t)
	var out bytes.Buffer
	if err := hint(&out, mod, chs, hintOptions{Chapter: "01"}); err == nil || !strings.Contains(err.Error(), "start the chapter") {
		t.Errorf("hint before the chapter is started: %v", err)
	}
	dir := startChapter(t, mod, chs)
	solve(t, dir, map[string]string{"sq.Square": "return x * x"})
	want := []string{
		"Hint 1 of 3, a nudge:\n  use Square\n",
		"Hint 2 of 3, the formula:\n  x³ = x²·x\n",
		"Hint 3 of 3, the shape of the code:\n  return Square(x) ... x\n\nThat was the last hint.",
	}
	for i, w := range want {
		out.Reset()
		// The first unfinished exercise is Cube: Square is done.
		if err := hint(&out, mod, chs, hintOptions{Chapter: "1"}); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.String(), fmt.Sprintf("sq.Cube (workspace/01_sq/sq.go:%d; easy, 5 min): Square(x) times x\n", lineOf(t, dir, "// exercise: sq.Cube"))) ||
			!strings.Contains(out.String(), w) {
			t.Errorf("hint call %d printed\n%s\nwant it to contain %q", i+1, out.String(), w)
		}
		if i > 0 && strings.Contains(out.String(), want[i-1][:len("Hint 1 of 3")]) == false {
			t.Errorf("hint call %d does not repeat the hints before it:\n%s", i+1, out.String())
		}
	}
	out.Reset()
	if err := hint(&out, mod, chs, hintOptions{Chapter: "01_sq", Name: "Pow4", Solution: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "    return Square(Square(x))\n") || strings.Contains(out.String(), "mistake") {
		t.Errorf("hint -solution printed\n%s\nwant the solution's lines and nothing of its mistakes", out.String())
	}
	if err := hint(&out, mod, chs, hintOptions{Chapter: "01", Name: "Nope"}); err == nil || !strings.Contains(err.Error(), "it has: Square, Cube, Pow4") {
		t.Errorf("hint for an exercise that does not exist: %v", err)
	}
	st := statusOf(t, mod, chs)
	for name, want := range map[string]string{"sq.Square": " - ", "sq.Cube": "3 of 3", "sq.Pow4": "0 of 3, solution"} {
		if l := stateLine(st, name); !strings.Contains(l, want) {
			t.Errorf("status's line for %s is %q, want the hints it used, %q", name, l, want)
		}
	}
	// The count lives in the workspace: a fresh start counts from zero.
	if _, err := os.Stat(filepath.Join(dir, hintsFile)); err != nil {
		t.Errorf("no hint log in the workspace: %v", err)
	}
}

// syncBuffer is a bytes.Buffer that watch's goroutine and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// lastScreen returns what watch printed after its last clear of the screen.
func (s *syncBuffer) lastScreen() string {
	out := s.String()
	if i := strings.LastIndex(out, clearScreen); i >= 0 {
		return out[i+len(clearScreen):]
	}
	return out
}

// waitFor waits until cond holds for what watch printed, or fails after a deadline.
func waitFor(t *testing.T, out *syncBuffer, what string, cond func(screen string) bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if cond(out.lastScreen()) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("watch never showed %s; its last screen:\n%s", what, out.lastScreen())
}

// TestWatchRerunsOnSave runs watch on the course's workspace, saves files as a learner would, and
// sees each save re-run the tests: the stub, then the failure of a wrong Square, then Square done
// and Cube next.
func TestWatchRerunsOnSave(t *testing.T) {
	t.Parallel()
	mod, chs := newCourse(t)
	dir := startChapter(t, mod, chs)
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- watch(ctx, out, mod, chs, "01") }()

	waitFor(t, out, "Square's stub", func(s string) bool {
		return strings.Contains(s, "> sq.Square") && strings.Contains(s, "Still the stub")
	})
	solve(t, dir, map[string]string{"sq.Square": "return 2 * x"})
	waitFor(t, out, "Square's failure", func(s string) bool {
		return strings.Contains(s, "that is 2x") && strings.Contains(s, "Stuck? go run ./scripts/exercise hint 01 (0 of 3 hints used)")
	})
	src, err := os.ReadFile(filepath.Join(dir, "sq.go"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sq.go"), strings.Replace(string(src), "return 2 * x", "return x * x", 1))
	waitFor(t, out, "Square done and Cube next", func(s string) bool {
		return strings.Contains(s, "✓ sq.Square") && strings.Contains(s, "> sq.Cube") && strings.Contains(s, "1 of 3 exercises done")
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("watch ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not end when its context did (Ctrl-C)")
	}
	if !strings.Contains(out.String(), "Left watch mode.") {
		t.Errorf("watch's last words: %q", out.String()[max(0, len(out.String())-200):])
	}
}

// TestWatchLoop: a save of a Go file runs the tests again, once per burst of writes; other files
// (an editor's swap file, the hint log) do not.
func TestWatchLoop(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runs := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- watchLoop(ctx, dir, func(context.Context) { runs <- struct{}{} }) }()
	expect := func(what string, n int) {
		t.Helper()
		for i := range n {
			select {
			case <-runs:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: run %d of %d never came", what, i+1, n)
			}
		}
		select {
		case <-runs:
			t.Fatalf("%s: one run too many", what)
		case <-time.After(4 * settle):
		}
	}
	expect("start", 1)
	writeFile(t, filepath.Join(dir, ".exercise-hints.json"), "{}")
	writeFile(t, filepath.Join(dir, ".a.go.swp"), "x")
	expect("a file that is not Go source", 0)
	for range 3 { // an editor's burst of writes
		writeFile(t, filepath.Join(dir, "a.go"), "package a")
	}
	expect("a save", 1)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("watchLoop ended with %v", err)
	}
}

// courseHeldOut are held-out mistakes for the course's exercises, as heldout.go writes them for
// the chapters.
var courseHeldOut = map[string][]mistake{
	"sq.Square": {slip("x plus x", "that is 2x", lines("return x * x"), "return x + x"), slip("off by one", "", lines("return x * x"), "return x * (x + 1)")},
	"sq.Cube":   {slip("the wrong operand", "x⁴", lines("return Square(x) * x"), "return Square(x) * Square(x)"), slip("off by one", "", lines("return Square(x) * x"), "return Square(x) * (x - 1)")},
	"sq.Pow4":   {slip("a constant", "", lines("return Square(Square(x))"), "return 16"), slip("the cube", "x³", lines("return Square(Square(x))"), "return Square(x) * x")},
}

func TestCheckOnACourse(t *testing.T) {
	t.Parallel()
	mod, chs := newCourse(t)
	opts := checkOptions{Timeout: 2 * time.Minute, Jobs: 2, Verbose: true, HeldOut: courseHeldOut}
	var out bytes.Buffer
	if err := check(&out, mod, chs, opts); err != nil {
		t.Fatalf("check of a sound course: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"solution: every test passes",
		"3 exercises: 6 of 6 stubs caught; 6 listed mistakes, 6 caught, 6 named by the first failure; 6 held-out mistakes, 6 caught, 3 named",
		"listed 2 of 2, held-out 1 of 2",
		"says \"that is 2x\": named",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check printed\n%s\nwant a line with %q", out.String(), want)
		}
	}

	// Now a course with faults: a listed mistake its test does not name, an exercise with one
	// hint, one with one mistake, a held-out mistake no test can catch (it computes the same), one
	// that does not apply. Each is a problem of its own, and the check fails.
	src := strings.Replace(courseSrc, "// says: that is x*x+1", "// says: x*x plus one", 1)
	src = strings.Replace(src, "\t// hint: use Square twice\n\t// hint: x⁴ = (x²)²\n", "", 1)
	src = strings.Replace(src, "\t// mistake: x added\n\t// says: that is x²+x\n\t//\t- return Square(x) * x\n\t//\t+ return Square(x) + x\n", "", 1)
	writeFile(t, filepath.Join(mod.Root, "chapters/01_sq/sq.go"), src)
	held := map[string][]mistake{
		"sq.Square": courseHeldOut["sq.Square"],
		"sq.Cube":   {courseHeldOut["sq.Cube"][0], slip("no such line", "", lines("return x"), "return 0")},
		"sq.Pow4":   {courseHeldOut["sq.Pow4"][0], slip("the same", "", lines("return Square(Square(x))"), "return Square(x) * Square(x)")},
	}
	out.Reset()
	opts.HeldOut = held
	err := check(&out, mod, chs, opts)
	t.Logf("check of a faulty course:\n%s", out.String())
	if err == nil {
		t.Fatalf("check of a faulty course passed:\n%s", out.String())
	}
	for _, want := range []string{
		`mistake 2: the first failure (TestSquare) does not say "x*x plus one"`,
		"=== 01_sq: sq.Pow4: 1 hints, want at least 3",
		"=== 01_sq: sq.Cube: 1 mistakes listed, want at least 2",
		`held-out 2 (no such line) does not apply: "return x" is not a solution line`,
		`held-out 2: NOT CAUGHT: every test of the fence passes`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check of a faulty course printed\n%s\nwant a line with %q", out.String(), want)
		}
	}
}
