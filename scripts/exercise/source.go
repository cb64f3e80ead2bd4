package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/format"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// catchPath is the import path, below the module's, of the package whose deferred calls keep a
// panicking exercise from killing the whole test binary.
const catchPath = "scripts/exercise/catch"

// importNote follows an import line that stubbing left unused and commented out.
const importNote = "// the solution used it: uncomment it when your code does"

// removeUnusedImports comments out the import lines of src whose package is no longer referenced
// (stubbing an exercise can remove the only use of, say, "math"), with importNote after them. nameOf gives the package name
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
		dropped := false
		for _, r := range drop {
			if n >= r.from && n <= r.to {
				dropped = true
				break
			}
		}
		if !dropped {
			out = append(out, line)
			continue
		}
		// Commented out rather than deleted, so that a learner sees which import the solution
		// needed: an unused import would not compile, a missing one is easy to miss.
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		text := bytes.TrimSpace(line)
		out = append(out, []byte(fmt.Sprintf("%s// %s %s", indent, text, importNote)))
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

// An edit replaces src[From:To] by Text.
type edit struct {
	From, To int
	Text     string
}

// applyEdits applies non-overlapping edits to src.
func applyEdits(src []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].From > edits[j].From })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.From], append([]byte(e.Text), out[e.To:]...)...)
	}
	return out
}

// rewriteImports makes a copy's files import the copy: every import path equal to from, or below
// it, is moved to to. A workspace's examples then test the learner's package, not the chapter.
func rewriteImports(file string, src []byte, from, to string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var edits []edit
	for _, is := range f.Imports {
		p, err := strconv.Unquote(is.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: bad import path %s", file, is.Path.Value)
		}
		if p == from || strings.HasPrefix(p, from+"/") {
			edits = append(edits, edit{
				From: fset.Position(is.Path.Pos()).Offset,
				To:   fset.Position(is.Path.End()).Offset,
				Text: strconv.Quote(to + strings.TrimPrefix(p, from)),
			})
		}
	}
	return applyEdits(src, edits), nil
}

// insertCatch starts every test, benchmark, fuzz target and subtest function of a test file with
// `defer catch.Panic(t)`, and every example with `defer catch.ExamplePanic()`, and imports the
// package catch (at importPath). Then a panic (an unwritten exercise's stub) fails the test that
// reached it, not the whole binary. The result is gofmt'ed.
func insertCatch(file string, src []byte, importPath string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var edits []edit
	at := func(body *ast.BlockStmt, stmt string) {
		off := fset.Position(body.Lbrace).Offset + 1
		edits = append(edits, edit{From: off, To: off, Text: stmt + ";"})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch fn := n.(type) {
		case *ast.FuncDecl:
			if fn.Body == nil || fn.Recv != nil {
				return true
			}
			name := fn.Name.Name
			switch {
			case strings.HasPrefix(name, "Example") && len(fn.Type.Params.List) == 0:
				at(fn.Body, "defer catch.ExamplePanic()")
			case strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Benchmark") || strings.HasPrefix(name, "Fuzz"):
				if p := testingParam(fn.Type); p != "" {
					at(fn.Body, "defer catch.Panic("+p+")")
				}
			}
		case *ast.FuncLit:
			if p := testingParam(fn.Type); p != "" {
				at(fn.Body, "defer catch.Panic("+p+")")
			}
		}
		return true
	})
	if len(edits) == 0 {
		return src, nil
	}
	imp := strconv.Quote(importPath) + " // added by scripts/exercise, with every deferred catch.Panic"
	var decl *ast.GenDecl
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT && g.Lparen.IsValid() {
			decl = g
			break
		}
	}
	if decl != nil {
		off := fset.Position(decl.Rparen).Offset
		edits = append(edits, edit{From: off, To: off, Text: "\n" + imp + "\n"})
	} else {
		off := fset.Position(f.Name.End()).Offset
		edits = append(edits, edit{From: off, To: off, Text: "\n\nimport " + imp + "\n"})
	}
	out, err := format.Source(applyEdits(src, edits))
	if err != nil {
		return nil, fmt.Errorf("%s: after adding the catch.Panic calls: %w", file, err)
	}
	return out, nil
}

// testingParam returns the name of the first parameter of a function if its type is *testing.T,
// *testing.B or *testing.F, and "" otherwise (or when it is unnamed or _).
func testingParam(typ *ast.FuncType) string {
	if typ.Params == nil || len(typ.Params.List) == 0 {
		return ""
	}
	p := typ.Params.List[0]
	star, ok := p.Type.(*ast.StarExpr)
	if !ok || len(p.Names) == 0 || p.Names[0].Name == "_" {
		return ""
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "testing" || (sel.Sel.Name != "T" && sel.Sel.Name != "B" && sel.Sel.Name != "F") {
		return ""
	}
	return p.Names[0].Name
}

// topLevelTests returns the names of the Test, Example and Fuzz functions of a test file, and
// those of its examples that go test compiles but never runs because they have no output comment
// (often an "// Output:" glued to the comment above it, which then does not start a comment).
func topLevelTests(file string, src []byte) (names, silent []string, err error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && testNameRE.MatchString(fn.Name.Name) {
			names = append(names, fn.Name.Name)
		}
	}
	for _, ex := range doc.Examples(f) {
		if ex.Output == "" && !ex.EmptyOutput {
			silent = append(silent, "Example"+ex.Name)
		}
	}
	return names, silent, nil
}

// nodeString prints a syntax node as Go source.
func nodeString(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	if err := format.Node(&b, fset, n); err != nil {
		return fmt.Sprintf("/* %v */", err)
	}
	return b.String()
}

// quote writes s as a Go string literal.
func quote(s string) string { return strconv.Quote(s) }
