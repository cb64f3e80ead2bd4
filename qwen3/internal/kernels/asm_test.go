package kernels

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// asmSource is one assembly file or header: its macros (name -> body) and the text outside them.
type asmSource struct {
	macros   map[string]string
	order    []string // macro names in the order defined
	body     string
	includes []string
}

var (
	asmComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	asmDefine  = regexp.MustCompile(`^#define\s+(\w+)(.*)$`)
	asmInclude = regexp.MustCompile(`^#include\s+"([^"]+)"`)
)

func readAsm(t *testing.T, name string) asmSource {
	t.Helper()
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := asmSource{macros: map[string]string{}}
	var body strings.Builder
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := asmInclude.FindStringSubmatch(line); m != nil {
			s.includes = append(s.includes, m[1])
			continue
		}
		m := asmDefine.FindStringSubmatch(line)
		if m == nil {
			body.WriteString(line + "\n")
			continue
		}
		def := m[2]
		for strings.HasSuffix(strings.TrimSpace(line), `\`) && i+1 < len(lines) {
			i++
			line = lines[i]
			def += "\n" + line
		}
		s.macros[m[1]] = asmComment.ReplaceAllString(def, "")
		s.order = append(s.order, m[1])
	}
	s.body = asmComment.ReplaceAllString(body.String(), "")
	return s
}

// TestNoDeadAssembly: every macro of the assembly is used by a kernel (directly or through other
// macros that are), every TEXT symbol is called from the package's Go code, and every prototype
// has its TEXT symbol (go vet checks the frames, not that a symbol is used). Red for a macro no
// kernel expands, as ZSCALES8 of the batched VNNI kernels was, or a kernel nothing calls.
func TestNoDeadAssembly(t *testing.T) {
	files, _ := filepath.Glob("*.s")
	headers := map[string]asmSource{}
	liveInHeader := map[string]map[string]bool{}
	for _, f := range files {
		s := readAsm(t, f)
		visible := map[string]string{} // macro -> where defined
		all := map[string]string{}
		for _, inc := range s.includes {
			if inc == "textflag.h" || inc == "go_asm.h" {
				continue
			}
			h, ok := headers[inc]
			if !ok {
				h = readAsm(t, inc)
				headers[inc], liveInHeader[inc] = h, map[string]bool{}
			}
			for name, def := range h.macros {
				visible[name], all[name] = inc, def
			}
		}
		for name, def := range s.macros {
			visible[name], all[name] = f, def
		}
		// the live macros: those the text outside macros names, and those live macros name
		live := map[string]bool{}
		todo := []string{s.body}
		for len(todo) > 0 {
			text := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			for name, def := range all {
				if !live[name] && regexp.MustCompile(`\b`+name+`\b`).MatchString(text) {
					live[name] = true
					todo = append(todo, def)
				}
			}
		}
		for _, name := range s.order {
			if !live[name] {
				t.Errorf("%s: the macro %s is used by no kernel", f, name)
			}
		}
		for name := range live {
			if h := visible[name]; h != f {
				liveInHeader[h][name] = true
			}
		}
	}
	for h, s := range headers {
		for _, name := range s.order {
			if !liveInHeader[h][name] {
				t.Errorf("%s: the macro %s is used by no kernel of the files that include it", h, name)
			}
		}
	}

	// TEXT symbols against the Go code that calls them (prototypes are declarations, not calls;
	// every architecture's files are read, whatever this one is)
	syms := textSymbols(t)
	used := map[string]bool{}
	declared := map[string]bool{}
	fset := token.NewFileSet()
	goFiles, _ := filepath.Glob("*.go")
	for _, f := range goFiles {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body == nil {
				declared[fd.Name.Name] = true
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Body == nil {
				return false // a prototype
			}
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
	}
	names := make([]string, 0, len(syms))
	for s := range syms {
		names = append(names, s)
	}
	slices.Sort(names)
	for _, s := range names {
		if !used[s] {
			t.Errorf("%s: TEXT %s is called from no Go code of the package", syms[s], s)
		}
	}
	for d := range declared {
		if _, ok := syms[d]; !ok {
			t.Errorf("the prototype %s has no TEXT symbol in this directory", d)
		}
	}
}
