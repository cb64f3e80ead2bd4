package main

import (
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

const fencedSrc = `package p

import "math"

func A(x float64) float64 {
	// exercise: p.A — the square root, plus one
	// tests: TestA, ExampleA
	// difficulty: easy, 5 min
	r := math.Sqrt(x)
	return r + 1
	// mistake: the square, not the root
	//	- r := math.Sqrt(x)
	//	+ r := x * x
	//
	// mistake: forgot the one
	//	- return r + 1
	//	+ return r
	// end exercise
}

func B(dst []float64) {
		// exercise: p.B -- two-dash separator
		// tests: TestB
		// difficulty: hard, 45 min
		for i := range dst {
			dst[i] = 1
		}
		// mistake: a different body altogether
		//	+ dst[0] = 1
		// end exercise
}
`

func TestFindFences(t *testing.T) {
	got, err := findFences("p.go", []byte(fencedSrc))
	if err != nil {
		t.Fatal(err)
	}
	want := []fence{
		{Name: "p.A", Desc: "the square root, plus one", Tests: []string{"TestA", "ExampleA"}, Level: "easy", Minutes: 5, Begin: 6, Head: 8, End: 18, Indent: "\t",
			Body: []string{"\tr := math.Sqrt(x)", "\treturn r + 1"}, BodyLine: 9,
			Mistakes: []mistake{
				{Desc: "the square, not the root", Line: 11, Hunks: []hunk{{Old: []string{"r := math.Sqrt(x)"}, New: []string{"r := x * x"}}}},
				{Desc: "forgot the one", Line: 15, Hunks: []hunk{{Old: []string{"return r + 1"}, New: []string{"return r"}}}},
			}},
		{Name: "p.B", Desc: "two-dash separator", Tests: []string{"TestB"}, Level: "hard", Minutes: 45, Begin: 22, Head: 24, End: 30, Indent: "\t\t",
			Body: []string{"\t\tfor i := range dst {", "\t\t\tdst[i] = 1", "\t\t}"}, BodyLine: 25,
			Mistakes: []mistake{{Desc: "a different body altogether", Line: 28, Hunks: []hunk{{New: []string{"dst[0] = 1"}}}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findFences:\n got %+v\nwant %+v", got, want)
	}
}

func TestApplyMistakes(t *testing.T) {
	fences, err := findFences("p.go", []byte(fencedSrc))
	if err != nil {
		t.Fatal(err)
	}
	a, b := fences[0], fences[1]
	cases := []struct {
		f    fence
		m    int
		want []string
	}{
		{a, 0, []string{"\tr := x * x", "\treturn r + 1"}},
		{a, 1, []string{"\tr := math.Sqrt(x)", "\treturn r"}},
		{b, 0, []string{"\t\tdst[0] = 1"}},
	}
	for _, c := range cases {
		got, err := c.f.apply(c.f.Mistakes[c.m])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s mistake %d: %q, want %q", c.f.Name, c.m+1, got, c.want)
		}
	}
	// Several hunks in one mistake, and a hunk that replaces two lines by one.
	f := fence{Name: "p.C", Indent: "\t", Body: []string{"\tx := 1", "\ty := 2", "\tz := 3", "\treturn x + y + z"}}
	got, err := f.apply(mistake{Hunks: []hunk{
		{Old: []string{"x := 1", "y := 2"}, New: []string{"x, y := 2, 1"}},
		{Old: []string{"return x + y + z"}, New: []string{"return x - y", "\t// (an indented comment)"}},
	}})
	want := []string{"\tx, y := 2, 1", "\tz := 3", "\treturn x - y", "\t\t// (an indented comment)"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("two hunks: %q, %v; want %q", got, err, want)
	}
}

func TestFindFencesErrors(t *testing.T) {
	const head = "// exercise: p.A — x\n// tests: TestA\n// difficulty: easy, 5 min\n"
	cases := []struct {
		name, src, wantErr string
	}{
		{"unclosed", "package p\n" + head + "x := 1\n", "p.go:2: exercise p.A is never closed"},
		{"end without begin", "package p\n// end exercise\n", "p.go:2: \"// end exercise\" without a matching"},
		{"nested", head + "a\n// exercise: p.B\nb\n// end exercise\n// end exercise\n", "p.go:5: exercise fence opened inside the fence of p.A"},
		{"no name", "// exercise:\na\n// end exercise\n", "p.go:1: exercise fence without a name"},
		{"no tests line", "// exercise: p.A — x\na\n// end exercise\n", "p.go:2: exercise p.A: the line after \"// exercise:\" must be \"// tests: TestX ExampleY\""},
		{"empty tests line", "// exercise: p.A — x\n// tests:\na\n// end exercise\n", "p.go:2: exercise p.A: \"// tests:\" names no test"},
		{"not a test name", "// exercise: p.A — x\n// tests: helper\na\n// end exercise\n", `"helper" is not the name of a Test`},
		{"no difficulty line", "// exercise: p.A — x\n// tests: TestA\na\n// end exercise\n", "p.go:3: exercise p.A: the line after \"// tests:\" must be \"// difficulty: medium, 20 min\""},
		{"unknown level", "// exercise: p.A — x\n// tests: TestA\n// difficulty: tricky, 5 min\na\n// end exercise\n", "p.go:3: exercise p.A: the line after"},
		{"no minutes", "// exercise: p.A — x\n// tests: TestA\n// difficulty: easy\na\n// end exercise\n", "p.go:3: exercise p.A: the line after"},
		{"zero minutes", "// exercise: p.A — x\n// tests: TestA\n// difficulty: easy, 0 min\na\n// end exercise\n", "p.go:3: exercise p.A: 0 minutes"},
		{"empty", head + "// end exercise\n", "p.go:1: exercise p.A fences no solution lines"},
		{"mistake without lines", head + "a\n// mistake: oops\n// end exercise\n", "p.go:5: mistake \"oops\" of p.A has no"},
		{"mistake without a description", head + "a\n// mistake:\n//\t+ b\n// end exercise\n", "p.go:5: a mistake of p.A without a description"},
		{"stray line among mistakes", head + "a\n// mistake: oops\n//\t- a\n//\t+ b\nc\n// end exercise\n", "p.go:8: in the mistakes of p.A"},
		{"old line not in the solution", head + "a\n// mistake: oops\n//\t- z\n//\t+ b\n// end exercise\n", `p.go:5: mistake "oops" of p.A: "z" is not a solution line`},
		{"old line ambiguous", head + "}\n}\n// mistake: oops\n//\t- }\n//\t+ b\n// end exercise\n", `"}" matches 2 places of the solution`},
		{"two hunks", head + "a\nb\n// mistake: oops\n//\t- a\n//\t+ x\n//\t+ y\n//\t- b\n//\t+ z\n// end exercise\n", ""},
		{"two deletions split by //", head + "a\nb\nc\n// mistake: oops\n//\t- a\n//\n//\t- c\n// end exercise\n", ""},
		{"two deletions not split", head + "a\nb\nc\n// mistake: oops\n//\t- a\n//\t- c\n// end exercise\n", `"a" is not a solution line (or the lines are not consecutive)`},
		{"a hunk of + lines after another", head + "a\nb\n// mistake: oops\n//\t- a\n//\t+ x\n//\n//\t+ y\n// end exercise\n", "hunk 2 has only"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := findFences("p.go", []byte(c.src))
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.wantErr)
			}
			if !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("error %q, want one containing %q", err, c.wantErr)
			}
		})
	}
}

func TestFindFencesIgnoresLookalikes(t *testing.T) {
	// A doc comment that shows a fence as indented code is not a fence, and neither is a line
	// that merely mentions the marker.
	src := "// Package p.\n//\n//\t// exercise: p.A — shown in docs\n//\t// end exercise\npackage p\n\nvar s = \"// exercise: p.B\"\n"
	got, err := findFences("p.go", []byte(src))
	if err != nil || len(got) != 0 {
		t.Fatalf("findFences = %+v, %v; want no fences and no error", got, err)
	}
}

func TestZeroBodies(t *testing.T) {
	src := `package p

type T struct{}

func A() (int, *T, []byte, [4]rune, T, error, string, bool) {
	// exercise: p.A — ends its function
	// tests: TestA
	// difficulty: easy, 5 min
	return 1, nil, nil, [4]rune{}, T{}, nil, "", true
	// end exercise
}

func B(x []float64) []float64 {
	// exercise: p.B — code follows
	// tests: TestB
	// difficulty: easy, 5 min
	x[0] = 1
	// end exercise
	return x
}

func C() (n, m int) {
	f := func() {
		// exercise: p.C — in a closure without results
		// tests: TestC
		// difficulty: easy, 5 min
		n = 1
		// end exercise
	}
	f()
	if n > 0 {
		// exercise: p.D — nested, but only braces follow
		// tests: TestD
		// difficulty: easy, 5 min
		return 1, 2
		// end exercise
	}
}
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	fences, err := findFences("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, err := zeroBodies(fset, file, []byte(src), fences)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"\treturn 0, nil, nil, [4]rune{}, *new(T), nil, \"\", false"},
		nil,
		nil,
		{"\t\treturn 0, 0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("zeroBodies = %q, want %q", got, want)
	}
}

func TestReplaceBodiesAndIfChain(t *testing.T) {
	fences, err := findFences("p.go", []byte(fencedSrc))
	if err != nil {
		t.Fatal(err)
	}
	a := fences[0]
	vs, err := a.variants([]string{"\treturn 0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.ID)
	}
	if want := []string{"p.A=panic", "p.A=zero", "p.A=mistake 1", "p.A=mistake 2"}; !reflect.DeepEqual(labels, want) {
		t.Fatalf("variants %q, want %q", labels, want)
	}
	out := string(replaceBodies([]byte(fencedSrc), fences, func(i int) ([]string, bool) {
		if i == 0 {
			return a.ifChain(vs), true
		}
		return nil, false
	}))
	want := `func A(x float64) float64 {
	// exercise: p.A — the square root, plus one
	// tests: TestA, ExampleA
	// difficulty: easy, 5 min
	if exerciseVariant_p_A == "panic" {
		panic("exercise p.A: not implemented")
	} else if exerciseVariant_p_A == "zero" {
		return 0
	} else if exerciseVariant_p_A == "mistake 1" {
		r := x * x
		return r + 1
	} else if exerciseVariant_p_A == "mistake 2" {
		r := math.Sqrt(x)
		return r
	} else {
		r := math.Sqrt(x)
		return r + 1
	}
	// end exercise
}
`
	if !strings.Contains(out, want) {
		t.Errorf("if-chain:\n%s\nwant it to contain:\n%s", out, want)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
		t.Errorf("the if-chain does not parse: %v", err)
	}
}

func TestParseBeginLine(t *testing.T) {
	cases := []struct{ in, name, desc string }{
		{" rope.InvFreq — theta^(-2i/d)", "rope.InvFreq", "theta^(-2i/d)"},
		{" mlp.SiLU - z times sigmoid(z)", "mlp.SiLU", "z times sigmoid(z)"},
		{" gguf.File.Uint32", "gguf.File.Uint32", ""},
		{"   ", "", ""},
	}
	for _, c := range cases {
		name, desc := parseBeginLine(c.in)
		if name != c.name || desc != c.desc {
			t.Errorf("parseBeginLine(%q) = %q, %q; want %q, %q", c.in, name, desc, c.name, c.desc)
		}
	}
}
