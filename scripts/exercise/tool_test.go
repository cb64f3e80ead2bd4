package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunCommands runs the command line on the course itself, for the commands that write
// nothing: list, help, and the argument errors of every command.
func TestRunCommands(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"list", "3", "09_sampling"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rmsnorm.normRow", "sampling.MinP", "chapters/09_sampling/warp.go:", "exercises, about"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("list 3 09_sampling printed\n%s\nwant %q", out.String(), want)
		}
	}
	if strings.Contains(out.String(), "gguf.") {
		t.Errorf("list 3 09_sampling listed chapter 01's exercises:\n%s", out.String())
	}
	out.Reset()
	if err := run([]string{"help"}, &out); err != nil || !strings.Contains(out.String(), "exercise hint NN [NAME] [-solution]") {
		t.Errorf("help: %v\n%s", err, out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"status", "04"}, "status takes no arguments"},
		{[]string{"hint"}, "hint wants a chapter and at most one exercise"},
		{[]string{"hint", "03", "a", "b"}, "hint wants a chapter and at most one exercise"},
		{[]string{"hint", "-nope", "03"}, "flag provided but not defined: -nope"},
		{[]string{"hint", "-solution", "99"}, `no chapter "99"`},
		{[]string{"watch"}, "watch wants one chapter"},
		{[]string{"watch", "99"}, `no chapter "99"`},
		{[]string{"check", "-j", "x"}, `invalid value "x" for flag -j`},
		{[]string{"check", "99"}, `no chapter "99"`},
		{[]string{"list", "99"}, `no chapter "99"`},
		{[]string{"04", "05"}, "want exactly one chapter"},
		{[]string{"04", "-x"}, "unknown flag -x"},
		{[]string{"99"}, `no chapter "99"`},
	} {
		err := run(c.args, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run(%q): error %v, want one containing %q", c.args, err, c.want)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	var opts hintOptions
	rest, err := func() ([]string, error) {
		fl := newHintFlags(&opts)
		return parseInterspersed(fl, []string{"03", "-solution", "normRow"})
	}()
	if err != nil || !opts.Solution || strings.Join(rest, " ") != "03 normRow" {
		t.Errorf("parseInterspersed: rest %q, solution %v, error %v; want [03 normRow], true, nil", rest, opts.Solution, err)
	}
}

// TestAnnotateCompileErrors: a compiler error inside the if-chain of the check's copy is tagged
// with the exercise and the variant whose branch it is in; an error elsewhere is left as it is.
func TestAnnotateCompileErrors(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\nfunc F() int {\n\t// exercise: p.F — one\n\t// tests: TestF\n\t// difficulty: easy, 5 min\n" +
		"\tif exerciseVariant_p_F == \"mistake 1\" {\n\t\tx := 1\n\t} else {\n\t\treturn 1\n\t}\n\t// end exercise\n\ty := 2\n}\n"
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := annotateCompileErrors("p.go:8:3: declared and not used: x\np.go:13:2: declared and not used: y\nother line", root)
	lines := strings.Split(out, "\n")
	if lines[0] != "p.go:8:3: declared and not used: x (in p.F mistake 1)" || lines[1] != "p.go:13:2: declared and not used: y" || lines[2] != "other line" {
		t.Errorf("annotateCompileErrors:\n%s", out)
	}
}

func TestFailureOf(t *testing.T) {
	out := "--- FAIL: TestA (0.00s)\n    a.go:1: bad\n--- FAIL: TestB (0.00s)\n    b.go:2: worse\nFAIL\n"
	if got := failureOf(out, "TestB"); got != "--- FAIL: TestB (0.00s)\n    b.go:2: worse\n" {
		t.Errorf("failureOf(TestB) = %q", got)
	}
	if got := lastLines("1\n2\n3\n", 2); got != "... (1 lines cut)\n2\n3" {
		t.Errorf("lastLines = %q", got)
	}
	if clip("abcdef", 4) != "abc…" || clip("ab", 4) != "ab" {
		t.Errorf("clip: %q %q", clip("abcdef", 4), clip("ab", 4))
	}
	if errOrEmpty(nil) != "" || errOrEmpty(errors.New("x")) != "x" {
		t.Error("errOrEmpty")
	}
}

// TestJudge: what the check says of a variant's run, for each way a run can go.
func TestJudge(t *testing.T) {
	fe := fence{Name: "p.F", Tests: []string{"TestA", "TestB"}}
	mistake := variant{Label: "mistake 1", Says: "that is 2x"}
	for _, c := range []struct {
		what string
		v    variant
		r    testRun
		err  error
		want string
	}{
		{"not caught", mistake, testRun{Passed: true}, nil, "NOT CAUGHT"},
		{"no build", mistake, testRun{BuildErr: true}, nil, "does not compile"},
		{"timeout", mistake, testRun{TimedOut: true}, nil, "time out"},
		{"escaped", mistake, testRun{Escaped: true}, nil, "a panic escaped"},
		{"run error", mistake, testRun{}, errors.New("exec: no binary"), "exec: no binary"},
		{"stub passes a test", variant{Label: "panic"}, testRun{Failed: []string{"TestA"}}, nil, "TestB pass(es) with the stub"},
		{"no says", variant{Label: "mistake 2"}, testRun{Failed: []string{"TestA"}}, nil, "no \"// says:\" line"},
		{"not named", mistake, testRun{Failed: []string{"TestA"}, First: map[string][]string{"TestA": {"a.go:1: want 4"}}}, nil, `does not say "that is 2x"`},
		{"too long", mistake, testRun{Failed: []string{"TestA"}, First: map[string][]string{"TestA": {"that is 2x"}}, Lines: map[string]int{"TestA": 40}}, nil, "prints 40 lines"},
		{"repeats", mistake, testRun{Failed: []string{"TestA"}, First: map[string][]string{"TestA": {"that is 2x"}}, Repeats: map[string]int{"TestA": 9}}, nil, "one message 9 times"},
		{"held-out not named is fine", variant{Label: "held-out 1", Says: "n+1"}, testRun{Failed: []string{"TestA"}}, nil, ""},
		{"named", mistake, testRun{Failed: []string{"TestA"}, First: map[string][]string{"TestA": {"a.go:1: 6: That is", "2x."}}}, nil, ""},
	} {
		got := judge(c.v, fe, c.r, c.err)
		if c.want == "" && got.Problem != "" || !strings.Contains(got.Problem, c.want) {
			t.Errorf("%s: problem %q, want one containing %q", c.what, got.Problem, c.want)
		}
	}
}

// TestWatchFailure: what watch shows when the tests did not fail in the ordinary way.
func TestWatchFailure(t *testing.T) {
	fe := fence{Name: "p.F", Tests: []string{"TestA", "TestB"}}
	r := parseTestJSON("# example.com/p\n./p.go:3:1: syntax error\nFAIL\texample.com/p [build failed]\n")
	if r.ok(fe) || !strings.Contains(r.failure(fe), "It does not compile:\n# example.com/p\n./p.go:3:1: syntax error") {
		t.Errorf("a build failure shown as %q", r.failure(fe))
	}
	r = parseTestJSON(`{"Action":"skip","Test":"TestA"}` + "\n")
	if r.ok(fe) || r.failure(fe) != "TestA was skipped; TestB did not run: a test that does not run proves nothing, so the exercise is not done.\n" {
		t.Errorf("a skipped and a missing test shown as %q", r.failure(fe))
	}
	r = exerciseRun{Err: errors.New("go: not found")}
	if r.ok(fe) || r.failure(fe) != "go test could not run: go: not found\n" {
		t.Errorf("go missing shown as %q", r.failure(fe))
	}
	lines := make([]string, 40)
	if got := clipLines(lines, 30); !strings.HasSuffix(got, "... (10 more lines)\n") {
		t.Errorf("clipLines: %q", got)
	}
	if _, build := parseResults("# p\n./p.go:1:1: bad\nFAIL\tp [build failed]\n"); build != "./p.go:1:1: bad" {
		t.Errorf("parseResults of a build failure: %q", build)
	}
}

// TestCheckTimeout: a test binary that outlives the time limit is killed and reported as timed out.
func TestCheckTimeout(t *testing.T) {
	r := &runner{timeout: time.Millisecond, sem: make(chan struct{}, 1)}
	r.timeout = -time.Minute + 50*time.Millisecond // run allows timeout + 1 minute
	out, ok, err := r.run(t.TempDir(), nil, "sleep", "5")
	if ok || err != nil || !strings.Contains(out, "panic: test timed out after") {
		t.Errorf("a sleep past the limit: ok %v, err %v, output %q", ok, err, out)
	}
	if parsed := parseTestOutput(out, ok); !parsed.TimedOut {
		t.Errorf("the killed run is not read as a timeout: %+v", parsed)
	}
	if _, _, err := r.run(t.TempDir(), nil, "/nonexistent/binary"); err == nil {
		t.Error("a binary that does not exist: no error")
	}
}
