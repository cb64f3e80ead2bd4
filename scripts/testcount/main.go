// Command testcount reads `go test -json` events on standard input and prints what plain `go test`
// would have printed (the `ok  package  0.1s` lines, and the output of failing tests), then one
// closing line that counts the tests, subtests and examples:
//
//	N passed, N failed
//
// followed by ", N skipped" when some were skipped. A package that fails without a failing test
// (it does not build, or its test binary crashes) counts as one failed test. CI uses it:
//
//	go test -count=1 -json ./... | go run ./scripts/testcount
//
// It exits with status 1 when its input is not `go test -json` output.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of `go test -json` (see `go doc test2json`).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type counts struct{ passed, failed, skipped int }

func main() {
	c, err := count(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcount:", err)
		os.Exit(1)
	}
	line := fmt.Sprintf("%d passed, %d failed", c.passed, c.failed)
	if c.skipped > 0 {
		line += fmt.Sprintf(", %d skipped", c.skipped)
	}
	fmt.Println(line)
}

// count reads events from r and echoes plain output to w: package-level output always, a test's
// output only when the test fails (it is buffered until the test ends).
func count(r io.Reader, w io.Writer) (counts, error) {
	var c counts
	pending := map[string]*strings.Builder{} // package + "\x00" + test -> buffered output
	failedTests := map[string]int{}          // package -> failed tests seen
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := sc.Bytes()
		if len(raw) == 0 || raw[0] != '{' {
			fmt.Fprintf(w, "%s\n", raw) // not an event (go's own messages): pass it through
			continue
		}
		var e event
		if err := json.Unmarshal(raw, &e); err != nil {
			return c, fmt.Errorf("line %d: %v", lineNo, err)
		}
		key := e.Package + "\x00" + e.Test
		switch {
		case e.Action == "build-output":
			fmt.Fprint(w, e.Output)
		case e.Test == "":
			// -json runs tests verbosely, which adds a bare "PASS" line per package that plain
			// `go test` does not print.
			if e.Action == "output" && e.Output != "PASS\n" {
				fmt.Fprint(w, e.Output)
			}
			if e.Action == "fail" && failedTests[e.Package] == 0 {
				c.failed++ // failed without a failing test: build error, crash, TestMain...
			}
		case e.Action == "output":
			b := pending[key]
			if b == nil {
				b = &strings.Builder{}
				pending[key] = b
			}
			b.WriteString(e.Output)
		case e.Action == "pass" || e.Action == "skip" || e.Action == "fail":
			switch e.Action {
			case "pass":
				c.passed++
			case "skip":
				c.skipped++
			case "fail":
				c.failed++
				failedTests[e.Package]++
				if b := pending[key]; b != nil {
					fmt.Fprint(w, b.String())
				}
			}
			delete(pending, key)
		}
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	if lineNo == 0 {
		return c, fmt.Errorf("no input: pipe `go test -json` into it")
	}
	return c, nil
}
