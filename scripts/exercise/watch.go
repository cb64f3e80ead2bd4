package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// clearScreen moves the cursor home and clears the terminal, as `rustlings watch` does before
// each run.
const clearScreen = "\x1b[H\x1b[2J\x1b[3J"

// settle is how long watch waits after a save for the editor's other writes (a temporary file, a
// rename) before it runs the tests once.
const settle = 150 * time.Millisecond

// maxWatchLines is the most lines of a failure watch prints: the first lines say what is wrong.
const maxWatchLines = 30

// watch runs the current exercise of a chapter's workspace, the first one not done in doc.go's
// order, then again after every save of one of the workspace's Go files, as `rustlings watch`
// does: it clears the screen and prints the one failure to fix, or the still unwritten stub, or
// moves on to the next exercise when the current one passes. It ends when ctx does (Ctrl-C).
func watch(ctx context.Context, stdout io.Writer, mod module, chs []chapter, arg string) error {
	ch, err := findChapter(chs, arg)
	if err != nil {
		return err
	}
	files, err := chapterFences(ch)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("chapter %s has no exercises", ch.Name)
	}
	dir := filepath.Join(mod.Root, "workspace", ch.Name)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("workspace/%s does not exist: start the chapter with go run ./scripts/exercise %s", ch.Name, ch.Num)
	}
	s := &watchSession{mod: mod, ch: ch, files: files, dir: dir, fences: orderedFences(ch, files), done: map[string]bool{}}
	err = watchLoop(ctx, dir, func(ctx context.Context) {
		screen := s.run(ctx)
		if ctx.Err() == nil {
			fmt.Fprint(stdout, clearScreen+screen)
		}
	})
	fmt.Fprintf(stdout, "\nLeft watch mode. The whole course: go run ./scripts/exercise status\n")
	return err
}

// watchLoop calls run once, then once after each burst of writes to a Go file of dir (a burst
// ends when no write came for settle), until ctx ends. It watches with fsnotify: the operating
// system's notifications, not a poll of the files.
func watchLoop(ctx context.Context, dir string, run func(context.Context)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watching %s: %w", dir, err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("watching %s: %w", dir, err)
	}
	run(ctx)
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if isSourceSave(ev) {
				timer = time.After(settle)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			return fmt.Errorf("watching %s: %w", dir, err)
		case <-timer:
			timer = nil
			run(ctx)
		}
	}
}

// isSourceSave says whether a file event is a save of a Go file (not an editor's swap or backup
// file, nor the workspace's hint log).
func isSourceSave(ev fsnotify.Event) bool {
	base := filepath.Base(ev.Name)
	return strings.HasSuffix(base, ".go") && !strings.HasPrefix(base, ".") && !strings.HasPrefix(base, "#") &&
		ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) != 0
}

// A watchSession remembers, while watch runs, which exercises passed: the current exercise only
// moves forward, as in rustlings.
type watchSession struct {
	mod    module
	ch     chapter
	files  []sourceFile
	dir    string
	fences []placedFence
	done   map[string]bool
}

// run checks the exercises from the current one on, stopping at the first that is not done, and
// returns the screen to show.
func (s *watchSession) run(ctx context.Context) string {
	var b strings.Builder
	rel := filepath.ToSlash(filepath.Join("workspace", s.ch.Name))
	fmt.Fprintf(&b, "exercise watch %s: the tests run again each time you save a file of %s/ (Ctrl-C to leave)\n\n", s.ch.Name, rel)
	stubs, err := checkWorkspaceFences(s.ch, s.files, s.dir)
	if err != nil {
		fmt.Fprintf(&b, "refused: %v\n", err)
		return b.String()
	}
	hints, err := readHints(s.dir)
	if err != nil {
		fmt.Fprintf(&b, "%v\n", err)
		return b.String()
	}
	for i, fe := range s.fences {
		if s.done[fe.Name] {
			fmt.Fprintf(&b, "  ✓ %s\n", fe.Name)
			continue
		}
		head := fmt.Sprintf("  > %s (%s/%s:%d; %s): %s\n", fe.Name, rel, fe.File, stubs[fe.Name].Line, fe.Difficulty(), fe.Desc)
		if stubs[fe.Name].Stub {
			b.WriteString(head)
			fmt.Fprintf(&b, "\nStill the stub: replace its panic(%q) by your code, and save.\n", stubMessage(fe.Name))
			s.footer(&b, fe, hints, i)
			return b.String()
		}
		res := runExerciseTests(ctx, s.mod.Root, s.dir, fe.fence)
		if ctx.Err() != nil {
			return ""
		}
		if res.ok(fe.fence) {
			s.done[fe.Name] = true
			fmt.Fprintf(&b, "  ✓ %s\n", fe.Name)
			continue
		}
		b.WriteString(head)
		b.WriteString("\n" + res.failure(fe.fence))
		s.footer(&b, fe, hints, i)
		return b.String()
	}
	fmt.Fprintf(&b, "\nEvery exercise of %s is done. Your progress: go run ./scripts/exercise status\n", s.ch.Name)
	return b.String()
}

// footer ends a screen: the exercise's own test command, its hints, the count.
func (s *watchSession) footer(b *strings.Builder, fe placedFence, hints hintLog, i int) {
	rel := filepath.ToSlash(filepath.Join("workspace", s.ch.Name))
	fmt.Fprintf(b, "\nIts tests: go test -run '%s' ./%s/\n", fe.runPattern(), rel)
	if n := len(fe.Hints); n > 0 {
		fmt.Fprintf(b, "Stuck? go run ./scripts/exercise hint %s (%d of %d hints used)\n", s.ch.Num, hints[fe.Name].Hints, n)
	}
	fmt.Fprintf(b, "%d of %d exercises done. Last run %s.\n", i, len(s.fences), time.Now().Format("15:04:05"))
}

// An exerciseRun is what `go test -json` said about one exercise's tests.
type exerciseRun struct {
	Results map[string]string   // top-level test -> "pass", "fail", "skip"
	Output  map[string][]string // top-level test -> its output lines
	Order   []string            // the top-level tests in the order they ended
	Build   []string            // the compiler's complaint, if any
	Err     error               // go could not be run
}

// runExerciseTests runs the tests of one exercise in a workspace with go test -json.
func runExerciseTests(ctx context.Context, root, dir string, fe fence) exerciseRun {
	cmd := exec.CommandContext(ctx, "go", "test", "-json", "-run", fe.runPattern(), "./"+relSlash(root, dir))
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	res := parseTestJSON(out.String())
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		res.Err = err
	}
	return res
}

// parseTestJSON reads the output of go test -json (test2json's events, and the lines of the build
// that are not events).
func parseTestJSON(out string) exerciseRun {
	res := exerciseRun{Results: map[string]string{}, Output: map[string][]string{}}
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var ev struct {
			Action string
			Test   string
			Output string
		}
		if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Action == "" {
			res.Build = append(res.Build, line)
			continue
		}
		top, _, _ := strings.Cut(ev.Test, "/")
		switch ev.Action {
		case "build-output":
			res.Build = append(res.Build, strings.TrimRight(ev.Output, "\n"))
		case "output":
			if top == "" {
				continue
			}
			l := strings.TrimRight(ev.Output, "\n")
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- PASS") || strings.HasPrefix(t, "--- SKIP") ||
				strings.HasPrefix(t, "--- FAIL: "+top+" ") {
				continue // -v's bookkeeping, and the test's own verdict, which failure puts first
			}
			res.Output[top] = append(res.Output[top], l)
		case "pass", "fail", "skip":
			if ev.Test != "" && !strings.Contains(ev.Test, "/") {
				res.Results[ev.Test] = ev.Action
				res.Order = append(res.Order, ev.Test)
			}
		}
	}
	return res
}

// ok says whether every test of the fence ran and passed.
func (r exerciseRun) ok(fe fence) bool {
	if r.Err != nil {
		return false
	}
	for _, t := range fe.Tests {
		if r.Results[t] != "pass" {
			return false
		}
	}
	return true
}

// failure writes the one thing to fix: the compiler's complaint, or the first failing test's
// output (clipped), or which tests were skipped or did not run.
func (r exerciseRun) failure(fe fence) string {
	switch {
	case r.Err != nil:
		return fmt.Sprintf("go test could not run: %v\n", r.Err)
	case len(r.Build) > 0 && len(r.Results) == 0:
		return "It does not compile:\n" + clipLines(r.Build, maxWatchLines)
	}
	for _, t := range r.Order {
		if r.Results[t] == "fail" && slices.Contains(fe.Tests, t) {
			return clipLines(append([]string{"--- FAIL: " + t}, r.Output[t]...), maxWatchLines)
		}
	}
	var notRun []string
	for _, t := range fe.Tests {
		switch r.Results[t] {
		case "skip":
			notRun = append(notRun, t+" was skipped")
		case "":
			notRun = append(notRun, t+" did not run")
		}
	}
	if len(notRun) > 0 {
		return strings.Join(notRun, "; ") + ": a test that does not run proves nothing, so the exercise is not done.\n"
	}
	return "The tests failed without saying why:\n" + clipLines(r.Build, maxWatchLines)
}

// clipLines joins at most n lines, saying how many it left out.
func clipLines(lines []string, n int) string {
	if len(lines) > n {
		return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines)\n", len(lines)-n)
	}
	return strings.Join(lines, "\n") + "\n"
}
