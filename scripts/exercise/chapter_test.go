package main

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestOrderedFences(t *testing.T) {
	dir := t.TempDir()
	doc := `// Package p.
//
// # Exercises
//
//  1. [Mask] (a.go): first.
//  2. Cache.attend (b.go): second,
//     continued.
//  3. [Table.Rotate]: third.
//
// # Another section
//
//  1. [Softmax] is not an exercise order.
package p
`
	if err := os.WriteFile(filepath.Join(dir, "doc.go"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ch := chapter{Num: "05", Name: "05_p", Dir: dir}
	fe := func(name string) fence { return fence{Name: name} }
	files := []sourceFile{
		{Rel: "a.go", Fences: []fence{fe("p.Softmax"), fe("p.Table.Rotate"), fe("p.Mask")}},
		{Rel: "b.go", Fences: []fence{fe("p.Cache.attend"), fe("p.Other")}},
	}
	var got []string
	for _, pf := range orderedFences(ch, files) {
		got = append(got, pf.File+":"+pf.Name)
	}
	want := []string{"a.go:p.Mask", "b.go:p.Cache.attend", "a.go:p.Table.Rotate", "a.go:p.Softmax", "b.go:p.Other"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("orderedFences = %q, want %q (listed ones first, in the doc's order; the rest in source order)", got, want)
	}
}

func TestVariantFileParses(t *testing.T) {
	src := variantFile("rope", []string{"rope.InvFreq", "rope.Table.RotateHead"})
	if _, err := parser.ParseFile(token.NewFileSet(), "v.go", src, 0); err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	for _, want := range []string{`var exerciseVariant_rope_InvFreq = exerciseVariants["rope.InvFreq"]`, `os.Getenv("EXERCISE_VARIANT")`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the variant file lacks %q:\n%s", want, src)
		}
	}
}

// TestCourseDocsAgree reads the course's own chapters: every fence is listed once in its
// chapter's doc.go with the file and difficulty the fence gives.
func TestCourseDocsAgree(t *testing.T) {
	mod, err := findModule()
	if err != nil {
		t.Fatal(err)
	}
	chs, err := listChapters(mod.Root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ch := range chs {
		files, err := chapterFences(ch)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			n += len(f.Fences)
		}
		for _, p := range docProblems(ch, files) {
			t.Error(p)
		}
	}
	if n == 0 {
		t.Fatal("no exercise fences found in the course's chapters")
	}
}

func TestDocProblems(t *testing.T) {
	dir := t.TempDir()
	doc := "// Package p.\n//\n// # Exercises\n//\n//  1. [A] (a.go; easy, 5 min): first.\n//  2. [B] (a.go; hard, 5 min): second.\n//  3. [A] (a.go; easy, 5 min): again.\npackage p\n"
	if err := os.WriteFile(filepath.Join(dir, "doc.go"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ch := chapter{Num: "05", Name: "05_p", Dir: dir}
	fe := func(name, level string) fence { return fence{Name: name, Level: level, Minutes: 5} }
	files := []sourceFile{{Rel: "a.go", Fences: []fence{fe("p.A", "easy"), fe("p.B", "medium"), fe("p.C", "easy")}}}
	got := strings.Join(docProblems(ch, files), "\n")
	for _, want := range []string{
		"exercise p.A is listed 2 times",
		"exercise p.B is listed with (a.go; hard, 5 min), want (a.go; medium, 5 min)",
		"exercise p.C is listed 0 times",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("docProblems:\n%s\nwant a line containing %q", got, want)
		}
	}
}

// TestCourseChapterShape reads the course's own chapters: each doc.go ends with a "Check your
// understanding" section that gives its answers, and each chapter has a worked example by hand,
// a package-level Example_byHand whose output go test checks (issue 19).
func TestCourseChapterShape(t *testing.T) {
	mod, err := findModule()
	if err != nil {
		t.Fatal(err)
	}
	chs, err := listChapters(mod.Root)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chs {
		doc, err := os.ReadFile(filepath.Join(ch.Dir, "doc.go"))
		if err != nil {
			t.Fatal(err)
		}
		last := ""
		for _, line := range strings.Split(string(doc), "\n") {
			if h, ok := strings.CutPrefix(line, "// # "); ok {
				last = h
			}
		}
		if last != "Check your understanding" {
			t.Errorf("chapters/%s/doc.go: the last section is %q, want \"Check your understanding\"", ch.Name, last)
		} else if !strings.Contains(string(doc), "// Answers.") {
			t.Errorf("chapters/%s/doc.go: \"Check your understanding\" has no \"Answers.\" paragraph", ch.Name)
		}
		names, silent, err := chapterTests(ch)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(names, "Example_byHand") || slices.Contains(silent, "Example_byHand") {
			t.Errorf("chapters/%s: no Example_byHand with an output comment (the worked example by hand)", ch.Name)
		}
	}
}

// TestREADMECountsExercises: the top README's "N exercises, about H hours" is what `exercise
// list` prints for the course as it is, so adding or timing an exercise cannot leave it stale.
func TestREADMECountsExercises(t *testing.T) {
	mod, err := findModule()
	if err != nil {
		t.Fatal(err)
	}
	chs, err := listChapters(mod.Root)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := list(&out, chs); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(\d+) exercises, about ([\d.]+) hours in all`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("exercise list printed no count:\n%s", out.String())
	}
	readme, err := os.ReadFile(filepath.Join(mod.Root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := m[1] + " exercises, about " + m[2] + " hours"
	if got := regexp.MustCompile(`\d+ exercises, about [\d.]+\s+hours`).FindString(string(readme)); strings.Join(strings.Fields(got), " ") != want {
		t.Errorf("README.md says %q, exercise list says %q: update the README", got, want)
	}
}

// TestNotebooksListExercises: each chapter's notebook ends with "Your turn", which names the
// chapter's exercises with the difficulty and time that `exercise list` gives them. A new
// exercise (or a new time) must reach the notebook too: a learner reading it would otherwise
// stub five functions believing there are three.
func TestNotebooksListExercises(t *testing.T) {
	mod, err := findModule()
	if err != nil {
		t.Fatal(err)
	}
	chs, err := listChapters(mod.Root)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range chs {
		files, err := chapterFences(ch)
		if err != nil {
			t.Fatal(err)
		}
		fences := orderedFences(ch, files)
		if len(fences) == 0 {
			continue
		}
		path := filepath.Join(mod.Root, "notebooks", ch.Name+".ipynb")
		turn, err := yourTurn(path)
		if err != nil {
			t.Errorf("%s: %v", ch.Name, err)
			continue
		}
		for _, fe := range fences {
			i := strings.Index(turn, "`"+fe.Name+"`")
			if i < 0 {
				t.Errorf("notebooks/%s.ipynb: \"Your turn\" does not name the exercise `%s` (%s)", ch.Name, fe.Name, fe.Difficulty())
				continue
			}
			line := turn[i:]
			if j := strings.IndexByte(line, '\n'); j >= 0 {
				line = line[:j]
			}
			if !strings.Contains(line, fe.Difficulty()) {
				t.Errorf("notebooks/%s.ipynb: \"Your turn\" gives `%s` another difficulty or time than %q:\n\t%s", ch.Name, fe.Name, fe.Difficulty(), line)
			}
		}
	}
}

// yourTurn returns the markdown cell of a notebook that starts with "## Your turn".
func yourTurn(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var nb struct {
		Cells []struct {
			Type   string          `json:"cell_type"`
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	for _, c := range nb.Cells {
		var lines []string
		if json.Unmarshal(c.Source, &lines) != nil {
			var s string
			if err := json.Unmarshal(c.Source, &s); err != nil {
				return "", fmt.Errorf("%s: a cell's source: %w", path, err)
			}
			lines = []string{s}
		}
		src := strings.Join(lines, "")
		if c.Type == "markdown" && strings.HasPrefix(src, "## Your turn") {
			return src, nil
		}
	}
	return "", fmt.Errorf("%s has no markdown cell starting with \"## Your turn\"", path)
}
