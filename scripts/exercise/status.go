package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

var resultLineRE = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)

// A workspaceState is what the tests of one chapter's workspace say of each of its exercises.
type workspaceState struct {
	Chapter  chapter
	Dir      string        // workspace/NN_name
	Fences   []placedFence // the chapter's, in doc.go's order
	States   []string      // one per fence: stateDone, stateStub, stateFailing+"...", stateNoBuild
	Failed   []bool        // one per fence: at least one of its tests ran and failed
	BuildErr string        // the first line of the compiler's complaint, if any
	Hints    hintLog
}

// readWorkspace reads a chapter's workspace, refusing it when its fences are not the chapter's
// (see checkWorkspaceFences), and runs its tests: every test of every exercise, once.
func readWorkspace(mod module, ch chapter, files []sourceFile) (*workspaceState, error) {
	dir := filepath.Join(mod.Root, "workspace", ch.Name)
	ws := &workspaceState{Chapter: ch, Dir: dir, Fences: orderedFences(ch, files)}
	stubs, err := checkWorkspaceFences(ch, files, dir)
	if err != nil {
		return nil, err
	}
	if ws.Hints, err = readHints(dir); err != nil {
		return nil, err
	}
	results, buildErr := workspaceResults(mod.Root, dir)
	ws.BuildErr = buildErr
	for _, fe := range ws.Fences {
		ws.States = append(ws.States, exerciseState(fe.fence, stubs[fe.Name].Stub, results, buildErr))
		ws.Failed = append(ws.Failed, !stubs[fe.Name].Stub && slices.ContainsFunc(fe.Tests, func(t string) bool { return results[t] == "FAIL" }))
	}
	return ws, nil
}

// checkWorkspaceFences compares the fences of a learner's workspace with the chapter's: every
// file that holds exercises must be there with the same fences, under the same names, in the same
// order, and no other file may hold one. A renamed, moved, reordered or removed fence is refused
// rather than guessed at: status, hint and watch would otherwise judge an exercise by the wrong
// code. It returns, for each exercise, its fence in the workspace (where it is, what it holds).
func checkWorkspaceFences(ch chapter, files []sourceFile, dir string) (map[string]wsFence, error) {
	rel := filepath.ToSlash(filepath.Join("workspace", ch.Name))
	restore := fmt.Sprintf("restore the fence lines as chapters/%s has them, or start over with: go run ./scripts/exercise %s -force", ch.Name, ch.Num)
	stubs := map[string]wsFence{}
	want := map[string][]fence{}
	for _, f := range files {
		want[filepath.ToSlash(f.Rel)] = f.Fences
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		got, err := parseFences(rel+"/"+e.Name(), src, false)
		if err != nil {
			return nil, fmt.Errorf("%w\n(%s)", err, restore)
		}
		wantFences, ok := want[e.Name()]
		if !ok {
			if len(got) > 0 {
				return nil, fmt.Errorf("%s/%s holds exercise %s, which chapters/%s has in another file: fences stay where they are\n(%s)",
					rel, e.Name(), got[0].Name, ch.Name, restore)
			}
			continue
		}
		seen[e.Name()] = true
		if err := sameFences(rel+"/"+e.Name(), got, wantFences); err != nil {
			return nil, fmt.Errorf("%w\n(%s)", err, restore)
		}
		for _, fe := range got {
			stubs[fe.Name] = wsFence{Line: fe.Begin, Stub: slices.ContainsFunc(fe.Body, func(l string) bool {
				return strings.TrimSpace(l) == "panic("+quote(stubMessage(fe.Name))+")"
			})}
		}
	}
	for _, f := range files {
		if !seen[filepath.ToSlash(f.Rel)] {
			var names []string
			for _, fe := range f.Fences {
				names = append(names, fe.Name)
			}
			return nil, fmt.Errorf("%s/%s is missing: it holds exercise(s) %s\n(%s)", rel, f.Rel, strings.Join(names, ", "), restore)
		}
	}
	return stubs, nil
}

// A wsFence is an exercise's fence as a learner's workspace has it.
type wsFence struct {
	Line int  // line of its `// exercise:` in the workspace file
	Stub bool // its body is still the workspace's panic stub
}

// sameFences says how the fences of a workspace file differ from the chapter file's, if they do.
func sameFences(file string, got, want []fence) error {
	names := func(fs []fence) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	g, w := names(got), names(want)
	if slices.Equal(g, w) {
		return nil
	}
	gs, ws := slices.Clone(g), slices.Clone(w)
	slices.Sort(gs)
	slices.Sort(ws)
	switch {
	case slices.Equal(gs, ws):
		return fmt.Errorf("%s: its exercises are in the order %s, the chapter's %s: fences are not moved",
			file, strings.Join(g, ", "), strings.Join(w, ", "))
	case len(g) != len(w):
		return fmt.Errorf("%s has %d exercise fence(s) (%s), the chapter's file %d (%s)",
			file, len(g), strings.Join(g, ", "), len(w), strings.Join(w, ", "))
	}
	for i := range g {
		if g[i] != w[i] {
			return fmt.Errorf("%s: exercise %d is named %s, the chapter's %s: fences keep their names", file, i+1, g[i], w[i])
		}
	}
	return nil // not reached: equal lengths and names would have been equal
}

// status runs the tests of every chapter that has a workspace and prints each exercise's state
// and the hints it used. go test's cache makes a second run cheap when nothing changed. When an
// exercise's tests fail but pass with the solutions of the other exercises (see passAlone), its
// state says which earlier exercises fail on their own, and "Next" names the first exercise that
// fails on its own or is still a stub.
func status(stdout io.Writer, mod module, chs []chapter) error {
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "CHAPTER\tEXERCISE\tHINTS\tSTATE")
	total, done, started, chapters := 0, 0, 0, 0
	var next []string
	firstNew := "" // the command that starts the first chapter not started
	var notes []string
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
		if _, err := os.Stat(filepath.Join(mod.Root, "workspace", ch.Name)); err != nil {
			start := "go run ./scripts/exercise " + ch.Num
			fmt.Fprintf(tw, "%s\t(%d exercises)\t\t%s: %s\n", ch.Name, len(fences), stateNotBegun, start)
			if firstNew == "" {
				firstNew = start
			}
			continue
		}
		started++
		ws, err := readWorkspace(mod, ch, files)
		if err != nil {
			fmt.Fprintf(tw, "%s\t(%d exercises)\t\trefused: %s\n", ch.Name, len(fences), firstLine(err.Error()))
			notes = append(notes, fmt.Sprintf("%s: %v", ch.Name, err))
			continue
		}
		first := true
		if ws.BuildErr != "" {
			fmt.Fprintf(tw, "%s\t(does not compile)\t\t%s\n", ch.Name, clip(ws.BuildErr, 100))
			first = false
		}
		alone, err := ws.blame(mod, files)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: could not run each exercise on its own: %v", ch.Name, clip(err.Error(), 200)))
		}
		for i, fe := range ws.Fences {
			state := ws.States[i]
			ownFault := true
			if b, ok := alone[fe.Name]; ok {
				ownFault = false
				state += "; " + b
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
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, fe.Name, ws.Hints.summary(fe.fence), state)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintf(stdout, "\n%s\n", n)
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

// blame finds, among the exercises with a failing test, those whose tests pass with the learner's
// code for them and the chapter's solutions for everything else (see passAlone): their failure
// comes from another exercise. (A test that was skipped or did not run is the exercise's own
// business: it would pass anywhere.) It returns, for each of them, what to say: which earlier exercises fail on
// their own (a stub, or a failure that is not itself explained away), never one that passes with
// the solutions of the others.
func (ws *workspaceState) blame(mod module, files []sourceFile) (map[string]string, error) {
	var failing []placedFence
	for i, fe := range ws.Fences {
		if ws.Failed[i] {
			failing = append(failing, fe)
		}
	}
	if len(failing) == 0 || len(ws.Fences)-countDone(ws.States) < 2 {
		return nil, nil
	}
	alone, err := passAlone(mod, ws.Chapter, files, ws.Dir, failing)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, fe := range ws.Fences {
		if !alone[fe.Name] {
			continue
		}
		var culprits, doneBefore []string
		for j := range i {
			switch {
			case ws.States[j] == stateDone:
				doneBefore = append(doneBefore, ws.Fences[j].Name)
			case !alone[ws.Fences[j].Name]:
				culprits = append(culprits, ws.Fences[j].Name)
			}
		}
		switch {
		case len(culprits) > 0:
			out[fe.Name] = "passes with the solutions of the others: fix " + strings.Join(culprits, ", ") + " first"
		case len(doneBefore) > 0:
			out[fe.Name] = "passes with the solutions of the others, so the fault is in one before it that its own tests do not see: compare " +
				strings.Join(doneBefore, ", ") + " with the chapter's"
		default:
			out[fe.Name] = "passes with the solutions of the others: they fail only together"
		}
	}
	return out, nil
}

// workspaceResults runs `go test -v` on a workspace package and returns each top-level test's
// result ("PASS", "FAIL", "SKIP"), or the first lines of the compiler's complaint.
func workspaceResults(root, dir string) (map[string]string, string) {
	cmd := exec.Command("go", "test", "-v", "./"+relSlash(root, dir))
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run() // a failing test is an ordinary outcome here; the output says what happened
	return parseResults(out.String())
}

// parseResults reads the output of `go test -v`: each top-level test's result, or the first line
// of the compiler's complaint.
func parseResults(out string) (map[string]string, string) {
	results := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if m := resultLineRE.FindStringSubmatch(line); m != nil && !strings.Contains(m[2], "/") {
			results[m[2]] = m[1]
		}
	}
	if strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "FAIL") || strings.TrimSpace(l) == "" {
				continue
			}
			return nil, strings.TrimSpace(l)
		}
		return nil, "the build failed"
	}
	return results, ""
}

// exerciseState says where one exercise stands: still the stub, done (every test of its fence
// ran and passed), or which of its tests fail, were skipped or did not run at all. A skipped or
// missing test proves nothing, so it never counts as passed.
func exerciseState(fe fence, stub bool, results map[string]string, buildErr string) string {
	if stub {
		return stateStub
	}
	if buildErr != "" {
		return stateNoBuild
	}
	var failing, skipped, missing []string
	for _, t := range fe.Tests {
		switch results[t] {
		case "PASS":
		case "SKIP":
			skipped = append(skipped, t)
		case "":
			missing = append(missing, t)
		default:
			failing = append(failing, t)
		}
	}
	var parts []string
	if len(failing) > 0 {
		parts = append(parts, strings.Join(failing, ", "))
	}
	if len(skipped) > 0 {
		parts = append(parts, strings.Join(skipped, ", ")+" skipped (a skipped test proves nothing)")
	}
	if len(missing) > 0 {
		parts = append(parts, strings.Join(missing, ", ")+" did not run")
	}
	if len(parts) == 0 {
		return stateDone
	}
	return stateFailing + strings.Join(parts, "; ")
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

// current returns the index of the first exercise that is not done, or -1.
func (ws *workspaceState) current() int {
	for i, s := range ws.States {
		if s != stateDone {
			return i
		}
	}
	return -1
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// hintsFile is the file of a workspace that records how many hints each exercise used.
const hintsFile = ".exercise-hints.json"

// A hintLog records, per exercise, how many hints the learner asked for and whether they asked
// for the solution. It lives in the workspace (workspace/NN_name/.exercise-hints.json), so
// starting a chapter over with -force starts its count over, and each learner's copy of the
// course keeps its own.
type hintLog map[string]hintUse

type hintUse struct {
	Hints    int  `json:"hints"`
	Solution bool `json:"solution,omitempty"`
}

// readHints reads a workspace's hint log; a workspace without one has used no hints.
func readHints(dir string) (hintLog, error) {
	log := hintLog{}
	b, err := os.ReadFile(filepath.Join(dir, hintsFile))
	if os.IsNotExist(err) {
		return log, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &log); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it to start the count over)", filepath.Join(dir, hintsFile), err)
	}
	return log, nil
}

func (l hintLog) write(dir string) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, hintsFile), append(b, '\n'), 0o644)
}

// summary writes an exercise's hint use for status: "-", "2 of 3", "3 of 3, solution".
func (l hintLog) summary(fe fence) string {
	u := l[fe.Name]
	switch {
	case u.Solution:
		return fmt.Sprintf("%d of %d, solution", u.Hints, len(fe.Hints))
	case u.Hints == 0:
		return "-"
	}
	return fmt.Sprintf("%d of %d", u.Hints, len(fe.Hints))
}
