package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// hintOptions are the arguments of `exercise hint`.
type hintOptions struct {
	Chapter  string // "03", "3" or "03_rmsnorm"
	Name     string // "normRow", "rmsnorm.normRow" or ""; "" is the first exercise not done
	Solution bool   // print the solution itself
}

// hint prints the next hint of an exercise, in the manner of `rustlings hint` and ARENA's folded
// hints: each call reveals one more, from a nudge to the formula to the shape of the code, and
// the solution only when asked for with -solution. How many each exercise used is kept in the
// workspace (see hintLog), and status shows it.
func hint(stdout io.Writer, mod module, chs []chapter, opts hintOptions) error {
	ch, err := findChapter(chs, opts.Chapter)
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
	fences := orderedFences(ch, files)
	wsFences, err := checkWorkspaceFences(ch, files, dir)
	if err != nil {
		return err
	}
	var fe placedFence
	if opts.Name != "" {
		if fe, err = findFence(fences, opts.Name); err != nil {
			return err
		}
	} else {
		ws, err := readWorkspace(mod, ch, files)
		if err != nil {
			return err
		}
		i := ws.current()
		if i < 0 {
			fmt.Fprintf(stdout, "Every exercise of %s is done: no hint needed. Ask for one by name: go run ./scripts/exercise hint %s NAME\n", ch.Name, ch.Num)
			return nil
		}
		fe = ws.Fences[i]
	}
	log, err := readHints(dir)
	if err != nil {
		return err
	}
	use := log[fe.Name]
	short := shortName(fe.Name)
	fmt.Fprintf(stdout, "%s (workspace/%s/%s:%d; %s): %s\n", fe.Name, ch.Name, fe.File, wsFences[fe.Name].Line, fe.Difficulty(), fe.Desc)
	if opts.Solution {
		use.Solution = true
		log[fe.Name] = use
		if err := log.write(dir); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nThe chapter's solution (chapters/%s/%s:%d):\n\n", ch.Name, fe.File, fe.BodyLine)
		for _, l := range fe.Body {
			fmt.Fprintf(stdout, "    %s\n", strings.TrimPrefix(l, fe.Indent))
		}
		fmt.Fprintf(stdout, "\nType it in your own words rather than pasting it; then: go test -run '%s' ./workspace/%s/\n", fe.runPattern(), ch.Name)
		return nil
	}
	if len(fe.Hints) == 0 {
		fmt.Fprintf(stdout, "\nThis exercise has no hints; chapters/%s/doc.go explains it. The solution: go run ./scripts/exercise hint %s %s -solution\n",
			ch.Name, ch.Num, short)
		return nil
	}
	if use.Hints < len(fe.Hints) {
		use.Hints++
		log[fe.Name] = use
		if err := log.write(dir); err != nil {
			return err
		}
	}
	for i, h := range fe.Hints[:use.Hints] {
		level := ""
		if i < len(hintLevels) && !strings.HasPrefix(h, "The shape") { // most third hints begin "The shape:" already
			level = ", " + hintLevels[i]
		}
		fmt.Fprintf(stdout, "\nHint %d of %d%s:\n", i+1, len(fe.Hints), level)
		for _, l := range strings.Split(h, "\n") {
			fmt.Fprintf(stdout, "  %s\n", l)
		}
	}
	if use.Hints < len(fe.Hints) {
		fmt.Fprintf(stdout, "\nThe next hint: go run ./scripts/exercise hint %s %s\n", ch.Num, short)
	} else {
		fmt.Fprintf(stdout, "\nThat was the last hint. The solution itself: go run ./scripts/exercise hint %s %s -solution\n", ch.Num, short)
	}
	return nil
}

// shortName drops the package from an exercise's name: "rmsnorm.normRow" is "normRow".
func shortName(name string) string {
	_, rest, ok := strings.Cut(name, ".")
	if !ok {
		return name
	}
	return rest
}

// findFence finds an exercise by its name with or without its package ("rmsnorm.normRow",
// "normRow"), or a method by its name alone when that is unambiguous ("attend" for
// "kvcache.Cache.attend").
func findFence(fences []placedFence, name string) (placedFence, error) {
	var match []placedFence
	for _, fe := range fences {
		short := shortName(fe.Name)
		if fe.Name == name || short == name || strings.HasSuffix(short, "."+name) {
			match = append(match, fe)
		}
	}
	var names []string
	for _, fe := range fences {
		names = append(names, shortName(fe.Name))
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		return placedFence{}, fmt.Errorf("no exercise %q in this chapter (it has: %s)", name, strings.Join(names, ", "))
	}
	return placedFence{}, fmt.Errorf("%q names %d exercises: say which (%s)", name, len(match), strings.Join(names, ", "))
}
