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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxFailureLines is the most lines one failing test may print in a fresh workspace or for a
// listed mistake: a learner reads the whole of it.
const maxFailureLines = 15

// minHeldOut is how many held-out mistakes (heldout.go) the check wants per exercise.
const minHeldOut = 2

// maxRepeats is the most times one failing test may print the same message: a bug met at every
// step of a loop is reported a few times and summarised, not once per step.
const maxRepeats = 3

// checkOptions are the flags of `exercise check`.
type checkOptions struct {
	Timeout time.Duration        // per run of a test binary
	Jobs    int                  // compilations and test runs at once
	Verbose bool                 // a line per variant: which test caught it, with what message
	Keep    bool                 // keep the copies under workspace/ (to debug a mistake that does not compile)
	HeldOut map[string][]mistake // per exercise, the mistakes its fence does not list (heldOut)
}

// A testRun is the outcome of running tests once.
type testRun struct {
	Passed   bool                // exit status 0
	Failed   []string            // top-level tests that printed --- FAIL, in order
	Lines    map[string]int      // lines printed by each failed top-level test (its --- FAIL line included; not an example's want: lines, the chapter's text, nor a stub's message met again in another subtest)
	First    map[string][]string // the first lines each failed top-level test printed, after --- FAIL
	Repeats  map[string]int      // how many times each failed top-level test printed its most repeated message
	Escaped  bool                // a panic killed the binary
	BuildErr bool                // the code did not compile
	TimedOut bool
	Output   string
}

var (
	failLineRE  = regexp.MustCompile(`^--- FAIL: (\S+)`)
	fileLineRE  = regexp.MustCompile(`^\S+\.go:\d+: `)
	goroutineRE = regexp.MustCompile(`^goroutine \d+ \[`)
)

// parseTestOutput reads the plain (not -v) output of a test binary or of go test.
func parseTestOutput(out string, exitOK bool) testRun {
	r := testRun{Passed: exitOK, Output: out, Lines: map[string]int{}, First: map[string][]string{}, Repeats: map[string]int{}}
	cur := ""
	want := false                       // in an example's "want:" lines: the chapter's text, not the learner's
	subFail := false                    // the line before was a subtest's --- FAIL
	seenStub := map[string]bool{}       // per test, whether a stub's message was printed yet
	seen := map[string]map[string]int{} // per test, each message (without its file:line) and its count
	for _, line := range strings.Split(out, "\n") {
		if m := failLineRE.FindStringSubmatch(line); m != nil {
			cur, want = m[1], false
			if !slices.Contains(r.Failed, cur) {
				r.Failed = append(r.Failed, cur)
			}
			r.Lines[cur]++
			continue
		}
		if line == "FAIL" || line == "PASS" || strings.HasPrefix(line, "FAIL\t") || strings.HasPrefix(line, "ok ") ||
			strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "exit status") {
			cur = ""
		}
		if strings.HasPrefix(line, "panic: test timed out after") {
			r.TimedOut = true
		}
		if goroutineRE.MatchString(line) { // the stacks a dying test binary prints
			r.Escaped = true
		}
		if strings.HasPrefix(line, "panic: ") {
			cur = ""
		}
		if cur != "" {
			// An example's got/want output repeats by nature, and so does an unwritten stub's one-line
			// panic in each subtest that reaches it; any other message counts.
			if msg := fileLineRE.ReplaceAllString(strings.TrimSpace(line), ""); msg != "" && !strings.HasPrefix(cur, "Example") && !strings.HasSuffix(msg, ": not implemented") {
				if seen[cur] == nil {
					seen[cur] = map[string]int{}
				}
				seen[cur][msg]++
				r.Repeats[cur] = max(r.Repeats[cur], seen[cur][msg])
			}
			want = want || (strings.HasPrefix(cur, "Example") && line == "want:")
			t := strings.TrimSpace(line)
			stubAgain := strings.HasSuffix(t, ": not implemented") && seenStub[cur]
			seenStub[cur] = seenStub[cur] || strings.HasSuffix(t, ": not implemented")
			switch {
			case stubAgain && subFail:
				r.Lines[cur]-- // the same stub met again in another subtest: neither line counts
			case !want && !stubAgain:
				r.Lines[cur]++
			}
			subFail = strings.HasPrefix(t, "--- FAIL")
			if l := strings.TrimSpace(line); len(r.First[cur]) < 4 && l != "" && !strings.HasPrefix(l, "--- FAIL") {
				r.First[cur] = append(r.First[cur], l)
			}
		}
	}
	r.Escaped = r.Escaped && !r.TimedOut
	if strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") {
		r.BuildErr = true
	}
	return r
}

// longest returns the failed test that printed the most lines, and how many.
func (r testRun) longest() (string, int) {
	name, n := "", 0
	for _, t := range r.Failed {
		if r.Lines[t] > n {
			name, n = t, r.Lines[t]
		}
	}
	return name, n
}

// A runner runs go commands and test binaries, at most Jobs at a time.
type runner struct {
	root    string
	timeout time.Duration
	sem     chan struct{}
}

// run runs a command in dir with extra environment variables and returns its combined output
// and whether it exited 0. A command that outlives the time limit is killed.
func (r *runner) run(dir string, env []string, name string, args ...string) (string, bool, error) {
	r.sem <- struct{}{}
	defer func() { <-r.sem }()
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return out.String(), true, nil
	case ctx.Err() != nil:
		return out.String() + "\npanic: test timed out after " + r.timeout.String() + " (killed)\n", false, nil
	case errors.As(err, &exitErr):
		return out.String(), false, nil
	}
	return out.String(), false, fmt.Errorf("%s: %w", name, err)
}

// A variantResult is what running the tests of one exercise on one variant gave.
type variantResult struct {
	variant
	Caught  bool
	Named   bool     // the first failure says the mistake's Says
	By      string   // the test that failed first
	Message []string // the first lines it printed
	Problem string   // what is wrong, if anything
	Output  string   // the test output, kept when there is a problem
}

// An exerciseResult is one row of the check's table.
type exerciseResult struct {
	Fence    fence
	Variants []variantResult
	Problems []string
}

// A chapterResult is everything the check found in one chapter.
type chapterResult struct {
	Chapter   chapter
	Notes     []string // the solution's and the workspace's lines
	Exercises []exerciseResult
	Problems  []string // with details, printed at the end
	Err       error    // the check itself could not run
}

// check verifies, chapter by chapter, that the solution passes its tests; that a fresh workspace
// (every exercise a panicking stub) compiles, runs every test without dying, and prints at most
// maxFailureLines lines per failing test; and that each exercise's panic stub fails every test
// its fence names, while its zero-value stub and each listed mistake fail at least one of them.
// It prints the table exercise | variants tried | caught, and fails if anything is wrong.
func check(stdout io.Writer, mod module, chs []chapter, opts checkOptions) error {
	run := &runner{root: mod.Root, timeout: opts.Timeout, sem: make(chan struct{}, max(1, opts.Jobs))}
	ws := filepath.Join(mod.Root, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	// A directory whose name starts with "_" is skipped by ./... patterns, so other go commands
	// (and the learner's `go test ./...`) ignore the copies.
	tmp, err := os.MkdirTemp(ws, "_check-")
	if err != nil {
		return err
	}
	if opts.Keep {
		fmt.Fprintf(stdout, "copies kept in %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	start := time.Now()
	results := make([]chan chapterResult, len(chs))
	for i, ch := range chs {
		results[i] = make(chan chapterResult, 1)
		go func() { results[i] <- checkChapter(run, mod, ch, tmp, opts.HeldOut) }()
	}

	fmt.Fprintf(stdout, rowFormat, "EXERCISE", "VARIANTS TRIED", "CAUGHT", "NAMED BY THE FIRST FAILURE")
	var problems []string
	var tally tally
	for i := range chs {
		res := <-results[i] // in chapter order, each as soon as it and those before it are done
		if res.Err != nil {
			problems = append(problems, fmt.Sprintf("=== %s: %v", res.Chapter.Name, res.Err))
			fmt.Fprintf(stdout, "%s\n  ERROR: %s (below)\n", res.Chapter.Name, strings.SplitN(res.Err.Error(), ";", 2)[0])
			continue
		}
		fmt.Fprintf(stdout, "%s\n", res.Chapter.Name)
		for _, n := range res.Notes {
			fmt.Fprintf(stdout, "  %s\n", n)
		}
		for _, ex := range res.Exercises {
			var labels []string
			n := 0
			for _, v := range ex.Variants {
				labels = append(labels, v.Label)
				if v.Caught {
					n++
				}
			}
			row := tally.add(ex)
			mark := ""
			if len(ex.Problems) > 0 {
				mark = "  <- " + strings.Join(ex.Problems, "; ")
			}
			fmt.Fprintf(stdout, rowFormat, "  "+ex.Fence.Name, summarizeLabels(labels), fmt.Sprintf("%d of %d", n, len(ex.Variants)), row+mark)
			if opts.Verbose {
				for _, v := range ex.Variants {
					fmt.Fprintf(stdout, "      %-10s %s\n", v.Label, v.Desc)
					if v.Says != "" {
						named := "named"
						if !v.Named {
							named = "NOT NAMED"
						}
						fmt.Fprintf(stdout, "      %-10s    says %q: %s\n", "", v.Says, named)
					}
					if !v.Caught {
						fmt.Fprintf(stdout, "      %-10s -> NOT CAUGHT\n", "")
						continue
					}
					fmt.Fprintf(stdout, "      %-10s -> %s\n", "", v.By)
					for _, l := range v.Message {
						fmt.Fprintf(stdout, "      %-10s      %s\n", "", l)
					}
				}
			}
		}
		problems = append(problems, res.Problems...)
	}
	fmt.Fprintf(stdout, "%s, in %.0fs\n", tally, time.Since(start).Seconds())
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(stdout, "\n"+strings.TrimRight(p, "\n"))
		}
		return fmt.Errorf("%d problem(s) found", len(problems))
	}
	fmt.Fprintln(stdout, "every exercise's stubs, listed and held-out mistakes are caught by its tests, and every listed mistake is named")
	return nil
}

// A tally counts what the check tried and what the tests made of it.
type tally struct {
	Exercises, Stubs, StubsCaught     int
	Listed, ListedCaught, ListedNamed int
	Held, HeldCaught, HeldNamed       int
}

// add counts one exercise and returns its row's last column: "listed 3 of 3, held-out 1 of 2".
func (t *tally) add(ex exerciseResult) string {
	t.Exercises++
	listed, held := 0, 0
	listedNamed, heldNamed := 0, 0
	for _, v := range ex.Variants {
		switch {
		case !v.isMistake():
			t.Stubs++
			if v.Caught {
				t.StubsCaught++
			}
		case strings.HasPrefix(v.Label, heldOutLabel):
			held++
			t.Held++
			if v.Caught {
				t.HeldCaught++
			}
			if v.Named {
				heldNamed++
				t.HeldNamed++
			}
		default:
			listed++
			t.Listed++
			if v.Caught {
				t.ListedCaught++
			}
			if v.Named {
				listedNamed++
				t.ListedNamed++
			}
		}
	}
	return fmt.Sprintf("listed %d of %d, held-out %d of %d", listedNamed, listed, heldNamed, held)
}

func (t tally) String() string {
	return fmt.Sprintf("%d exercises: %d of %d stubs caught; %d listed mistakes, %d caught, %d named by the first failure; "+
		"%d held-out mistakes, %d caught, %d named", t.Exercises, t.StubsCaught, t.Stubs, t.Listed, t.ListedCaught, t.ListedNamed,
		t.Held, t.HeldCaught, t.HeldNamed)
}

const rowFormat = "%-30s %-38s %-8s %s\n"

// summarizeLabels writes "panic, zero, 3 mistakes, 2 held-out".
func summarizeLabels(labels []string) string {
	var out []string
	mistakes, held := 0, 0
	for _, l := range labels {
		switch {
		case strings.HasPrefix(l, "mistake"):
			mistakes++
		case strings.HasPrefix(l, heldOutLabel):
			held++
		default:
			out = append(out, l)
		}
	}
	switch mistakes {
	case 0:
	case 1:
		out = append(out, "1 mistake")
	default:
		out = append(out, fmt.Sprintf("%d mistakes", mistakes))
	}
	if held > 0 {
		out = append(out, fmt.Sprintf("%d held-out", held))
	}
	return strings.Join(out, ", ")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// checkChapter runs the whole check of one chapter; tmp is the directory for its copies, held the
// held-out mistakes of each exercise.
func checkChapter(run *runner, mod module, ch chapter, tmp string, held map[string][]mistake) chapterResult {
	res := chapterResult{Chapter: ch}
	files, err := chapterFences(ch)
	if err != nil {
		res.Err = err
		return res
	}
	if len(files) == 0 {
		res.Notes = append(res.Notes, "no exercises, nothing to check")
		return res
	}
	tests, silent, err := chapterTests(ch)
	if err != nil {
		res.Err = err
		return res
	}
	problem := func(what, detail string) {
		res.Problems = append(res.Problems, fmt.Sprintf("=== %s: %s\n%s", ch.Name, what, lastLines(detail, 40)))
	}
	for _, p := range docProblems(ch, files) {
		res.Notes = append(res.Notes, "doc.go: DISAGREES with a fence")
		problem("doc.go's exercise list and the fences disagree", p)
	}
	for _, name := range silent {
		res.Notes = append(res.Notes, name+": NEVER RUNS")
		problem(name+" has no output comment, so go test compiles it but never runs it",
			"end it with a comment group that starts with \"// Output:\" (a blank line after any comment above it)")
	}

	// The fresh workspace and the binary of all variants are built side by side.
	var wg sync.WaitGroup
	var wsRun testRun
	var wsErr error
	wsDir := filepath.Join(tmp, "workspace", ch.Name)
	wg.Go(func() {
		if _, err := writeCopy(mod, ch, files, wsDir, stubbed, nil); err != nil {
			wsErr = err
			return
		}
		out, ok, err := run.run(mod.Root, nil, "go", "test", "-count=1", "-timeout", run.timeout.String(), "./"+relSlash(mod.Root, wsDir))
		wsErr = err
		wsRun = parseTestOutput(out, ok)
	})
	varDir := filepath.Join(tmp, "variants", ch.Name)
	bin := filepath.Join(tmp, ch.Name+".test")
	// A held-out mistake that no longer applies (its solution line changed) is left out and
	// reported; the others run.
	applies := map[string][]mistake{}
	badHeld := map[string][]string{}
	for _, f := range files {
		for _, fe := range f.Fences {
			for i, m := range held[fe.Name] {
				if _, err := fe.apply(m); err != nil {
					badHeld[fe.Name] = append(badHeld[fe.Name], fmt.Sprintf("held-out %d (%s) does not apply: %v; update scripts/exercise/heldout.go", i+1, m.Desc, err))
					continue
				}
				applies[fe.Name] = append(applies[fe.Name], m)
			}
		}
	}
	variants, err := writeCopy(mod, ch, files, varDir, allVariants, applies)
	if err != nil {
		wg.Wait()
		res.Err = err
		return res
	}
	out, ok, err := run.run(mod.Root, nil, "go", "test", "-c", "-o", bin, "./"+relSlash(mod.Root, varDir))
	if err != nil || !ok {
		wg.Wait()
		res.Err = fmt.Errorf("the chapter with every exercise's variants does not compile (a mistake's code?); rerun with -keep to look at %s:\n%s%v",
			relSlash(mod.Root, varDir), lastLines(annotateCompileErrors(out, mod.Root), 30), errOrEmpty(err))
		return res
	}
	// binRun runs the binary with the given variants on tests. With failfast it stops at the first
	// failing test: what a mistake must do is fail one test and name itself there, so the tests
	// after it (often the slow golden ones) need not run.
	binRun := func(variants string, tests []string, failfast bool) (testRun, error) {
		args := []string{"-test.count=1", "-test.timeout=" + run.timeout.String()}
		if failfast {
			args = append(args, "-test.failfast")
		}
		if len(tests) > 0 {
			args = append(args, "-test.run=^("+strings.Join(tests, "|")+")$")
		}
		out, ok, err := run.run(varDir, []string{variantEnv + "=" + variants}, bin, args...)
		return parseTestOutput(out, ok), err
	}

	// 1. The solution passes every test.
	sol, err := binRun("", nil, false)
	if err != nil {
		res.Err = err
		return res
	}
	if !sol.Passed {
		res.Notes = append(res.Notes, "solution: FAIL")
		problem("the solution does not pass its own tests", sol.Output)
	} else {
		res.Notes = append(res.Notes, "solution: every test passes")
	}

	// 2. Each variant of each exercise, run on the tests its fence names.
	k := 0
	for _, f := range files {
		for _, fe := range f.Fences {
			ex := exerciseResult{Fence: fe, Variants: make([]variantResult, len(variants[k]))}
			vs := variants[k]
			k++
			for _, name := range fe.Tests {
				if !slices.Contains(tests, name) {
					ex.Problems = append(ex.Problems, fmt.Sprintf("no test %s", name))
				}
			}
			if len(fe.Mistakes) < minMistakes {
				ex.Problems = append(ex.Problems, fmt.Sprintf("%d mistakes listed, want at least %d", len(fe.Mistakes), minMistakes))
			}
			if len(fe.Hints) < minHints {
				ex.Problems = append(ex.Problems, fmt.Sprintf("%d hints, want at least %d (%s)", len(fe.Hints), minHints, strings.Join(hintLevels, ", ")))
			}
			ex.Problems = append(ex.Problems, badHeld[fe.Name]...)
			if n := len(held[fe.Name]); n < minHeldOut {
				ex.Problems = append(ex.Problems, fmt.Sprintf("%d held-out mistakes in scripts/exercise/heldout.go, want %d", n, minHeldOut))
			}
			// Each of these fails the check, as the variants' problems below do.
			for _, p := range ex.Problems {
				problem(fe.Name+": "+p, "")
			}
			var vwg sync.WaitGroup
			for i, v := range vs {
				vwg.Go(func() {
					// The panic stub must fail every test of the fence, so all of them run for it.
					r, err := binRun(v.ID, fe.Tests, v.Label != "panic")
					ex.Variants[i] = judge(v, fe, r, err)
				})
			}
			vwg.Wait()
			for _, v := range ex.Variants {
				if v.Problem != "" {
					ex.Problems = append(ex.Problems, v.Label+": "+v.Problem)
					problem(fmt.Sprintf("%s, %s (%s): %s", fe.Name, v.Label, v.Desc, v.Problem), v.Output)
				}
			}
			res.Exercises = append(res.Exercises, ex)
		}
	}

	// In the order doc.go gives, as the other commands print them. Written in that order, each
	// exercise's tests must pass while the ones after it are still stubs: its tests need nothing
	// the learner has not written yet.
	order := orderedFences(ch, files)
	var ordered []exerciseResult
	for k, pf := range order {
		for _, ex := range res.Exercises {
			if ex.Fence.Name == pf.Name {
				ordered = append(ordered, ex)
			}
		}
		var later []string
		for _, l := range order[k+1:] {
			later = append(later, l.Name+"=panic")
		}
		if len(later) == 0 {
			continue
		}
		r, err := binRun(strings.Join(later, ","), pf.Tests, true)
		if err != nil {
			res.Err = err
			return res
		}
		if !r.Passed {
			ex := &ordered[len(ordered)-1]
			ex.Problems = append(ex.Problems, "its tests need a later exercise")
			problem(fmt.Sprintf("%s: %s fail(s) while only the exercises after it are stubs; name that test under a later exercise, or change the order in doc.go",
				pf.Name, strings.Join(r.Failed, ", ")), r.Output)
		}
	}
	res.Exercises = ordered

	// 3. The fresh workspace.
	wg.Wait()
	switch {
	case wsErr != nil:
		res.Err = wsErr
	case wsRun.BuildErr || (!wsRun.Passed && len(wsRun.Failed) == 0 && !wsRun.Escaped && !wsRun.TimedOut):
		res.Notes = append(res.Notes, "fresh workspace: DOES NOT COMPILE")
		problem("the workspace with every exercise stubbed does not compile (fence a region after which the function still compiles)", wsRun.Output)
	case wsRun.Escaped || wsRun.TimedOut:
		res.Notes = append(res.Notes, "fresh workspace: a panic killed the test binary")
		problem("a stub's panic escaped the tests in a fresh workspace (a goroutine of a test?)", wsRun.Output)
	default:
		name, n := wsRun.longest()
		res.Notes = append(res.Notes, fmt.Sprintf("fresh workspace: compiles, %d tests fail, the longest failure is %d lines (%s)", len(wsRun.Failed), n, name))
		if n > maxFailureLines {
			problem(fmt.Sprintf("in a fresh workspace %s prints %d lines, more than %d", name, n, maxFailureLines), failureOf(wsRun.Output, name))
		}
		for _, t := range wsRun.Failed {
			if k := wsRun.Repeats[t]; k > maxRepeats {
				problem(fmt.Sprintf("in a fresh workspace %s prints one message %d times, more than %d", t, k, maxRepeats), failureOf(wsRun.Output, t))
			}
		}
	}
	return res
}

var (
	compileErrRE = regexp.MustCompile(`^(\S+\.go):(\d+):\d+: `)
	branchRE     = regexp.MustCompile(`if exerciseVariant_\w+ == ("[^"]*") \{`)
)

// annotateCompileErrors appends to each compiler error in the check's copy the variant whose
// branch of the if-chain it is in, such as "(in rope.InvFreq mistake 1)".
func annotateCompileErrors(out, root string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		m := compileErrRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, m[1]))
		if err != nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		file := strings.Split(string(src), "\n")
		label := ""
		for j := min(n, len(file)) - 1; j >= 0; j-- {
			t := strings.TrimSpace(file[j])
			if m := branchRE.FindStringSubmatch(t); m != nil && label == "" {
				label, _ = strconv.Unquote(m[1])
			}
			if t == endMarker {
				break
			}
			if strings.HasPrefix(t, beginMarker) {
				if name, _ := parseBeginLine(strings.TrimPrefix(t, beginMarker)); label != "" {
					lines[i] += " (in " + name + " " + label + ")"
				}
				break
			}
		}
	}
	return strings.Join(lines, "\n")
}

// judge decides whether a variant was caught by the tests of its fence.
func judge(v variant, fe fence, r testRun, err error) variantResult {
	res := variantResult{variant: v}
	res.Caught = !r.Passed
	if len(r.Failed) > 0 {
		res.By = r.Failed[0]
		res.Message = r.First[r.Failed[0]]
		res.Named = v.Says != "" && says(res.Message, v.Says)
	}
	switch {
	case err != nil:
		res.Problem = err.Error()
	case r.Passed:
		res.Problem = "NOT CAUGHT: every test of the fence passes"
	case r.BuildErr:
		res.Problem = "does not compile"
	case r.TimedOut:
		res.By, res.Message = "timeout", []string{"the tests did not finish"}
		res.Problem = "the tests time out on it: a learner would wait minutes for no message"
	case r.Escaped:
		res.By, res.Message = "panic", []string{"the test binary died"}
		res.Problem = "a panic escaped the tests"
	case v.Label == "panic":
		var missed []string
		for _, t := range fe.Tests {
			if !slices.Contains(r.Failed, t) {
				missed = append(missed, t)
			}
		}
		if len(missed) > 0 {
			res.Problem = fmt.Sprintf("%s pass(es) with the stub: they do not check %s", strings.Join(missed, ", "), fe.Name)
		}
	}
	if res.Problem == "" && v.isMistake() && !strings.HasPrefix(v.Label, heldOutLabel) {
		switch {
		case v.Says == "":
			res.Problem = fmt.Sprintf("no %q line: say what the first failure must say to name the mistake", saysMarker)
		case !res.Named:
			res.Problem = fmt.Sprintf("the first failure (%s) does not say %q", res.By, v.Says)
		}
	}
	if res.Problem == "" {
		if name, n := r.longest(); n > maxFailureLines {
			res.Problem = fmt.Sprintf("%s prints %d lines, more than %d", name, n, maxFailureLines)
		}
	}
	if res.Problem == "" {
		for _, t := range r.Failed {
			if n := r.Repeats[t]; n > maxRepeats {
				res.Problem = fmt.Sprintf("%s prints one message %d times, more than %d: report a few and summarise the rest", t, n, maxRepeats)
				break
			}
		}
	}
	if res.Problem != "" {
		res.Output = r.Output
	}
	return res
}

// says reports whether the first lines of a failure hold the phrase, ignoring case and how the
// lines are broken and spaced.
func says(message []string, phrase string) bool {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	return strings.Contains(norm(strings.Join(message, " ")), norm(phrase))
}

// failureOf returns the lines one failed test printed in a go test output.
func failureOf(out, name string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		if m := failLineRE.FindStringSubmatch(line); m != nil {
			in = m[1] == name
		} else if in && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "ok ")) {
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// chapterTests returns the names of the chapter's top-level Test, Example and Fuzz functions, and
// of its examples that never run (no output comment).
func chapterTests(ch chapter) (names, silent []string, err error) {
	paths, err := filepath.Glob(filepath.Join(ch.Dir, "*_test.go"))
	if err != nil {
		return nil, nil, err
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		n, s, err := topLevelTests(p, src)
		if err != nil {
			return nil, nil, err
		}
		names, silent = append(names, n...), append(silent, s...)
	}
	return names, silent, nil
}

func relSlash(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// lastLines keeps the end of a long go test output.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return fmt.Sprintf("... (%d lines cut)\n%s", len(lines)-n, strings.Join(lines[len(lines)-n:], "\n"))
}
