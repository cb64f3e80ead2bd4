package kernels

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Go's arm64 assembler lacks most Advanced SIMD arithmetic (FADD, SMLAL, FCVTL, SDOT, ...), so
// the *_arm64.s files write those instructions as 32-bit words with the instruction beside them:
//
//	WORD $0x4e829420 // sdot v0.4s, v1.16b, v2.16b
//	WORD $0x4e829420 /* sdot v0.4s, v1.16b, v2.16b */ \      (inside a macro)
//
// TestNEONWords assembles every such comment with LLVM's assembler (llvm-mc) and checks that the
// word is its encoding, so that a reader can trust the comments and an edit cannot leave a word
// stale. The test reads only source text; it runs on any machine with llvm-mc and is skipped
// elsewhere (Debian: apt-get install llvm).

var neonWord = regexp.MustCompile(`^\s*WORD\s+\$(0x[0-9a-fA-F]{8})\s*(?://\s*(.+?)\s*$|/\*\s*(.+?)\s*\*/)`)

func llvmMC() (string, error) {
	for _, name := range []string{"llvm-mc", "llvm-mc-19", "llvm-mc-18", "llvm-mc-17", "llvm-mc-16", "llvm-mc-15", "llvm-mc-14"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no llvm-mc on PATH")
}

func TestNEONWords(t *testing.T) {
	mc, err := llvmMC()
	if err != nil {
		if os.Getenv("QWEN3_REQUIRE_LLVM_MC") != "" { // CI installs llvm: there the check must run
			t.Fatalf("%v: QWEN3_REQUIRE_LLVM_MC is set, and the NEON words of the arm64 assembly need llvm-mc", err)
		}
		t.Skipf("%v: the NEON words of the arm64 assembly are not checked (apt-get install llvm)", err)
	}
	files, err := filepath.Glob("*_arm64.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no arm64 assembly found (%v)", err)
	}
	type word struct {
		where, instr string
		enc          uint32
	}
	var words []word
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			m := neonWord.FindStringSubmatch(line)
			if m == nil {
				if strings.Contains(line, "WORD") && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d: a WORD without its instruction in a comment: %s", f, i+1, strings.TrimSpace(line))
				}
				continue
			}
			v, _ := strconv.ParseUint(m[1][2:], 16, 32)
			words = append(words, word{fmt.Sprintf("%s:%d", f, i+1), m[2] + m[3], uint32(v)})
		}
	}
	// One llvm-mc run for all of them: one instruction per line in, one encoding per line out.
	var in bytes.Buffer
	for _, w := range words {
		in.WriteString(w.instr + "\n")
	}
	cmd := exec.Command(mc, "-triple=aarch64", "-mattr=+dotprod", "-show-encoding")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("llvm-mc: %v\n%s", err, stderr.String())
	}
	enc := regexp.MustCompile(`encoding: \[0x([0-9a-f]{2}),0x([0-9a-f]{2}),0x([0-9a-f]{2}),0x([0-9a-f]{2})\]`)
	found := enc.FindAllStringSubmatch(string(out), -1)
	if len(found) != len(words) {
		t.Fatalf("llvm-mc encoded %d of %d instructions:\n%s", len(found), len(words), stderr.String())
	}
	for i, w := range words {
		var v uint32
		for b := 4; b >= 1; b-- {
			x, _ := strconv.ParseUint(found[i][b], 16, 8)
			v = v<<8 | uint32(x)
		}
		if v != w.enc {
			t.Errorf("%s: WORD $%#08x, but %q encodes as %#08x", w.where, w.enc, w.instr, v)
		}
	}
	t.Logf("%d NEON words in %d files agree with llvm-mc", len(words), len(files))
}
