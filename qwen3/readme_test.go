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
// is one of the complete programs under qwen3/examples, byte for byte, and every one of those
// programs is in README.md. The programs are compiled by go vet and run by their own tests on the
// tiny checkpoint, so a snippet that no longer compiles or runs fails there, and one that drifts
// from its program fails here. (Other Go blocks, such as the exercise fence format, are not
// programs.)
func TestREADMESnippets(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(reference.Dir()), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	programs, err := filepath.Glob(filepath.Join("examples", "*", "main.go"))
	if err != nil || len(programs) == 0 {
		t.Fatalf("no programs under qwen3/examples (%v)", err)
	}
	source := map[string]string{}
	for _, p := range programs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		source[p] = string(b)
	}
	shown := map[string]bool{}
	for _, s := range regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if !strings.Contains(s[1], "qwen3.") {
			continue
		}
		found := ""
		for p, src := range source {
			if src == s[1] {
				found = p
			}
		}
		if found == "" {
			t.Errorf("README.md shows a Go program that is none of qwen3/examples/*/main.go (copy the file whole):\n%s", s[1])
			continue
		}
		shown[found] = true
	}
	for _, p := range programs {
		if !shown[p] {
			t.Errorf("qwen3/%s is not in README.md as it is: paste the whole file into its ```go block", filepath.ToSlash(p))
		}
	}
}
