package kernels

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The package's layout is held to its rule by these tests, which read its source: doc.go's
// table of operations against the dispatch tables, the file names against <op>_<isa>_<arch>,
// and the assembly against dead code.

// docRow is one row of doc.go's table.
type docRow struct {
	line                       int
	op, level, file            string
	refFile, refFunc           string // empty on a continuation row
	tests                      []string
	continuation, hasReference bool
}

func readDocTable(t *testing.T) []docRow {
	t.Helper()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var rows []docRow
	in := false
	op := ""
	for i, line := range strings.Split(string(src), "\n") {
		if !in {
			in = strings.HasPrefix(line, "//\toperation") && strings.Contains(line, "kernel file")
			continue
		}
		if !strings.HasPrefix(line, "//\t") {
			break
		}
		body := strings.TrimPrefix(line, "//\t")
		f := strings.Fields(body)
		r := docRow{line: i + 1}
		switch {
		case strings.HasPrefix(body, " ") && len(f) == 2:
			r.op, r.level, r.file, r.continuation = op, f[0], f[1], true
		case !strings.HasPrefix(body, " ") && len(f) >= 6:
			op = f[0]
			r.op, r.level, r.file, r.refFile, r.refFunc, r.tests, r.hasReference = f[0], f[1], f[2], f[3], f[4], f[5:], true
		default:
			t.Fatalf("doc.go:%d: a table row is `operation level file reference-file reference-func tests...` or `  level file`: %q", i+1, line)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatal("doc.go has no table of operations (a line `//\toperation ... kernel file ...` and its rows)")
	}
	return rows
}

// kernelSymbols are the TEXT symbols a form's name names: "tile16x6AVX2 x4" -> tile16x6AVX2,
// "quantizeActAVX2+splitActVNNI" -> both, "dotF32N{8,4,2}AVX2" -> dotF32N8AVX2, ...N4.., ...N2...
func kernelSymbols(name string) []string {
	var syms []string
	for _, part := range strings.Split(strings.Fields(name)[0], "+") {
		if i, j := strings.Index(part, "{"), strings.Index(part, "}"); i >= 0 && j > i {
			for _, v := range strings.Split(part[i+1:j], ",") {
				syms = append(syms, part[:i]+v+part[j+1:])
			}
			continue
		}
		syms = append(syms, part)
	}
	return syms
}

// textSymbols maps each TEXT symbol of the package's assembly to its file.
func textSymbols(t *testing.T) map[string]string {
	t.Helper()
	files, _ := filepath.Glob("*.s")
	text := regexp.MustCompile(`(?m)^TEXT ·(\w+)\(SB\)`)
	syms := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range text.FindAllStringSubmatch(string(src), -1) {
			syms[m[1]] = f
		}
	}
	return syms
}

// TestDocTable: doc.go's table names, for this architecture, exactly the operations and levels
// that have a form of their own in the dispatch tables, each with the file that holds its kernels
// (every TEXT symbol the form calls is in it, or in a lower level's row of the operation: the
// rest of a chain); every kernel file of every architecture appears in
// it; every plain Go reference is a function of the file named, every test a test of the package.
// (Red, for instance, when a table gains a form the doc does not list, or a kernel moves file.)
func TestDocTable(t *testing.T) {
	rows := readDocTable(t)
	syms := textSymbols(t)

	// what the package declares: functions per file, and tests
	fset := token.NewFileSet()
	funcs := map[string][]string{}
	tests := map[string]bool{}
	goFiles, _ := filepath.Glob("*.go")
	for _, f := range goFiles {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				funcs[f] = append(funcs[f], fd.Name.Name)
				if strings.HasSuffix(f, "_test.go") && strings.HasPrefix(fd.Name.Name, "Test") {
					tests[fd.Name.Name] = true
				}
			}
		}
	}

	listed := map[string]bool{}
	inDoc := map[[2]string]docRow{}
	for _, r := range rows {
		listed[r.file] = true
		if _, err := os.Stat(r.file); err != nil {
			t.Errorf("doc.go:%d: %s: no such file", r.line, r.file)
		}
		inDoc[[2]string{r.op, r.level}] = r
		if !r.hasReference {
			continue
		}
		if !slices.Contains(funcs[r.refFile], r.refFunc) {
			t.Errorf("doc.go:%d: the reference of %s, %s, is not a function of %s", r.line, r.op, r.refFunc, r.refFile)
		}
		for _, name := range r.tests {
			if !tests[name] {
				t.Errorf("doc.go:%d: %s names the test %s, which the package does not have", r.line, r.op, name)
			}
		}
	}
	sFiles, _ := filepath.Glob("*.s")
	for _, f := range sFiles {
		if !listed[f] && !infrastructure(f) {
			t.Errorf("%s is not in doc.go's table", f)
		}
	}

	// this architecture's rows against its tables
	isLevel := func(s string) (Level, bool) {
		for l := range Level(numLevels) {
			if l.String() == s {
				return l, true
			}
		}
		return 0, false
	}
	for _, o := range ops {
		for l := Generic + 1; l < Level(numLevels); l++ {
			key := [2]string{o.name(), l.String()}
			r, ok := inDoc[key]
			switch {
			case o.own(l) && !ok:
				t.Errorf("doc.go's table has no row for %s at %v (kernels %v)", o.name(), l, o.kernels(l))
			case !o.own(l) && ok:
				t.Errorf("doc.go:%d: %s has no form of its own at %v", r.line, o.name(), l)
			case ok:
				// each kernel is in the row's file, or in a lower level's row's (a chain's rest)
				for _, k := range o.kernels(l) {
					for _, s := range kernelSymbols(k) {
						found := syms[s] == r.file
						for lower := Generic + 1; lower < l && !found; lower++ {
							found = inDoc[[2]string{o.name(), lower.String()}].file == syms[s] && syms[s] != ""
						}
						if !found {
							t.Errorf("doc.go:%d: %s at %v calls %s, which is in %q, not %s", r.line, o.name(), l, s, syms[s], r.file)
						}
					}
				}
			}
		}
	}
	names := map[string]bool{}
	for _, o := range ops {
		names[o.name()] = true
	}
	for _, r := range rows {
		if _, ok := isLevel(r.level); ok && !names[r.op] {
			t.Errorf("doc.go:%d: %s is no operation of the dispatch (ops.go)", r.line, r.op)
		}
	}
	t.Logf("%d rows; %d operations on %s", len(rows), len(ops), runtime.GOARCH)
}

// infrastructure reports the assembly that is no kernel: CPU detection and the dispatch's hide.
func infrastructure(file string) bool {
	return strings.HasPrefix(file, "cpu_") || strings.HasPrefix(file, "dispatch_")
}

// TestFileNames: every assembly file is <op>_<isa>_<arch>.s, op one of the portable files'
// (op.go), isa a level of arch, with its prototypes in <op>_<isa>_<arch>.go beside it; headers are
// <op>_<arch>.h. (Red for a file named by another rule, as quantdot_vnni_amd64.s was.)
func TestFileNames(t *testing.T) {
	isas := map[string][]string{"amd64": {"avx2", "avx512", "avx512vnni"}, "arm64": {"neon", "dotprod"}}
	name := regexp.MustCompile(`^([a-z]+)_([a-z0-9]+)_(amd64|arm64)\.s$`)
	sFiles, _ := filepath.Glob("*.s")
	for _, f := range sFiles {
		if infrastructure(f) {
			continue
		}
		m := name.FindStringSubmatch(f)
		switch {
		case m == nil:
			t.Errorf("%s: not <op>_<isa>_<arch>.s", f)
			continue
		case !slices.Contains(isas[m[3]], m[2]):
			t.Errorf("%s: %s is no level of %s (%v)", f, m[2], m[3], isas[m[3]])
		}
		if _, err := os.Stat(m[1] + ".go"); err != nil {
			t.Errorf("%s: its operation has no portable file %s.go", f, m[1])
		}
		if _, err := os.Stat(strings.TrimSuffix(f, ".s") + ".go"); err != nil {
			t.Errorf("%s: its prototypes are not beside it in %s.go", f, strings.TrimSuffix(f, ".s"))
		}
	}
	hFiles, _ := filepath.Glob("*.h")
	for _, f := range hFiles {
		if m := regexp.MustCompile(`^([a-z]+)_(amd64|arm64)\.h$`).FindStringSubmatch(f); m == nil {
			t.Errorf("%s: not <op>_<arch>.h", f)
		} else if _, err := os.Stat(m[1] + ".go"); err != nil {
			t.Errorf("%s: its operation has no portable file %s.go", f, m[1])
		}
	}
}

// TestTablesWellFormed: every dispatch table's forms are named and their steps powers of two
// (the executors split with masks), batched chains take whole rows, and every operation is in
// ops once. (Red for a form with a step of 24, or an operation registered twice.)
func TestTablesWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range ops {
		if seen[o.name()] {
			t.Errorf("%s is registered twice", o.name())
		}
		seen[o.name()] = true
		if err := o.check(); err != nil {
			t.Error(err)
		}
	}
}
