package main

import (
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// mineLabel is the variant label that selects, in an isolation copy, the learner's own code for
// one exercise; every other exercise runs the chapter's solution.
const mineLabel = "mine"

// passAlone finds out which exercises of a learner's workspace fail because of another one.
// When a chapter's exercises build on each other (MergeStep's tests need ByteToRune), a mistake
// in the first fails the tests of both, and the learner should fix the first. For each exercise in
// suspects, it runs that exercise's tests with the learner's code for it and the chapter's
// solution for every other exercise, and returns the names of those whose tests then pass: their
// failures come from elsewhere. It builds one test binary, in a copy under workspace/_status-*.
func passAlone(mod module, ch chapter, files []sourceFile, wsDir string, suspects []placedFence) (map[string]bool, error) {
	tmp, err := os.MkdirTemp(filepath.Join(mod.Root, "workspace"), "_status-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dst := filepath.Join(tmp, ch.Name)
	if err := copyDir(wsDir, dst); err != nil {
		return nil, err
	}
	nameOf, err := packageNames(mod.Root, files)
	if err != nil {
		return nil, err
	}
	pkg := ""
	var names []string
	for _, f := range files {
		wsSrc, err := os.ReadFile(filepath.Join(wsDir, f.Rel))
		if err != nil {
			return nil, err
		}
		out, p, err := mixedSource(f, wsSrc, nameOf)
		if err != nil {
			return nil, err
		}
		pkg = p
		for _, fe := range f.Fences {
			names = append(names, fe.Name)
		}
		if err := os.WriteFile(filepath.Join(dst, f.Rel), out, 0o644); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "zz_exercise_variant.go"), variantFile(pkg, names), 0o644); err != nil {
		return nil, err
	}
	from, err := mod.importPath(wsDir)
	if err != nil {
		return nil, err
	}
	to, err := mod.importPath(dst)
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dst, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := rewriteImports(path, src, from, to)
		if err != nil || bytes.Equal(out, src) {
			return err
		}
		return os.WriteFile(path, out, 0o644)
	})
	if err != nil {
		return nil, err
	}
	run := &runner{root: mod.Root, timeout: defaultTimeout, sem: make(chan struct{}, 1)}
	bin := filepath.Join(tmp, ch.Name+".test")
	out, ok, err := run.run(mod.Root, nil, "go", "test", "-c", "-o", bin, "./"+relSlash(mod.Root, dst))
	if err != nil || !ok {
		return nil, fmt.Errorf("building the isolation copy: %v%s", errOrEmpty(err), lastLines(out, 5))
	}
	alone := map[string]bool{}
	for _, fe := range suspects {
		_, ok, err := run.run(dst, []string{variantEnv + "=" + fe.Name + "=" + mineLabel}, bin,
			"-test.count=1", "-test.timeout="+defaultTimeout.String(), "-test.run="+fe.runPattern())
		if err != nil {
			return nil, err
		}
		alone[fe.Name] = ok
	}
	return alone, nil
}

// mixedSource returns the learner's version wsSrc of the chapter file f with each exercise's code
// turned into a choice, at run time, between the learner's code (label mineLabel) and the
// solution, and with the solution's imports added where the learner's file lacks them (unused
// ones are then commented out). It also returns the file's package name. The learner's file must
// still hold every fence of f, in the same order.
func mixedSource(f sourceFile, wsSrc []byte, nameOf func(string) string) ([]byte, string, error) {
	ws, err := parseFences(f.Rel, wsSrc, false)
	if err != nil {
		return nil, "", err
	}
	if len(ws) != len(f.Fences) {
		return nil, "", fmt.Errorf("%s has %d exercise fences, the chapter's %d", f.Rel, len(ws), len(f.Fences))
	}
	for i := range ws {
		if ws[i].Name != f.Fences[i].Name {
			return nil, "", fmt.Errorf("%s: fence %d is %s, the chapter's %s", f.Rel, i+1, ws[i].Name, f.Fences[i].Name)
		}
	}
	out := replaceBodies(wsSrc, ws, func(i int) ([]string, bool) {
		return f.Fences[i].ifChain([]variant{{Label: mineLabel, Body: ws[i].Body}}), true
	})
	have, err := importPaths(f.Rel, out)
	if err != nil {
		return nil, "", err
	}
	sol, err := parser.ParseFile(token.NewFileSet(), f.Rel, f.Src, parser.ImportsOnly)
	if err != nil {
		return nil, "", err
	}
	var add []string
	for _, is := range sol.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		if slices.Contains(have, p) {
			continue
		}
		spec := is.Path.Value
		if is.Name != nil {
			spec = is.Name.Name + " " + spec
		}
		add = append(add, "import "+spec)
	}
	if len(add) > 0 {
		file, err := parser.ParseFile(token.NewFileSet(), f.Rel, out, parser.PackageClauseOnly)
		if err != nil {
			return nil, "", err
		}
		at := bytes.Index(out, []byte("package "+file.Name.Name))
		if at < 0 {
			return nil, "", fmt.Errorf("%s: no package clause", f.Rel)
		}
		end := at + len("package "+file.Name.Name)
		out = slices.Concat(out[:end], []byte("\n\n"+strings.Join(add, "\n")+"\n"), out[end:])
	}
	out, err = removeUnusedImports(f.Rel, out, nameOf)
	if err != nil {
		return nil, "", err
	}
	file, err := parser.ParseFile(token.NewFileSet(), f.Rel, out, parser.PackageClauseOnly)
	if err != nil {
		return nil, "", err
	}
	return out, file.Name.Name, nil
}
