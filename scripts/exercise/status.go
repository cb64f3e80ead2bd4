package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
)

// The state of one exercise in a learner's workspace.
const (
	stateDone     = "done"
	stateStub     = "to do (still the stub)"
	stateFailing  = "failing: "
	stateNoBuild  = "does not compile"
	stateNotBegun = "not started"
)

var resultLineRE = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+)`)

// status runs the tests of every chapter that has a workspace and prints each exercise's state.
// go test's cache makes a second run cheap when nothing changed. When an exercise's tests fail but
// pass with the solutions of the other exercises (see passAlone), its state says so, and "Next"
// names the first exercise that fails on its own or is still a stub.
func status(stdout io.Writer, mod module, chs []chapter) error {
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CHAPTER\tEXERCISE\tSTATE")
	total, done, started, chapters := 0, 0, 0, 0
	var next []string
	firstNew := "" // the command that starts the first chapter not started
	for _, ch := range chs {
		files, err := chapterFences(ch)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			continue
		}
		chapters++
		fences := orderedFences(ch, files)
		total += len(fences)
		dir := filepath.Join(mod.Root, "workspace", ch.Name)
		if _, err := os.Stat(dir); err != nil {
			start := "go run ./scripts/exercise " + ch.Num
			fmt.Fprintf(tw, "%s\t(%d exercises)\t%s: %s\n", ch.Name, len(fences), stateNotBegun, start)
			if firstNew == "" {
				firstNew = start
			}
			continue
		}
		started++
		results, buildErr := workspaceResults(mod.Root, dir)
		first := true
		if buildErr != "" {
			fmt.Fprintf(tw, "%s\t(does not compile)\t%s\n", ch.Name, clip(buildErr, 100))
			first = false
		}
		states := make([]string, len(fences))
		var failing []placedFence
		for i, fe := range fences {
			states[i] = exerciseState(fe.fence, files, dir, results, buildErr)
			if strings.HasPrefix(states[i], stateFailing) {
				failing = append(failing, fe)
			}
		}
		// A failure may come from an earlier exercise that the failing tests use: when more than
		// one exercise is unfinished, find out which fail on their own.
		var alone map[string]bool
		if len(failing) > 0 && len(fences)-countDone(states) > 1 {
			var err error
			if alone, err = passAlone(mod, ch, files, dir, failing); err != nil {
				fmt.Fprintf(stdout, "(%s: could not run each exercise on its own: %v)\n", ch.Name, clip(err.Error(), 200))
				alone = nil
			}
		}
		for i, fe := range fences {
			state := states[i]
			ownFault := true
			if alone[fe.Name] {
				ownFault = false
				state += "; passes with the solutions of the others: fix " + strings.Join(unfinishedBefore(fences, states, i), ", ") + " first"
			}
			if state == stateDone {
				done++
			} else if len(next) == 0 && ownFault {
				next = append(next, fe.Name, fmt.Sprintf("go test -run '%s' ./workspace/%s/", fe.runPattern(), ch.Name))
			}
			name := ""
			if first {
				name, first = ch.Name, false
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", name, fe.Name, state)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d of %d exercises done; %d of %d chapters with exercises started.\n", done, total, started, chapters)
	switch {
	case len(next) > 0:
		fmt.Fprintf(stdout, "Next: %s\n  %s\n", next[0], next[1])
	case firstNew != "":
		fmt.Fprintf(stdout, "Next: a new chapter\n  %s\n", firstNew)
	}
	return nil
}

// workspaceResults runs `go test -v` on a workspace package and returns each top-level test's
// result ("PASS", "FAIL", "SKIP"), or the first lines of the compiler's complaint.
func workspaceResults(root, dir string) (map[string]string, string) {
	cmd := exec.Command("go", "test", "-v", "./"+relSlash(root, dir))
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run() // a failing test is an ordinary outcome here; the output says what happened
	results := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if m := resultLineRE.FindStringSubmatch(line); m != nil {
			results[m[2]] = m[1]
		}
	}
	if strings.Contains(out.String(), "[build failed]") || strings.Contains(out.String(), "[setup failed]") {
		var msg []string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "FAIL") || strings.TrimSpace(l) == "" {
				continue
			}
			if msg = append(msg, strings.TrimSpace(l)); len(msg) == 1 {
				break
			}
		}
		return nil, strings.Join(msg, "; ")
	}
	return results, ""
}

// exerciseState says where one exercise stands: still the stub (read from the workspace's
// source), done (every test of its fence passed), or which of its tests fail.
func exerciseState(fe fence, files []sourceFile, dir string, results map[string]string, buildErr string) string {
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, f.Rel))
		if err == nil && bytes.Contains(src, []byte("panic("+quote(stubMessage(fe.Name))+")")) {
			return stateStub
		}
	}
	if buildErr != "" {
		return stateNoBuild
	}
	var failing []string
	for _, t := range fe.Tests {
		if results[t] != "PASS" {
			failing = append(failing, t)
		}
	}
	if len(failing) == 0 {
		return stateDone
	}
	return stateFailing + strings.Join(failing, ", ")
}

func countDone(states []string) int {
	n := 0
	for _, s := range states {
		if s == stateDone {
			n++
		}
	}
	return n
}

// unfinishedBefore names the exercises before fences[i] that are not done: the ones a failure of
// fences[i]'s tests can come from (an exercise's tests use only those before it; check makes sure).
func unfinishedBefore(fences []placedFence, states []string, i int) []string {
	var out []string
	for j := range i {
		if states[j] != stateDone {
			out = append(out, fences[j].Name)
		}
	}
	if len(out) == 0 {
		out = append(out, "the exercises before it")
	}
	return out
}
