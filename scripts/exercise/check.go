package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A verdict is the outcome of running a chapter's tests on one version of its code.
type verdict struct {
	Passed   bool     // go test exited 0
	Failed   []string // top-level tests that printed --- FAIL
	Panicked bool     // the output has a panic
	BuildErr bool     // the code did not compile (or vet/setup failed)
	TimedOut bool
	Output   string
}

var failLineRE = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// goTest runs `go test -count=1` on the package directory dir (absolute) and its subpackages.
func goTest(root, dir string, timeout time.Duration) verdict {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return verdict{BuildErr: true, Output: err.Error()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout+time.Minute)
	defer cancel()
	pkg := "./" + filepath.ToSlash(rel) + "/..."
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-timeout", timeout.String(), pkg)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	v := verdict{Output: out.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		v.Passed = true
		return v
	case ctx.Err() != nil || strings.Contains(v.Output, "panic: test timed out after"):
		v.TimedOut = true
		return v
	case !errors.As(err, &exitErr):
		v.BuildErr = true // go itself did not run
		v.Output += "\n" + err.Error()
		return v
	}
	if strings.Contains(v.Output, "[build failed]") || strings.Contains(v.Output, "[setup failed]") ||
		strings.HasPrefix(v.Output, "# ") || strings.Contains(v.Output, "\n# ") {
		v.BuildErr = true
		return v
	}
	seen := map[string]bool{}
	for _, m := range failLineRE.FindAllStringSubmatch(v.Output, -1) {
		name, _, _ := strings.Cut(m[1], "/") // a failing subtest fails its parent too
		if !seen[name] {
			seen[name] = true
			v.Failed = append(v.Failed, name)
		}
	}
	sort.Strings(v.Failed)
	v.Panicked = strings.Contains(v.Output, "panic: ")
	return v
}

// describe says in a few words which tests caught a stub.
func (v verdict) describe() string {
	var s string
	switch {
	case len(v.Failed) > 3:
		s = strings.Join(v.Failed[:3], ", ") + fmt.Sprintf(" and %d more", len(v.Failed)-3)
	case len(v.Failed) > 0:
		s = strings.Join(v.Failed, ", ")
	default:
		s = "the test binary"
	}
	if v.Panicked {
		s += " (panic)"
	}
	return s
}

// check verifies, chapter by chapter, that the solution passes its tests, that stubbing all
// exercises at once still compiles (that is what a learner's workspace is), and that stubbing any
// single exercise makes at least one test fail.
func check(stdout io.Writer, root string, chs []chapter, timeout time.Duration) error {
	// Rows are printed as soon as they are known (a whole check takes minutes), so the columns
	// have fixed widths rather than a tabwriter's.
	fmt.Fprintf(stdout, rowFormat, "CHAPTER", "EXERCISE", "RESULT")
	var problems []string
	for _, ch := range chs {
		files, err := chapterFences(ch)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			fmt.Fprintf(stdout, rowFormat, ch.Name, "-", "no exercises, nothing to check")
			continue
		}
		probs, err := checkChapter(stdout, root, ch, files, timeout)
		if err != nil {
			return fmt.Errorf("%s: %w", ch.Name, err)
		}
		problems = append(problems, probs...)
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stdout, "\n"+p)
		}
		return fmt.Errorf("%d problem(s) found", len(problems))
	}
	fmt.Fprintln(stdout, "every exercise is caught by its chapter's tests")
	return nil
}

const rowFormat = "%-14s %-24s %s\n"

func checkChapter(stdout io.Writer, root string, ch chapter, files []sourceFile, timeout time.Duration) ([]string, error) {
	var problems []string
	report := func(name, result, detail string) {
		fmt.Fprintf(stdout, rowFormat, ch.Name, name, result)
		if detail != "" {
			problems = append(problems, fmt.Sprintf("=== %s %s: %s\n%s", ch.Name, name, result, lastLines(detail, 40)))
		}
	}

	// 1. The solution must pass.
	if v := goTest(root, ch.Dir, timeout); !v.Passed {
		report("(solution)", "FAIL: the solution does not pass its own tests", v.Output)
		return problems, nil
	}
	report("(solution)", "ok: tests pass", "")

	// 2. Work on a copy inside the module (so imports of earlier chapters resolve). A directory
	// whose name starts with "_" is skipped by ./... patterns, so other go commands ignore it.
	ws := filepath.Join(root, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(ws, "_check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, ch.Name)
	if err := copyDir(ch.Dir, dir); err != nil {
		return nil, err
	}
	nameOf, err := packageNames(root, files)
	if err != nil {
		return nil, err
	}

	// 3. All exercises stubbed at once, as in a learner's workspace: must compile.
	if err := writeStubbed(dir, files, nameOf, func(int, int) bool { return true }); err != nil {
		return nil, err
	}
	if v := goTest(root, dir, timeout); v.BuildErr || v.TimedOut {
		report("(all stubbed)", "ERROR: the workspace with every exercise stubbed does not compile", v.Output)
	} else {
		report("(all stubbed)", "ok: compiles", "")
	}

	// 4. Each exercise alone: some test must fail.
	for fi, f := range files {
		for i, fe := range f.Fences {
			only := func(gfi, gi int) bool { return gfi == fi && gi == i }
			if err := writeStubbed(dir, files, nameOf, only); err != nil {
				return nil, err
			}
			v := goTest(root, dir, timeout)
			switch {
			case v.BuildErr:
				report(fe.Name, "ERROR: does not compile when stubbed (fence a region after which the function still compiles)", v.Output)
			case v.TimedOut:
				report(fe.Name, "ERROR: tests timed out when stubbed", v.Output)
			case v.Passed:
				report(fe.Name, "NOT CAUGHT: every test passes without the solution", "no test failed; add a test that needs "+fe.Name)
			default:
				report(fe.Name, "caught by "+v.describe(), "")
			}
		}
	}
	return problems, nil
}

// lastLines keeps the end of a long go test output.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return fmt.Sprintf("... (%d lines cut)\n%s", len(lines)-n, strings.Join(lines[len(lines)-n:], "\n"))
}
