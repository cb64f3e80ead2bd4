package qwen3_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestREADMESnippets: every Go snippet of README.md that uses this package (it mentions "qwen3.")
// is copied from this package's examples, which run on the tiny checkpoint, so a snippet that no
// longer compiles or runs fails here first. (Other Go blocks, such as the exercise fence format,
// are not programs.) Lines are compared without their leading indentation.
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(reference.Dir()), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	examples, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := "\n" + strings.Join(trimmedLines(string(examples)), "\n") + "\n"
	snippets := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(snippets) == 0 {
		t.Fatal("README.md has no ```go snippet")
	}
	checked := 0
	for _, s := range snippets {
		if !strings.Contains(s[1], "qwen3.") {
			continue
		}
		checked++
		lines := trimmedLines(s[1])
		if !strings.Contains(code, "\n"+strings.Join(lines, "\n")+"\n") {
			t.Errorf("README.md's snippet is not in qwen3/example_test.go (copy it from there, or add it there as an Example):\n%s", s[1])
		}
	}
	if checked == 0 {
		t.Error("README.md has no ```go snippet that uses package qwen3")
	}
}

// trimmedLines splits s into lines without leading white space, dropping empty lines.
func trimmedLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
