package main

import (
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A copyKind says what a copy of a chapter holds in place of each exercise's solution.
type copyKind int

const (
	// stubbed: every exercise is a panic, as in a learner's workspace.
	stubbed copyKind = iota
	// allVariants: every exercise is an if-chain over its variants (panic stub, zero-value stub,
	// each listed mistake) chosen at run time by the environment variable EXERCISE_VARIANT, with
	// the solution when it is unset: one test binary serves every run of `exercise check`.
	allVariants
)

// variantEnv is the environment variable that selects the variants in an allVariants copy: a
// comma-separated list of name=label, such as "rope.InvFreq=mistake 2,rope.RotateHead=panic".
const variantEnv = "EXERCISE_VARIANT"

// A module is the Go module the course lives in.
type module struct {
	Root string // absolute directory of go.mod
	Path string // "github.com/qwen3go/qwen3go"
}

// importPath returns the import path of a directory inside the module.
func (m module) importPath(dir string) (string, error) {
	rel, err := filepath.Rel(m.Root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("%s is outside the module at %s", dir, m.Root)
	}
	return m.Path + "/" + filepath.ToSlash(rel), nil
}

// writeCopy copies chapter ch into dst (which must not exist) with its exercises replaced as kind
// says. In the copy, every file that imported the chapter imports the copy instead (the examples
// test the copy), and every test function starts with a deferred catch.Panic so that a panicking
// exercise fails only the tests that reach it. It returns, for allVariants, the variants of each
// fence (with the held-out mistakes held gives it), in the order of files and their fences.
func writeCopy(mod module, ch chapter, files []sourceFile, dst string, kind copyKind, held map[string][]mistake) ([][]variant, error) {
	if err := copyDir(ch.Dir, dst); err != nil {
		return nil, fmt.Errorf("copying %s: %w", ch.Name, err)
	}
	nameOf, err := packageNames(mod.Root, files)
	if err != nil {
		return nil, err
	}
	var all [][]variant
	pkgName := ""
	for _, f := range files {
		var out []byte
		switch kind {
		case stubbed:
			out = replaceBodies(f.Src, f.Fences, func(i int) ([]string, bool) {
				fe := f.Fences[i]
				return []string{fe.Indent + "panic(" + quote(stubMessage(fe.Name)) + ")"}, true
			})
			out, err = removeUnusedImports(f.Rel, out, nameOf)
			if err != nil {
				return nil, err
			}
		case allVariants:
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, f.Rel, f.Src, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			pkgName = file.Name.Name
			zeros, err := zeroBodies(fset, file, f.Src, f.Fences)
			if err != nil {
				return nil, fmt.Errorf("chapters/%s/%s:%w", ch.Name, f.Rel, err)
			}
			chains := make([][]string, len(f.Fences))
			for i, fe := range f.Fences {
				vs, err := fe.variants(zeros[i], held[fe.Name])
				if err != nil {
					return nil, err
				}
				all = append(all, vs)
				chains[i] = fe.ifChain(vs)
			}
			out = replaceBodies(f.Src, f.Fences, func(i int) ([]string, bool) { return chains[i], true })
		}
		if err := os.WriteFile(filepath.Join(dst, f.Rel), out, 0o644); err != nil {
			return nil, err
		}
	}
	if kind == allVariants && pkgName != "" {
		var names []string
		for _, f := range files {
			for _, fe := range f.Fences {
				names = append(names, fe.Name)
			}
		}
		if err := os.WriteFile(filepath.Join(dst, "zz_exercise_variant.go"), variantFile(pkgName, names), 0o644); err != nil {
			return nil, err
		}
	}

	// Every Go file: the chapter's own import path becomes the copy's; tests get catch.Panic.
	from, err := mod.importPath(ch.Dir)
	if err != nil {
		return nil, err
	}
	to, err := mod.importPath(dst)
	if err != nil {
		return nil, err
	}
	catchImport := mod.Path + "/" + catchPath
	err = filepath.WalkDir(dst, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out, err := rewriteImports(path, src, from, to)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, "_test.go") {
			if out, err = insertCatch(path, out, catchImport); err != nil {
				return err
			}
		}
		if string(out) == string(src) {
			return nil
		}
		if formatted, err := format.Source(out); err == nil {
			out = formatted
		}
		return os.WriteFile(path, out, 0o644)
	})
	return all, err
}
