package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A chapter is one directory chapters/NN_name of the module.
type chapter struct {
	Num  string // "04"
	Name string // "04_rope"
	Dir  string // absolute path
}

var chapterDirRE = regexp.MustCompile(`^(\d\d)_[A-Za-z0-9_]+$`)

// listChapters returns the chapters under root/chapters in number order.
func listChapters(root string) ([]chapter, error) {
	entries, err := os.ReadDir(filepath.Join(root, "chapters"))
	if err != nil {
		return nil, fmt.Errorf("listing chapters: %w", err)
	}
	var chs []chapter
	for _, e := range entries {
		if m := chapterDirRE.FindStringSubmatch(e.Name()); e.IsDir() && m != nil {
			chs = append(chs, chapter{Num: m[1], Name: e.Name(), Dir: filepath.Join(root, "chapters", e.Name())})
		}
	}
	sort.Slice(chs, func(i, j int) bool { return chs[i].Name < chs[j].Name })
	return chs, nil
}

// findChapter accepts "4", "04" or "04_rope".
func findChapter(chs []chapter, arg string) (chapter, error) {
	want := arg
	if len(want) == 1 && want[0] >= '0' && want[0] <= '9' {
		want = "0" + want
	}
	for _, ch := range chs {
		if ch.Num == want || ch.Name == want {
			return ch, nil
		}
	}
	var names []string
	for _, ch := range chs {
		names = append(names, ch.Name)
	}
	return chapter{}, fmt.Errorf("no chapter %q (have: %s)", arg, strings.Join(names, ", "))
}

// A sourceFile is one .go file of a chapter with its fences.
type sourceFile struct {
	Rel    string // path relative to the chapter directory
	Src    []byte
	Fences []fence
}

// chapterFences reads every .go file of the chapter (subdirectories included, testdata excluded)
// and returns those that have fences, which must all be in the chapter's own package. Malformed
// fences are errors.
func chapterFences(ch chapter) ([]sourceFile, error) {
	var files []sourceFile
	err := filepath.WalkDir(ch.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || (path != ch.Dir && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(ch.Dir, path)
		if err != nil {
			return err
		}
		fences, err := findFences(filepath.Join("chapters", ch.Name, rel), src)
		if err != nil {
			return err
		}
		if len(fences) > 0 && filepath.Dir(rel) != "." {
			return fmt.Errorf("chapters/%s/%s: exercise fences belong in the chapter's own package, not a subdirectory", ch.Name, rel)
		}
		if len(fences) > 0 {
			files = append(files, sourceFile{Rel: rel, Src: src, Fences: fences})
		}
		return nil
	})
	return files, err
}

// copyDir copies the tree src to dst (which must not exist), keeping file modes.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		default:
			return nil // symlinks and other special files are not part of a chapter
		}
	})
}

// packageNames asks `go list` for the package name of each import path used by files, so that
// removeUnusedImports knows that ".../chapters/03_rmsnorm" is package rmsnorm.
func packageNames(root string, files []sourceFile) (func(string) string, error) {
	set := map[string]bool{}
	for _, f := range files {
		paths, err := importPaths(f.Rel, f.Src)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			if p != "C" {
				set[p] = true
			}
		}
	}
	names := map[string]string{}
	if len(set) > 0 {
		args := []string{"list", "-e", "-f", "{{.ImportPath}} {{.Name}}"}
		for p := range set {
			args = append(args, p)
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list (package names of the imports): %v\n%s", err, stderr.String())
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if path, name, ok := strings.Cut(line, " "); ok && name != "" {
				names[path] = name
			}
		}
	}
	return func(path string) string {
		if name, ok := names[path]; ok {
			return name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}, nil
}

// A placedFence is a fence with the chapter file that holds it.
type placedFence struct {
	File string // relative to the chapter directory
	fence
}

// listItemRE matches an item of the numbered list in a doc.go's "# Exercises" section:
// "//  2. [Table.RotateHead] (rope.go; medium, 20 min): ..." or "//  2. normRow (rmsnorm.go; easy, 10 min): ...".
var listItemRE = regexp.MustCompile(`^//\s+\d+\.\s+\[?([A-Za-z_][A-Za-z0-9_.]*)\]?(?:\s+\(([^)]*)\))?`)

// A docItem is one exercise as the "# Exercises" list of a chapter's doc.go names it.
type docItem struct {
	Name  string // "Table.RotateHead"
	Paren string // what its parentheses hold: "rope.go; medium, 20 min"
}

// docExercises returns the items of the numbered list in the "# Exercises" section of the
// chapter's doc.go, in order.
func docExercises(ch chapter) ([]docItem, error) {
	doc, err := os.ReadFile(filepath.Join(ch.Dir, "doc.go"))
	if err != nil {
		return nil, err
	}
	var items []docItem
	in := false
	for _, line := range strings.Split(string(doc), "\n") {
		switch {
		case strings.HasPrefix(line, "// # "):
			in = line == "// # Exercises"
		case in:
			if m := listItemRE.FindStringSubmatch(line); m != nil {
				items = append(items, docItem{Name: m[1], Paren: m[2]})
			}
		}
	}
	return items, nil
}

// matches says whether a doc item names the fence: "Table.RotateHead" and "RotateHead" both name
// the fence "rope.RotateHead" (a fence is named package.Func or package.Type.Method; doc.go may
// name a method with or without its type).
func (it docItem) matches(fenceName string) bool {
	_, rest, _ := strings.Cut(fenceName, ".")
	return rest == it.Name || strings.HasSuffix(it.Name, "."+rest) || strings.HasSuffix(rest, "."+it.Name)
}

// orderedFences returns the chapter's fences in the order its doc.go's "# Exercises" section lists
// them (the order to write them in), matching "Table.RotateHead" to the fence
// "rope.Table.RotateHead"; fences the list does not name follow in source order.
func orderedFences(ch chapter, files []sourceFile) []placedFence {
	var all []placedFence
	for _, f := range files {
		for _, fe := range f.Fences {
			all = append(all, placedFence{File: f.Rel, fence: fe})
		}
	}
	listed, err := docExercises(ch)
	if err != nil {
		return all
	}
	rank := func(name string) int {
		for i, l := range listed {
			if l.matches(name) {
				return i
			}
		}
		return len(listed)
	}
	sort.SliceStable(all, func(i, j int) bool { return rank(all[i].Name) < rank(all[j].Name) })
	return all
}

// docProblems says where a chapter's doc.go and its fences disagree: every fence must be listed
// once in the "# Exercises" section, as "[Name] (file.go; difficulty): what to do", with the
// file that holds it and the difficulty its `// difficulty:` line gives, so that what a learner
// reads in the chapter's story is what `exercise list` prints.
func docProblems(ch chapter, files []sourceFile) []string {
	listed, err := docExercises(ch)
	if err != nil {
		return []string{err.Error()}
	}
	var out []string
	for _, pf := range orderedFences(ch, files) {
		want := pf.File + "; " + pf.Difficulty()
		n := 0
		for _, it := range listed {
			if !it.matches(pf.Name) {
				continue
			}
			n++
			if it.Paren != want {
				out = append(out, fmt.Sprintf("chapters/%s/doc.go: exercise %s is listed with (%s), want (%s) as its fence says",
					ch.Name, pf.Name, it.Paren, want))
			}
		}
		if n != 1 {
			out = append(out, fmt.Sprintf("chapters/%s/doc.go: exercise %s is listed %d times in \"# Exercises\", want once", ch.Name, pf.Name, n))
		}
	}
	return out
}
