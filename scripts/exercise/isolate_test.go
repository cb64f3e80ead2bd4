package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestMixedSource(t *testing.T) {
	sol := `package p

import (
	"math"
	"strings"
)

func A(x float64) float64 {
	// exercise: p.A — square root
	// tests: TestA
	// difficulty: easy, 5 min
	return math.Sqrt(x)
	// mistake: square
	//	- return math.Sqrt(x)
	//	+ return x * x
	// end exercise
}

func B(s string) string {
	// exercise: p.B — upper case
	// tests: TestB
	// difficulty: easy, 5 min
	return strings.ToUpper(s)
	// end exercise
}
`
	// The learner's file: A written with a helper of their own and without math, B still the
	// stub of a workspace made before fences had a difficulty line.
	ws := `package p

import (
	// "math" // the solution used it: uncomment it when your code does
	"strings"
)

func A(x float64) float64 {
	// exercise: p.A — square root
	// tests: TestA
	// difficulty: easy, 5 min
	return mine(x)
	// end exercise
}

func mine(x float64) float64 { return x / 2 }

func B(s string) string {
	// exercise: p.B — upper case
	// tests: TestB
	panic("exercise p.B: not implemented")
	// end exercise
}

var _ = strings.ToLower
`
	fences, err := findFences("p.go", []byte(sol))
	if err != nil {
		t.Fatal(err)
	}
	out, pkg, err := mixedSource(sourceFile{Rel: "p.go", Src: []byte(sol), Fences: fences}, []byte(ws), func(p string) string { return p })
	if err != nil {
		t.Fatal(err)
	}
	if pkg != "p" {
		t.Errorf("package %q, want p", pkg)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Fatalf("the mixed source does not parse: %v\n%s", err, out)
	}
	for _, want := range []string{
		"import \"math\"",
		"if exerciseVariant_p_A == \"mine\" {\n\t\treturn mine(x)\n\t} else {\n\t\treturn math.Sqrt(x)\n\t}",
		"if exerciseVariant_p_B == \"mine\" {\n\t\tpanic(\"exercise p.B: not implemented\")\n\t} else {\n\t\treturn strings.ToUpper(s)\n\t}",
		"func mine(x float64) float64",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the mixed source lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "x * x") {
		t.Error("the mixed source holds a listed mistake")
	}

	// A learner who removed a fence cannot be isolated: an error, not a wrong answer.
	noB := strings.Replace(ws, "// exercise: p.B", "// (exercise removed)", 1)
	if _, _, err := mixedSource(sourceFile{Rel: "p.go", Src: []byte(sol), Fences: fences}, []byte(noB), func(p string) string { return p }); err == nil {
		t.Error("a workspace file without one of the fences: no error")
	}
}
