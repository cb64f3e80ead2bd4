package main

import (
	"strings"
	"testing"
)

func TestFindFences(t *testing.T) {
	src := `package p

func A() int {
	// exercise: p.A — return the answer
	x := 41
	return x + 1
	// end exercise
}

func B() {
		// exercise: p.B -- two-dash separator
		println()
		// end exercise
}
`
	got, err := findFences("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []fence{
		{Name: "p.A", Desc: "return the answer", Begin: 4, End: 7, Indent: "\t"},
		{Name: "p.B", Desc: "two-dash separator", Begin: 11, End: 13, Indent: "\t\t"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d fences %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fence %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestFindFencesErrors(t *testing.T) {
	cases := []struct {
		name, src, wantErr string
	}{
		{"unclosed", "package p\n// exercise: p.A — x\nx := 1\n", "p.go:2: exercise p.A is never closed"},
		{"end without begin", "package p\n// end exercise\n", "p.go:2: \"// end exercise\" without a matching"},
		{"nested", "// exercise: p.A\na\n// exercise: p.B\nb\n// end exercise\n// end exercise\n", "p.go:3: exercise fence opened inside the fence of p.A"},
		{"no name", "// exercise:\na\n// end exercise\n", "p.go:1: exercise fence without a name"},
		{"empty", "// exercise: p.A — x\n// end exercise\n", "p.go:1: exercise p.A fences no lines"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := findFences("p.go", []byte(c.src))
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

func TestStub(t *testing.T) {
	src := `package p

import (
	"fmt"
	"math"
	"strings"
)

func A(x float64) float64 {
	// exercise: p.A — square root
	return math.Sqrt(x)
	// end exercise
}

func B(s string) string {
	// exercise: p.B — upper case
	u := strings.ToUpper(s)
	return u
	// end exercise
}

func C() { fmt.Println() }
`
	fences, err := findFences("p.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	nameOf := func(path string) string { return path }

	cases := []struct {
		name    string
		stubbed func(i int) bool
		want    string
	}{
		{
			name:    "none",
			stubbed: func(int) bool { return false },
			want:    src,
		},
		{
			name:    "only B; strings goes, math stays",
			stubbed: func(i int) bool { return i == 1 },
			want: `package p

import (
	"fmt"
	"math"
)

func A(x float64) float64 {
	// exercise: p.A — square root
	return math.Sqrt(x)
	// end exercise
}

func B(s string) string {
	// exercise: p.B — upper case
	panic("exercise p.B: not implemented")
	// end exercise
}

func C() { fmt.Println() }
`,
		},
		{
			name:    "all",
			stubbed: func(int) bool { return true },
			want: `package p

import (
	"fmt"
)

func A(x float64) float64 {
	// exercise: p.A — square root
	panic("exercise p.A: not implemented")
	// end exercise
}

func B(s string) string {
	// exercise: p.B — upper case
	panic("exercise p.B: not implemented")
	// end exercise
}

func C() { fmt.Println() }
`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := stub([]byte(src), fences, c.stubbed)
			out, err := removeUnusedImports("p.go", out, nameOf)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, c.want)
			}
		})
	}
}

func TestRemoveUnusedImportsNames(t *testing.T) {
	// The package name of a chapter differs from its directory; a named import uses its own name;
	// blank imports stay; a single-line import declaration goes as a whole.
	src := `package p

import "os"

import (
	_ "embed"
	rn "example.com/m/chapters/03_rmsnorm"
	"example.com/m/chapters/04_rope"
)

func F() { rope.Use(); _ = rn.X }
`
	names := map[string]string{"example.com/m/chapters/04_rope": "rope", "os": "os"}
	out, err := removeUnusedImports("p.go", []byte(src), func(p string) string { return names[p] })
	if err != nil {
		t.Fatal(err)
	}
	want := `package p

import (
	_ "embed"
	rn "example.com/m/chapters/03_rmsnorm"
	"example.com/m/chapters/04_rope"
)

func F() { rope.Use(); _ = rn.X }
`
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
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
