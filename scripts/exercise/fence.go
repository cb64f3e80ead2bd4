package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// A fence marks solution lines that a learner is asked to write:
//
//	// exercise: rope.RotateHead — rotate each (v[i], v[i+half]) pair
//	... solution lines ...
//	// end exercise
//
// Lines are 1-based; Begin is the `// exercise:` line and End the `// end exercise` line.
type fence struct {
	Name   string // "rope.RotateHead"
	Desc   string // "rotate each (v[i], v[i+half]) pair"
	Begin  int
	End    int
	Indent string // leading white space of the `// exercise:` line
}

const (
	beginMarker = "// exercise:"
	endMarker   = "// end exercise"
)

// findFences returns the fences of one Go source file, in order. The file name is only used in
// errors. A fence must be closed, must not nest, must name its exercise and must hold at least one
// line.
func findFences(file string, src []byte) ([]fence, error) {
	var fences []fence
	var open *fence
	for i, line := range strings.Split(string(src), "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, beginMarker):
			if open != nil {
				return nil, fmt.Errorf("%s:%d: exercise fence opened inside the fence of %s opened at line %d (fences do not nest; close it with %q first)",
					file, n, open.Name, open.Begin, endMarker)
			}
			name, desc := parseBeginLine(strings.TrimPrefix(trimmed, beginMarker))
			if name == "" {
				return nil, fmt.Errorf("%s:%d: exercise fence without a name (want %q)", file, n, "// exercise: pkg.Func — description")
			}
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			open = &fence{Name: name, Desc: desc, Begin: n, Indent: indent}
		case trimmed == endMarker:
			if open == nil {
				return nil, fmt.Errorf("%s:%d: %q without a matching %q line above it", file, n, endMarker, beginMarker)
			}
			if n == open.Begin+1 {
				return nil, fmt.Errorf("%s:%d: exercise %s fences no lines", file, open.Begin, open.Name)
			}
			open.End = n
			fences = append(fences, *open)
			open = nil
		}
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: exercise %s is never closed (add a %q line after its solution)", file, open.Begin, open.Name, endMarker)
	}
	return fences, nil
}

// parseBeginLine splits " rope.RotateHead — rotate each pair" into its name and description.
// The separator may be an em dash, "--", "-" or ":".
func parseBeginLine(rest string) (name, desc string) {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", ""
	}
	name = fields[0]
	desc = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), name))
	desc = strings.TrimSpace(strings.TrimLeft(desc, "—–-:"))
	return name, desc
}

// stubMessage is what a stubbed exercise panics with.
func stubMessage(name string) string { return "exercise " + name + ": not implemented" }

// stub replaces the solution lines of the fences for which keep returns false by a panic, keeping
// both marker lines so the learner sees the task and where the code goes:
//
//	// exercise: rope.RotateHead — rotate each (v[i], v[i+half]) pair
//	panic("exercise rope.RotateHead: not implemented")
//	// end exercise
//
// fences must come from findFences(src). Imports that only the solution used are removed
// afterwards by removeUnusedImports.
func stub(src []byte, fences []fence, stubbed func(i int) bool) []byte {
	lines := strings.Split(string(src), "\n")
	var out []string
	next := 1 // next source line (1-based) to copy
	for i, f := range fences {
		if !stubbed(i) {
			continue
		}
		out = append(out, lines[next-1:f.Begin]...) // up to and including the `// exercise:` line
		out = append(out, f.Indent+"panic("+strconv.Quote(stubMessage(f.Name))+")")
		next = f.End // resume at the `// end exercise` line
	}
	out = append(out, lines[next-1:]...)
	return []byte(strings.Join(out, "\n"))
}

// removeUnusedImports deletes the import lines of src whose package is no longer referenced
// (stubbing an exercise can remove the only use of, say, "math"). nameOf gives the package name
// declared by an import path (it differs from the last path element for "…/chapters/03_rmsnorm").
// Blank and dot imports are kept. When lines were removed the file is gofmt'ed again.
func removeUnusedImports(file string, src []byte, nameOf func(path string) string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("parsing %s after stubbing: %w", file, err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})

	type lineRange struct{ from, to int } // 1-based, inclusive
	var drop []lineRange
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.IMPORT {
			continue
		}
		for _, spec := range gen.Specs {
			is := spec.(*ast.ImportSpec)
			path, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: bad import path %s", file, is.Path.Value)
			}
			name := ""
			if is.Name != nil {
				name = is.Name.Name
			} else {
				name = nameOf(path)
			}
			if name == "_" || name == "." || name == "" || used[name] {
				continue
			}
			node := ast.Node(is)
			if !gen.Lparen.IsValid() { // `import "math"` on its own: drop the whole declaration
				node = gen
			}
			drop = append(drop, lineRange{fset.Position(node.Pos()).Line, fset.Position(node.End()).Line})
		}
	}
	if len(drop) == 0 {
		return src, nil
	}
	sort.Slice(drop, func(i, j int) bool { return drop[i].from < drop[j].from })
	lines := bytes.Split(src, []byte("\n"))
	var out [][]byte
	for i, line := range lines {
		n := i + 1
		skip := false
		for _, r := range drop {
			if n >= r.from && n <= r.to {
				skip = true
				break
			}
		}
		if !skip {
			out = append(out, line)
		}
	}
	result := bytes.Join(out, []byte("\n"))
	if formatted, err := format.Source(result); err == nil {
		result = formatted // tidy the blank lines left behind
	}
	return result, nil
}

// importPaths lists the import paths of a Go source file.
func importPaths(file string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: bad import path %s", file, is.Path.Value)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
