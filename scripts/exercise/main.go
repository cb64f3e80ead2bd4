// Command exercise turns the course's chapters into exercises, shows a learner's progress, and
// checks that every exercise is worth doing.
//
// # Fences
//
// In a chapter's solution code, the lines a learner is asked to write are fenced. The fence names
// the exercise and its task, then the tests that check it, then how hard it is, then holds the
// solution, then gives graded hints (at least three), then lists the classic mistakes made there
// (at least two), each with what its first failure must say:
//
//	// exercise: rmsnorm.normRow — mean of squares, eps inside the square root, then scale by the weight
//	// tests: TestRMSNormGolden TestEpsInsideSqrt ExampleRMSNorm
//	// difficulty: easy, 10 min
//	var ss float64
//	for _, v := range src {
//		ss += v * v
//	}
//	inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
//	for i, v := range src {
//		dst[i] = v * inv * w[i]
//	}
//	// hint: Two passes over the row: one to measure its size, one to write the output.
//	// hint: ms = (x[0]² + ... + x[n-1]²) / n; inv = 1 / sqrt(ms + eps); dst[i] = src[i] * inv * w[i].
//	// hint: The shape:
//	//	var ss float64
//	//	for _, v := range src { ss += ... }
//	// mistake: eps added outside the square root
//	// says: eps goes inside the square root
//	//	- inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
//	//	+ inv := 1/math.Sqrt(ss/float64(len(src))) + eps
//	// mistake: the root of the sum of squares, not of their mean
//	// says: not of their sum
//	//	- inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
//	//	+ inv := 1 / math.Sqrt(ss+eps)
//	// end exercise
//
// The second line, "// tests:", names the top-level Test and Example functions of the chapter
// that check the exercise (separated by spaces or commas); together they are the exercise's
// `go test -run` pattern. They may use the exercises listed before this one in the "# Exercises"
// section of the chapter's doc.go (the order to write them in), not the ones after it.
//
// The third line, "// difficulty:", gives a level and the minutes a learner should expect to
// spend: "easy, 10 min", "medium, 20 min" or "hard, 40 min". Easy is one idea written down; medium
// needs a detail the chapter's doc.go explains (a rounding order, a layout); hard puts several
// pieces together (a whole attention projection, a cache step). The chapter's doc.go lists every
// exercise in its "# Exercises" section, in the order to write them, as
//
//	//  1. [InvFreq] (rope.go; medium, 15 min): what to write ...
//
// with the file that holds the fence and the same difficulty; `exercise list` prints it, and
// `exercise check` (and this command's own tests) fail when doc.go and the fence disagree.
//
// A mistake starts with "// mistake:" and what the learner got wrong, followed by lines of a
// diff against the solution: "//<tab>- line" lines name consecutive solution lines (compared
// without their indentation; together they must occur exactly once), and the "//<tab>+ line"
// lines after them replace them (indented like the first line they replace; gofmt tidies the
// rest). One mistake may hold several such hunks; a line "//" alone ends a hunk, so that two
// runs of "-" lines can be two hunks. A mistake of "+" lines alone replaces the whole solution.
// The tool swaps each mistake in for the solution, and the exercise's tests must then fail,
// saying what went wrong. A mistake may use only what the file already imports.
//
// A "// says:" line right after "// mistake:" gives what the first failure must say to name the
// mistake (compared with the first lines of the first failing test, ignoring case and line
// breaks): `exercise check` fails when it does not. Say what the value implies ("the weight is
// applied as 1 + w, Gemma's form"), not only what was expected.
//
// A hint starts with "// hint:" and goes on over the comment lines after it ("//<tab>code" for a
// line of code). The first is a nudge towards the idea, the second the formula (or the rule), the
// third the shape of the code; `exercise hint` gives them one at a time.
//
// Everything between the "// difficulty:" line and "// end exercise" is the solution: a learner's
// workspace gets none of it, hints and mistakes included.
//
// # Held-out mistakes
//
// heldout.go holds, for every exercise, two more mistakes its fence does not list (a wrong
// constant, a transposed operand, an off-by-one), written apart from the chapters: the check
// injects them too, to measure how well the tests catch what their authors did not think of. Each
// must be caught; how many of their failures name them is reported, not required.
//
// # Usage
//
// From anywhere in the repository:
//
//	go run ./scripts/exercise NN          copy chapters/NN_name to workspace/NN_name with each fenced
//	                                      solution replaced by panic("exercise rope.RotateHead: not implemented"),
//	                                      and print each exercise's `go test -run` command
//	go run ./scripts/exercise NN -force   the same, replacing an existing workspace/NN_name
//	go run ./scripts/exercise list [NN..] list the exercises: difficulty and time, where they are,
//	                                      their tests
//	go run ./scripts/exercise status      run the tests of every chapter in workspace/ and show each
//	                                      exercise as done (every test of its fence ran and passed:
//	                                      a skipped or missing test does not count), failing or still
//	                                      the stub, and the hints it used; a failing exercise whose
//	                                      tests pass with the solutions of the others names the
//	                                      earlier exercises that fail on their own ("fix ... first"),
//	                                      and "Next" names the first that fails on its own. A
//	                                      workspace whose fences were renamed, moved, reordered or
//	                                      removed is refused, with what differs
//	go run ./scripts/exercise hint NN [NAME] [-solution]
//	                                      the next hint for the first exercise of chapter NN that is
//	                                      not done (or for NAME): a nudge, then the formula, then the
//	                                      shape of the code; the solution only with -solution. The count
//	                                      is kept in the workspace, and status shows it
//	go run ./scripts/exercise watch NN    run the current exercise's tests, then again each time a Go
//	                                      file of workspace/NN_name is saved (fsnotify): the screen
//	                                      shows the one failure to fix, or the stub, or moves on to the
//	                                      next exercise once it passes; Ctrl-C leaves
//	go run ./scripts/exercise check [-v] [-j N] [-timeout D] [-keep] [NN..]
//	                                      check every chapter with exercises (default: all); exits
//	                                      non-zero if anything is wrong (CI runs this)
//
// NN is a chapter number ("4", "04") or directory name ("04_rope"). The workspace lives inside the
// module (git ignores workspace/), so it keeps importing the solutions of earlier chapters, and its
// tests are the chapter's own tests. Every file that imported the chapter (its examples) imports
// the workspace instead, and every test, subtest and example starts with a deferred call of
// package catch (scripts/exercise/catch): a stub's panic fails the tests that reach it, not the
// whole test binary, so one run shows the state of every exercise of the chapter.
//
// # What check checks
//
// For each chapter: the solution passes all its tests; every example has an output comment (or
// go test never runs it); a fresh workspace (every exercise a panicking stub) compiles, runs to
// the end, and prints at most 15 lines per failing test. For each exercise, on the tests its
// fence names: the workspace's panic stub fails every one of them; the zero-value stub (a return
// of the zero values when the fence ends its function, nothing at all otherwise), each listed
// mistake and each held-out mistake fail at least one, in at most 15 lines; the first failure of
// each listed mistake says what its "// says:" line says; the exercise has at least three hints
// and two held-out mistakes; and its tests pass while only the exercises after it in doc.go's
// order are stubs. It prints the table exercise | variants tried | caught | named (-v adds, per
// variant, the test that caught it and the first lines it printed), and the totals: stubs,
// listed and held-out mistakes, how many were caught and how many named by their first failure.
// The runs of a mistake stop at its first failing test (-test.failfast): that one is what the
// learner reads.
//
// One test binary per chapter serves every run: its copy of the chapter holds each exercise as an
// if-chain over the variants, chosen by the environment variable EXERCISE_VARIANT (a list of
// name=variant; the solutions when unset). So a chapter compiles twice (that binary and the fresh
// workspace) however many mistakes it lists, and the runs go on in parallel (-j, default the
// number of CPUs).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "exercise:", err)
		os.Exit(1)
	}
}

// defaultTimeout bounds each run of a chapter's tests.
const defaultTimeout = 5 * time.Minute

const usage = `usage:
  go run ./scripts/exercise NN [-force]            write workspace/NN_name with the exercises stubbed
  go run ./scripts/exercise list [NN...]           list the exercises: difficulty, time, tests
  go run ./scripts/exercise status                 show which exercises of workspace/ are done, and
                                                   the hints each used
  go run ./scripts/exercise hint NN [NAME] [-solution]
                                                   the next hint for the first exercise not done (or
                                                   NAME): a nudge, the formula, the shape of the code
  go run ./scripts/exercise watch NN               run the current exercise's tests on every save
  go run ./scripts/exercise check [-v] [-j N] [-timeout D] [-keep] [NN...]
                                                   check that the solutions pass and that every stub
                                                   and listed mistake is caught
NN is a chapter number (4, 04) or directory name (04_rope).`

func run(args []string, stdout io.Writer) error {
	mod, err := findModule()
	if err != nil {
		return err
	}
	chs, err := listChapters(mod.Root)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	switch args[0] {
	case "list":
		selected, err := selectChapters(chs, args[1:])
		if err != nil {
			return err
		}
		return list(stdout, selected)
	case "status":
		if len(args) > 1 {
			return fmt.Errorf("status takes no arguments\n%s", usage)
		}
		return status(stdout, mod, chs)
	case "check":
		fl := flag.NewFlagSet("check", flag.ContinueOnError)
		fl.SetOutput(io.Discard)
		var opts checkOptions
		fl.DurationVar(&opts.Timeout, "timeout", defaultTimeout, "time limit for each run of a chapter's tests")
		fl.IntVar(&opts.Jobs, "j", runtime.NumCPU(), "compilations and test runs at once")
		fl.BoolVar(&opts.Verbose, "v", false, "print, for each variant, the test that caught it and its first line")
		fl.BoolVar(&opts.Keep, "keep", false, "keep the chapter copies under workspace/_check-*")
		opts.HeldOut = heldOut
		if err := fl.Parse(args[1:]); err != nil {
			return fmt.Errorf("%v\n%s", err, usage)
		}
		selected, err := selectChapters(chs, fl.Args())
		if err != nil {
			return err
		}
		return check(stdout, mod, selected, opts)
	case "hint":
		var opts hintOptions
		rest, err := parseInterspersed(newHintFlags(&opts), args[1:])
		if err != nil {
			return fmt.Errorf("%v\n%s", err, usage)
		}
		if len(rest) < 1 || len(rest) > 2 {
			return fmt.Errorf("hint wants a chapter and at most one exercise, got %q\n%s", rest, usage)
		}
		opts.Chapter = rest[0]
		if len(rest) == 2 {
			opts.Name = rest[1]
		}
		return hint(stdout, mod, chs, opts)
	case "watch":
		if len(args) != 2 {
			return fmt.Errorf("watch wants one chapter\n%s", usage)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		return watch(ctx, stdout, mod, chs, args[1])
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		// The flag may come before or after the chapter: "-force 04" or "04 -force".
		force := false
		var rest []string
		for _, a := range args {
			switch {
			case a == "-force" || a == "--force":
				force = true
			case strings.HasPrefix(a, "-"):
				return fmt.Errorf("unknown flag %s\n%s", a, usage)
			default:
				rest = append(rest, a)
			}
		}
		if len(rest) != 1 {
			return fmt.Errorf("want exactly one chapter, got %q\n%s", rest, usage)
		}
		ch, err := findChapter(chs, rest[0])
		if err != nil {
			return err
		}
		return makeWorkspace(stdout, mod, ch, force)
	}
}

// newHintFlags returns the flags of `exercise hint`, set into opts.
func newHintFlags(opts *hintOptions) *flag.FlagSet {
	fl := flag.NewFlagSet("hint", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.BoolVar(&opts.Solution, "solution", false, "print the solution")
	return fl
}

// parseInterspersed parses flags that may come before, between or after the other arguments
// ("hint 03 -solution normRow"), and returns the other arguments.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		args = fl.Args()
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// findModule returns the Go module that governs the current directory.
func findModule() (module, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return module{}, fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return module{}, fmt.Errorf("not inside a Go module: run this from the course repository")
	}
	f, err := os.Open(gomod)
	if err != nil {
		return module{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return module{Root: filepath.Dir(gomod), Path: strings.Trim(strings.TrimSpace(rest), `"`)}, nil
		}
	}
	return module{}, fmt.Errorf("%s: no module line", gomod)
}

func selectChapters(chs []chapter, args []string) ([]chapter, error) {
	if len(args) == 0 {
		return chs, nil
	}
	var out []chapter
	for _, a := range args {
		ch, err := findChapter(chs, a)
		if err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}

func list(stdout io.Writer, chs []chapter) error {
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "EXERCISE\tDIFFICULTY\tWHERE\tMISTAKES\tTESTS")
	minutes := map[string]int{}
	n := 0
	for _, ch := range chs {
		files, err := chapterFences(ch)
		if err != nil {
			return err
		}
		for _, fe := range orderedFences(ch, files) {
			fmt.Fprintf(tw, "%s\t%s\tchapters/%s/%s:%d\t%d\t%s\n", fe.Name, fe.Difficulty(), ch.Name, fe.File, fe.Begin, len(fe.Mistakes), strings.Join(fe.Tests, " "))
			minutes[fe.Level] += fe.Minutes
			n++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	total := 0
	var parts []string
	for _, l := range levels {
		total += minutes[l]
		parts = append(parts, fmt.Sprintf("%s %d min", l, minutes[l]))
	}
	fmt.Fprintf(stdout, "\n%d exercises, about %.1f hours in all (%s). Difficulty: easy is one idea written down,\n"+
		"medium needs a detail the chapter's doc.go explains, hard puts several chapters' pieces together.\n",
		n, float64(total)/60, strings.Join(parts, ", "))
	return nil
}

// makeWorkspace writes workspace/NN_name: the chapter with every exercise stubbed.
func makeWorkspace(stdout io.Writer, mod module, ch chapter, force bool) error {
	files, err := chapterFences(ch)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("chapter %s has no exercises", ch.Name)
	}
	dst := filepath.Join(mod.Root, "workspace", ch.Name)
	rel := filepath.ToSlash(filepath.Join("workspace", ch.Name))
	if _, err := os.Stat(dst); err == nil {
		if !force {
			return fmt.Errorf("%s already exists (your work?): remove it, or pass -force to replace it", rel)
		}
		if err := os.RemoveAll(dst); err != nil {
			return err
		}
	}
	if _, err := writeCopy(mod, ch, files, dst, stubbed, nil); err != nil {
		return err
	}
	wsFences, err := checkWorkspaceFences(ch, files, dst)
	if err != nil {
		return err
	}
	n := 0
	for _, f := range files {
		n += len(f.Fences)
	}
	fmt.Fprintf(stdout, "Wrote %s/ with %d exercises to write, in this order:\n\n", rel, n)
	for _, fe := range orderedFences(ch, files) {
		fmt.Fprintf(stdout, "  %s  (%s:%d; %s)\n      %s\n      go test -run '%s' ./%s/\n\n",
			fe.Name, filepath.ToSlash(filepath.Join(rel, fe.File)), wsFences[fe.Name].Line, fe.Difficulty(), fe.Desc, fe.runPattern(), rel)
	}
	fmt.Fprintf(stdout, "Replace each panic(\"exercise ...\") by your code. The current exercise's tests, run again on every save:\n"+
		"  go run ./scripts/exercise watch %s\nStuck? The next hint (a nudge, then the formula, then the shape of the code):\n"+
		"  go run ./scripts/exercise hint %s\nEvery exercise's tests at once:\n  go test ./%s/\n", ch.Num, ch.Num, rel)
	fmt.Fprintf(stdout, "Your progress over the course:\n  go run ./scripts/exercise status\n")
	fmt.Fprintf(stdout, "(The tests are the chapter's own, begun with a deferred catch.Panic so that one unwritten\n"+
		"exercise fails only its tests; chapters/%s/doc.go tells the story.)\n", ch.Name)
	return nil
}
