package plots

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseClaim(t *testing.T) {
	for _, c := range []struct {
		in, text string
		want     Stated
	}{
		{"258 times finer", "258", Stated{Lo: 258, Hi: 258, Ulp: 1}},
		{"5,936,864 bytes in", "5,936,864", Stated{Lo: 5936864, Hi: 5936864, Ulp: 1}},
		{"9.6e-5 of the largest", "9.6e-5", Stated{Lo: 9.6e-5, Hi: 9.6e-5, Ulp: 1e-6}},
		{" about 1e-4 of", "about 1e-4", Stated{Qualifier: "about", Lo: 1e-4, Hi: 1e-4, Ulp: 1e-4}},
		{"~40 s", "~40", Stated{Qualifier: "about", Lo: 40, Hi: 40, Ulp: 1}},
		{"22.7%.", "22.7%", Stated{Lo: 22.7, Hi: 22.7, Ulp: 0.1, Percent: true}},
		{"1.3-1.6x llama.cpp's", "1.3-1.6x", Stated{Lo: 1.3, Hi: 1.6, Ulp: 0.1, Range: true}},
		{"-1 to +4% of", "-1 to +4%", Stated{Lo: -1, Hi: 4, Ulp: 1, Range: true, Percent: true}},
		{"3.8–4.30 nats", "3.8–4.30", Stated{Lo: 3.8, Hi: 4.3, Ulp: 0.01, Range: true}},
		{"at most 5e-6.", "at most 5e-6", Stated{Qualifier: "at most", Lo: 5e-6, Hi: 5e-6, Ulp: 1e-6}},
		{"Within 2e-3", "Within 2e-3", Stated{Qualifier: "at most", Lo: 2e-3, Hi: 2e-3, Ulp: 1e-3}},
		{"under 1%", "under 1%", Stated{Qualifier: "under", Lo: 1, Hi: 1, Ulp: 1, Percent: true}},
		{"more than 0.6", "more than 0.6", Stated{Qualifier: "over", Lo: 0.6, Hi: 0.6, Ulp: 0.1}},
		{"at least 0.30", "at least 0.30", Stated{Qualifier: "at least", Lo: 0.3, Hi: 0.3, Ulp: 0.01}},
		{"−0.25 here", "−0.25", Stated{Lo: -0.25, Hi: -0.25, Ulp: 0.01}},
	} {
		text, st, err := ParseClaim(c.in)
		if err != nil {
			t.Errorf("ParseClaim(%q): %v", c.in, err)
			continue
		}
		if text != c.text {
			t.Errorf("ParseClaim(%q) read %q, want %q", c.in, text, c.text)
		}
		if !sameFloat(st.Lo, c.want.Lo) || !sameFloat(st.Hi, c.want.Hi) || !sameFloat(st.Ulp, c.want.Ulp) ||
			st.Qualifier != c.want.Qualifier || st.Range != c.want.Range || st.Percent != c.want.Percent {
			t.Errorf("ParseClaim(%q) = %+v, want %+v", c.in, st, c.want)
		}
	}
	// A qualifier is a whole word, and a marker must stand before a number.
	if _, st, err := ParseClaim("overall 3 layers"); err == nil {
		t.Errorf(`ParseClaim("overall 3 layers") = %+v, want an error (overall is not the qualifier over)`, st)
	}
	for _, bad := range []string{"", "the value", "about the same"} {
		if _, _, err := ParseClaim(bad); err == nil || !strings.Contains(err.Error(), "no number after the marker") {
			t.Errorf("ParseClaim(%q): err = %v, want one saying there is no number", bad, err)
		}
	}
}

func sameFloat(a, b float64) bool { return a == b || (a-b)*(a-b) <= 1e-24*(a*a+b*b) }

func TestClaimHolds(t *testing.T) {
	for _, c := range []struct {
		text     string
		holds    [][]float64
		disagree [][]float64
	}{
		{"258", [][]float64{{258}, {257.9}, {258.49}}, [][]float64{{257.4}, {258.6}, {128}}},
		{"9.6e-5", [][]float64{{9.6e-5}, {9.64e-5}, {9.55e-5}}, [][]float64{{9.66e-5}, {1e-4}, {3e-4}}},
		{"about 1e-4", [][]float64{{9.6e-5}, {1.4e-4}, {5e-5}}, [][]float64{{1.6e-4}, {3e-4}, {4e-5}}},
		{"40", [][]float64{{40}}, [][]float64{{38}, {41}}},
		{"about 40", [][]float64{{37}, {44.9}}, [][]float64{{34}, {46}}},
		{"22.7%", [][]float64{{0.227}, {0.2274}}, [][]float64{{22.7}, {0.229}, {0.333}}},
		{"1.3-1.6x", [][]float64{{1.3, 1.45, 1.6}, {1.27, 1.64}, {1.4}, {1.26}}, [][]float64{{1.3, 1.9}, {1.2, 1.6}, {1.7}, {1.4, 1.5}}},
		{"at most 5e-6", [][]float64{{2.9e-7}, {5e-6}, {1e-6, 4.9e-6}}, [][]float64{{5.1e-6}, {1e-7, 6e-6}}},
		{"under 1%", [][]float64{{0.0067}}, [][]float64{{0.01}, {0.0117}}},
		{"at least 0.6", [][]float64{{0.6}, {0.93}}, [][]float64{{0.59}}},
		{"over 3", [][]float64{{3.01}}, [][]float64{{3}, {2}}},
	} {
		_, st, err := ParseClaim(c.text)
		if err != nil {
			t.Fatalf("ParseClaim(%q): %v", c.text, err)
		}
		for _, vs := range c.holds {
			if err := st.Holds(vs...); err != nil {
				t.Errorf("%q with %v: %v, want it to hold", c.text, vs, err)
			}
		}
		for _, vs := range c.disagree {
			if err := st.Holds(vs...); err == nil {
				t.Errorf("%q with %v holds, want a disagreement", c.text, vs)
			}
		}
	}
}

// writeNotebook writes a notebook of markdown cells (and one code cell first) to a file.
func writeNotebook(t *testing.T, markdown ...string) string {
	t.Helper()
	cells := []map[string]any{{"cell_type": "code", "source": "fmt.Println(1)", "outputs": []any{}}}
	for _, md := range markdown {
		// Jupyter stores a cell's source as a list of lines: keep that form.
		cells = append(cells, map[string]any{"cell_type": "markdown", "source": strings.SplitAfter(md, "\n")})
	}
	b, err := json.Marshal(map[string]any{"cells": cells, "nbformat": 4})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "99_test.ipynb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestNotebookClaims(t *testing.T) {
	path := writeNotebook(t,
		"An F16 cache moves the logits by <!--claim:f16_cache-->about 1e-4 of the largest,\nand int8 is <!-- claim:int8 -->258 times coarser.",
		"The metadata is <!--claim:meta-->22.7% of the file; decoding runs <!--claim:speed-->1.3-1.6x llama.cpp's.")
	t.Setenv("GONB_DIR", filepath.Dir(path))
	c := NotebookClaims(filepath.Base(path))
	if got := strings.Join(c.Names(), " "); got != "f16_cache int8 meta speed" {
		t.Fatalf("claims %q, want f16_cache int8 meta speed", got)
	}
	if cl, _ := c.Get("meta"); cl.Cell != 2 || cl.Text != "22.7%" {
		t.Errorf("claim meta = %+v, want cell 2, text 22.7%%", cl)
	}
	for name, vs := range map[string][]float64{"f16_cache": {9.6e-5}, "int8": {32767.0 / 127}, "meta": {0.2271}, "speed": {1.34, 1.58}} {
		if err := c.Verify(name, vs...); err != nil {
			t.Errorf("Verify(%s, %v): %v", name, vs, err)
		}
	}
	// The prose changed by hand (128 for 258) or the code computing something else fails, and the
	// message names the claim, the notebook and its cell, and both numbers.
	err := c.Verify("int8", 128)
	if err == nil {
		t.Fatal("Verify(int8, 128) passed against a prose that says 258")
	}
	for _, want := range []string{`claim "int8"`, "99_test.ipynb", "markdown cell 1", `"258"`, "128 does not round to it"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the failure %q does not say %q", err, want)
		}
	}
	func() {
		defer func() {
			if r := recover(); r == nil {
				t.Error("Check of a disagreeing value did not panic (a notebook cell would pass)")
			}
		}()
		c.Check("f16_cache", 3e-4)
	}()
	if err := c.Verify("nonesuch", 1); err == nil || !strings.Contains(err.Error(), "marks no claim \"nonesuch\"") {
		t.Errorf("Verify of an unmarked claim: %v", err)
	}
}

func TestNotebookClaimsErrors(t *testing.T) {
	twice := writeNotebook(t, "<!--claim:a-->1 and", "<!--claim:a-->2")
	if err := NotebookClaims(twice).Verify("a", 1); err == nil || !strings.Contains(err.Error(), "marked twice (markdown cells 1 and 2)") {
		t.Errorf("a repeated marker: %v", err)
	}
	nonumber := writeNotebook(t, "the <!--claim:b--> value is 3")
	if err := NotebookClaims(nonumber).Verify("b", 3); err == nil || !strings.Contains(err.Error(), "no number after the marker") {
		t.Errorf("a marker before words: %v", err)
	}
	t.Setenv("GONB_DIR", t.TempDir())
	if err := NotebookClaims("missing.ipynb").Verify("a", 1); err == nil || !strings.Contains(err.Error(), "missing.ipynb") {
		t.Errorf("a missing notebook: %v", err)
	}
}
