package qwen3_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/reference"
)

// The READMEs a reader opens: the course's (a newcomer's ten minutes), the engine's, and the
// reference data's. Paths are relative to the module's root.
var readmes = []string{"README.md", "qwen3/README.md", "reference/README.md"}

// maxREADMEWords is the top README's budget (as `wc -w` counts): what a newcomer reads in ten
// minutes. Detail goes to qwen3/README.md and reference/README.md.
const maxREADMEWords = 2000

// moduleRoot is the root of this module's source tree.
func moduleRoot() string { return filepath.Dir(reference.Dir()) }

func readREADME(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(), rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREADMESnippets: every Go snippet of qwen3/README.md that uses this package (it mentions
// "qwen3.") is one of the complete programs under qwen3/examples, byte for byte, and every one of
// those programs is in qwen3/README.md. The programs are compiled by go vet and run by their own
// tests on the tiny checkpoint, so a snippet that no longer compiles or runs fails there, and one
// that drifts from its program fails here. The top README links to the programs and shows none.
func TestREADMESnippets(t *testing.T) {
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
	goBlock := regexp.MustCompile("(?s)```go\n(.*?)```")
	shown := map[string]bool{}
	for _, s := range goBlock.FindAllStringSubmatch(readREADME(t, "qwen3/README.md"), -1) {
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
			t.Errorf("qwen3/README.md shows a Go program that is none of qwen3/examples/*/main.go (copy the file whole):\n%s", s[1])
			continue
		}
		shown[found] = true
	}
	for _, p := range programs {
		if !shown[p] {
			t.Errorf("qwen3/%s is not in qwen3/README.md as it is: paste the whole file into its ```go block", filepath.ToSlash(p))
		}
	}
	for _, s := range goBlock.FindAllStringSubmatch(readREADME(t, "README.md"), -1) {
		if strings.Contains(s[1], "qwen3.") {
			t.Errorf("README.md shows a qwen3 program: its place is qwen3/README.md (README.md links to it)")
		}
	}
}

// TestREADMEWords: the top README stays within its budget.
func TestREADMEWords(t *testing.T) {
	if n := len(strings.Fields(readREADME(t, "README.md"))); n > maxREADMEWords {
		t.Errorf("README.md has %d words, the budget is %d: move detail to qwen3/README.md or reference/README.md and link to it", n, maxREADMEWords)
	}
}

// TestREADMEFirstRun: the text block after the top README's first command is what that command
// prints, `qwen3 run -temperature 0 -max-tokens 40 'func main() {'` on the built-in checkpoint:
// the prompt, then the greedy continuation (the block may stop before the 40 tokens do). A new
// tiny checkpoint that writes other text fails here until the README shows what it writes.
func TestREADMEFirstRun(t *testing.T) {
	readme := readREADME(t, "README.md")
	const prompt = "func main() {"
	cmd := "go run ./qwen3/cmd/qwen3 run -temperature 0 -max-tokens 40 '" + prompt + "'"
	at := strings.Index(readme, cmd)
	if at < 0 {
		t.Fatalf("README.md no longer shows %s: update this test with it", cmd)
	}
	block := regexp.MustCompile("(?s)```text\n(.*?)```").FindStringSubmatch(readme[at:])
	if block == nil {
		t.Fatalf("README.md: no ```text block after %s", cmd)
	}
	m, err := qwen3.Load(context.Background(), reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	text, _, err := m.Generate(context.Background(), prompt,
		qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 40}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := prompt + text; !strings.HasPrefix(got, block[1]) {
		t.Errorf("README.md shows after its first command:\n%s\nthe command prints:\n%s", block[1], got)
	}
}

// TestREADMEFuzzTargets: qwen3/README.md's list of fuzz targets names every Fuzz function of the
// module's tests (found by parsing each _test.go file, so a fuzz target written inside a test's
// string is not one), each in backquotes, so that a new target cannot be left out of it.
func TestREADMEFuzzTargets(t *testing.T) {
	root := moduleRoot()
	readme := readREADME(t, "qwen3/README.md")
	fset := token.NewFileSet()
	found := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "workspace" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Fuzz") {
				continue
			}
			found++
			if !strings.Contains(readme, "`"+fn.Name.Name+"`") {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s: %s is not in qwen3/README.md's list of fuzz targets (Tests and tolerances)", filepath.ToSlash(rel), fn.Name.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no fuzz targets found in the module's tests")
	}
}

// benchFile is a file that scripts/bench.sh (scripts/bench/compare) writes to notebooks/data.
type benchFile struct {
	Machine   string     `json:"machine"`
	Date      string     `json:"date"`
	ReadGBs   float64    `json:"read_bandwidth_gbs"`
	Rows      []benchRow `json:"rows"`
	path      string
	tableSeen bool
}

type benchRow struct {
	Engine  string  `json:"engine"`
	Weights string  `json:"weights"`
	Test    string  `json:"test"`
	Tokens  int     `json:"tokens"`
	Depth   int     `json:"depth"`
	Batch   int     `json:"batch"`
	TokS    float64 `json:"tok_s"`
	Bytes   float64 `json:"bytes_per_token"`
	PeakRSS int     `json:"peak_rss_mib"`
}

// column is what a table's header cell asks for: "prefill 512", "decode", "decode at depth 2048",
// "decode x8", "prefill x16", "peak RSS", "peak RSS x16" (a batched run's process at 16 sequences),
// "decode of bound", each optionally after a weight type
// ("Q8_0 decode at depth 2048", in a table whose rows are engines).
type column struct {
	weights string // "" when the rows name the weights
	kind    string // "prefill", "decode", "rss", "bound"
	tokens  int    // prefill: the prompt's length
	depth   int    // decode: the context's depth
	batch   int    // batched runs: the batch size (0: not batched)
}

var columnRE = regexp.MustCompile(`^(?:(\S+) )?(?:(prefill) (\d+)|(decode)(?: at depth (\d+))?|(prefill|decode) x(\d+)|(peak RSS)(?: x(\d+))?|(decode of bound))$`)

func parseColumn(h string) (column, error) {
	m := columnRE.FindStringSubmatch(h)
	if m == nil {
		return column{}, fmt.Errorf("header %q: not a column this test knows (prefill N, decode, decode at depth N, prefill xB, decode xB, peak RSS, peak RSS xB, decode of bound)", h)
	}
	c := column{weights: m[1]}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	switch {
	case m[2] != "":
		c.kind, c.tokens = "prefill", atoi(m[3])
	case m[4] != "":
		c.kind, c.depth = "decode", atoi(m[5])
	case m[6] != "":
		c.kind, c.batch = m[6], atoi(m[7])
	case m[8] != "":
		c.kind, c.batch = "rss", atoi(m[9])
	default:
		c.kind = "bound"
	}
	return c, nil
}

// find returns the one row of engine and weights that column c asks for.
func (f *benchFile) find(engine, weights string, c column) (benchRow, error) {
	var found []benchRow
	for _, r := range f.Rows {
		if r.Engine != engine || r.Weights != weights {
			continue
		}
		test := c.kind
		if test == "rss" || test == "bound" {
			test = "decode"
		}
		if r.Test != test || r.Batch != c.batch {
			continue
		}
		if c.batch == 0 && (test == "prefill" && r.Tokens != c.tokens || test == "decode" && r.Depth != c.depth) {
			continue
		}
		found = append(found, r)
	}
	if len(found) != 1 {
		return benchRow{}, fmt.Errorf("%s has %d rows for %s %s %+v, want 1", f.path, len(found), engine, weights, c)
	}
	return found[0], nil
}

// ratioCell is "1.33x (70.7 / 53.2)", "**0.81x** (445.3 / 548.5)" or "0.98x (2781 / 2837 MiB)".
var ratioCell = regexp.MustCompile(`^(\*\*)?(\d+\.\d\d)x(\*\*)? \((\d+(?:\.\d)?) / (\d+(?:\.\d)?)( MiB)?\)$`)

// want returns the cell that column c of the row labelled label must hold: for a row of weights,
// qwen3 against llama.cpp (speed: the ratio with two decimals, bold below 1.05x, and both tok/s
// with one; memory: the ratio and both peak RSS in MiB; bound: each engine's decoding speed over
// what the run's median read bandwidth allows); for a row of an engine (its name as the label's
// first code span, "`attn`: ..."), that engine's tok/s with one decimal.
func (f *benchFile) want(label string, c column) (string, error) {
	if m := regexp.MustCompile("^`([^`]+)`").FindStringSubmatch(label); m != nil {
		if c.weights == "" || c.kind == "rss" || c.kind == "bound" {
			return "", fmt.Errorf("row %q: a row of an engine needs columns that name the weights", label)
		}
		r, err := f.find(m[1], c.weights, c)
		return fmt.Sprintf("%.1f", r.TokS), err
	}
	if c.weights != "" {
		return "", fmt.Errorf("row %q: a row of weights needs columns without them", label)
	}
	ours, err := f.find("qwen3", label, c)
	if err != nil {
		return "", err
	}
	peer, err := f.find("llama.cpp", label, c)
	if err != nil {
		return "", err
	}
	switch c.kind {
	case "rss":
		return fmt.Sprintf("%.2fx (%d / %d MiB)", float64(ours.PeakRSS)/float64(peer.PeakRSS), ours.PeakRSS, peer.PeakRSS), nil
	case "bound":
		bound := func(r benchRow) float64 { return r.TokS * r.Bytes / (f.ReadGBs * 1e9) }
		if ours.Bytes == 0 || peer.Bytes == 0 || f.ReadGBs == 0 {
			return "", fmt.Errorf("%s: no bytes per token or read bandwidth for %s", f.path, label)
		}
		return fmt.Sprintf("%.2f / %.2f", bound(ours), bound(peer)), nil
	}
	ratio := ours.TokS / peer.TokS
	r := fmt.Sprintf("%.2fx", ratio)
	if ratio < 1.05 {
		r = "**" + r + "**"
	}
	return fmt.Sprintf("%s (%.1f / %.1f)", r, ours.TokS, peer.TokS), nil
}

var tableMarker = regexp.MustCompile(`^<!-- table: (\S+) -->$`)

// TestREADMETables: every table of speed in README.md and qwen3/README.md comes from a file the
// benchmarks write, named by a marker on the line before it (<!-- table: notebooks/data/bench.json -->,
// which renders as nothing), and every cell is what that file says, so a re-run that changes the
// file, or a cell edited by hand, fails here with the cell and both values. The date of the file's
// run must stand in the prose just before the table, and a table of ratios without a marker is an
// error too.
func TestREADMETables(t *testing.T) {
	files := map[string]*benchFile{}
	tables := 0
	for _, readme := range readmes[:2] {
		lines := strings.Split(readREADME(t, readme), "\n")
		for i := 0; i < len(lines); i++ {
			m := tableMarker.FindStringSubmatch(lines[i])
			if m == nil {
				if strings.HasPrefix(lines[i], "|") && ratioCell.MatchString(strings.TrimSpace(strings.Split(lines[i], "|")[2])) {
					t.Errorf("%s:%d: a table of measured ratios without a <!-- table: FILE --> marker above it", readme, i+1)
					for i < len(lines) && strings.HasPrefix(lines[i], "|") {
						i++
					}
				}
				continue
			}
			f := files[m[1]]
			if f == nil {
				f = &benchFile{path: m[1]}
				b, err := os.ReadFile(filepath.Join(moduleRoot(), m[1]))
				if err == nil {
					err = json.Unmarshal(b, f)
				}
				if err != nil {
					t.Fatalf("%s:%d: %v", readme, i+1, err)
				}
				files[m[1]] = f
			}
			prose := strings.Join(lines[max(0, i-12):i], "\n")
			if f.Date == "" || !strings.Contains(prose, f.Date) {
				t.Errorf("%s:%d: the prose before the table does not give the date of %s's run (%q)", readme, i+1, m[1], f.Date)
			}
			tables++
			i++
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i], "|") || !strings.HasPrefix(lines[i+1], "|---") {
				t.Errorf("%s:%d: no table after the marker", readme, i)
				continue
			}
			header := splitRow(lines[i])
			cols := make([]column, len(header))
			for j, h := range header[1:] {
				c, err := parseColumn(h)
				if err != nil {
					t.Errorf("%s:%d: %v", readme, i+1, err)
				}
				cols[j+1] = c
			}
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				cells := splitRow(lines[i])
				if len(cells) != len(header) {
					t.Errorf("%s:%d: %d cells, the header has %d", readme, i+1, len(cells), len(header))
					continue
				}
				for j := 1; j < len(cells); j++ {
					want, err := f.want(cells[0], cols[j])
					if err != nil {
						t.Errorf("%s:%d: %v", readme, i+1, err)
						continue
					}
					if cells[j] != want {
						t.Errorf("%s:%d: %s, %s: the README says %q, %s says %q", readme, i+1, cells[0], header[j], cells[j], m[1], want)
					}
				}
			}
		}
	}
	if tables == 0 {
		t.Error("no marked tables in README.md and qwen3/README.md")
	}
}

// splitRow returns a markdown table row's cells, trimmed.
func splitRow(line string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// claimMarker marks a number in README prose that comes from a benchmark file, with the syntax of
// the notebooks' claims (notebooks/plots/claims.go): <!--claim:NAME-->52.5. Here a claim is a plain
// number, optionally followed by "x", and must equal the computed value rounded to the digits
// written.
var claimMarker = regexp.MustCompile(`<!--\s*claim:([A-Za-z0-9_.\-]+)\s*-->(\d+(?:\.(\d+))?)`)

// TestREADMEClaims: the numbers of the engine's README prose that come from notebooks/data are
// marked and equal what the files give, rounded as written; every value below is marked once.
func TestREADMEClaims(t *testing.T) {
	var bench, batched benchFile
	for p, f := range map[string]*benchFile{"bench.json": &bench, "bench_batched.json": &batched} {
		b, err := os.ReadFile(filepath.Join(moduleRoot(), "notebooks", "data", p))
		if err == nil {
			err = json.Unmarshal(b, f)
		}
		if err != nil {
			t.Fatal(err)
		}
		f.path = p
	}
	values := map[string]float64{"read_median": bench.ReadGBs} // GB/s
	for _, w := range []string{"Q8_0", "Q4_K_M"} {
		one, err1 := batched.find("qwen3", w, column{kind: "decode", batch: 1})
		sixteen, err16 := batched.find("qwen3", w, column{kind: "decode", batch: 16})
		thirtyTwo, err32 := batched.find("qwen3", w, column{kind: "decode", batch: 32})
		prompt, errP := batched.find("qwen3", w, column{kind: "prefill", batch: 1})
		if err := errors.Join(err1, err16, err32, errP); err != nil {
			t.Fatal(err)
		}
		values["batch_growth."+w] = sixteen.TokS / one.TokS
		// The ceiling: a batch step reads each weight once, as a prompt does.
		values["batch_ceiling16."+w] = sixteen.TokS / prompt.TokS
		values["batch_ceiling32."+w] = thirtyTwo.TokS / prompt.TokS
		// Each batch's prompts are prefilled one at a time, so every prefill cell measures one
		// prompt's speed: the x16 ratio against the other four, lowest and highest.
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, b := range []int{4, 8, 16, 32} {
			p, err := batched.find("qwen3", w, column{kind: "prefill", batch: b})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi = min(lo, sixteen.TokS/p.TokS), max(hi, sixteen.TokS/p.TokS)
		}
		values["batch_ceiling16_lo."+w], values["batch_ceiling16_hi."+w] = lo, hi
	}
	// Q4_K_M's decoding at 32k (bench_long_q4_k_m.json) over its run's read bound.
	var longQ4 benchFile
	b, err := os.ReadFile(filepath.Join(moduleRoot(), "notebooks", "data", "bench_long_q4_k_m.json"))
	if err == nil {
		err = json.Unmarshal(b, &longQ4)
	}
	if err != nil {
		t.Fatal(err)
	}
	longQ4.path = "bench_long_q4_k_m.json"
	q4, err := longQ4.find("qwen3", "Q4_K_M", column{weights: "Q4_K_M", kind: "decode", depth: 32768})
	if err != nil || q4.Bytes == 0 || longQ4.ReadGBs == 0 {
		t.Fatalf("bench_long_q4_k_m.json: our decoding at depth 32768 with its bytes and the read bandwidth: %v", err)
	}
	values["long_q4_bound"] = q4.TokS * q4.Bytes / (longQ4.ReadGBs * 1e9)
	values["long_q4_gbs"] = q4.TokS * q4.Bytes / 1e9 // what that decoding streamed, GB/s
	values["long_q4_read"] = longQ4.ReadGBs          // the read test's median that run, GB/s
	// The same at 8k and 16k: GB/s streamed and its fraction of the read test's rate.
	for _, c := range []struct {
		name  string
		depth int
	}{{"8", 8192}, {"16", 16384}} {
		r, err := longQ4.find("qwen3", "Q4_K_M", column{weights: "Q4_K_M", kind: "decode", depth: c.depth})
		if err != nil || r.Bytes == 0 {
			t.Fatalf("bench_long_q4_k_m.json: our decoding at depth %d with its bytes: %v", c.depth, err)
		}
		values["long_q4_gbs"+c.name] = r.TokS * r.Bytes / 1e9
		values["long_q4_frac"+c.name] = r.TokS * r.Bytes / (longQ4.ReadGBs * 1e9)
	}
	// The most a batch step can reach of a prompt's speed when every kernel ran as fast as the
	// prompt's: a decoded token pays for the tied LM head (vocab x hidden multiply-adds), a prompt's
	// token only for the 28 layers (Qwen3-0.6B's shapes, QWEN3_FACTS.md).
	const hidden, qDim, kvDim, inter, layers, vocab = 1024, 2048, 1024, 3072, 28, 151936
	layerMACs := float64(hidden*(qDim+2*kvDim+qDim) + 3*hidden*inter)
	values["head_ceiling"] = layers * layerMACs / (layers*layerMACs + vocab*hidden)
	values["layer_macs"], values["head_macs"] = layerMACs/1e6, vocab*hidden/1e6 // millions
	// Long contexts at 32k tokens (bench_long32k.json): ours over llama.cpp's with flash attention
	// on, prefill and decoding at that depth, and each engine's peak resident memory in MiB.
	var long32 benchFile
	b, err = os.ReadFile(filepath.Join(moduleRoot(), "notebooks", "data", "bench_long32k.json"))
	if err == nil {
		err = json.Unmarshal(b, &long32)
	}
	if err != nil {
		t.Fatal(err)
	}
	long32.path = "bench_long32k.json"
	for _, c := range []column{{weights: "Q8_0", kind: "prefill", tokens: 32768}, {weights: "Q8_0", kind: "decode", depth: 32768}} {
		ours, err1 := long32.find("qwen3", "Q8_0", c)
		peer, err2 := long32.find("llama.cpp fa", "Q8_0", c)
		if err := errors.Join(err1, err2); err != nil {
			t.Fatal(err)
		}
		values["long32_ratio."+c.kind] = ours.TokS / peer.TokS
		values["long32_rss.qwen3"], values["long32_rss.llama_fa"] = float64(ours.PeakRSS), float64(peer.PeakRSS)
		if c.kind == "decode" { // what our decoded token reads (GB), and its speed over the read bound
			if ours.Bytes == 0 || long32.ReadGBs == 0 {
				t.Fatal("bench_long32k.json: no bytes per token or read bandwidth for our decoding")
			}
			values["long32_gb"] = ours.Bytes / 1e9
			values["long32_bound"] = ours.TokS * ours.Bytes / (long32.ReadGBs * 1e9)
		}
	}
	// Serving (scripts/bench/serving's JSON): the aggregate ratio, and each server's p99
	// inter-token latency in ms, at the client counts the prose names.
	var serving struct {
		Runs []struct {
			Engine  string `json:"engine"`
			Clients int    `json:"clients"`
			Summary struct {
				TokensPerSecond float64
				ITL99           float64 // ns
			} `json:"summary"`
		} `json:"runs"`
	}
	b, err = os.ReadFile(filepath.Join(moduleRoot(), "notebooks", "data", "bench_serving.json"))
	if err == nil {
		err = json.Unmarshal(b, &serving)
	}
	if err != nil {
		t.Fatal(err)
	}
	tokS, itl := map[string]float64{}, map[string]float64{}
	for _, r := range serving.Runs {
		if r.Summary.TokensPerSecond == 0 {
			t.Fatalf("bench_serving.json: %s at %d clients has no tokens per second", r.Engine, r.Clients)
		}
		k := fmt.Sprintf("%s.%d", r.Engine, r.Clients)
		if _, dup := tokS[k]; dup {
			t.Fatalf("bench_serving.json: %s at %d clients twice (the prose reads one run)", r.Engine, r.Clients)
		}
		tokS[k], itl[k] = r.Summary.TokensPerSecond, r.Summary.ITL99/1e6
	}
	for _, c := range []int{8, 16} {
		q, l := fmt.Sprintf("qwen3.%d", c), fmt.Sprintf("llama.cpp.%d", c)
		if tokS[q] == 0 || tokS[l] == 0 {
			t.Fatalf("bench_serving.json: no qwen3 and llama.cpp runs at %d clients", c)
		}
		values[fmt.Sprintf("serve_ratio.%d", c)] = tokS[q] / tokS[l]
		values["serve_itl99."+q] = itl[q]
		values["serve_itl99."+l] = itl[l]
	}
	seen := map[string]bool{}
	for _, readme := range readmes {
		for _, m := range claimMarker.FindAllStringSubmatch(readREADME(t, readme), -1) {
			v, ok := values[m[1]]
			if !ok {
				t.Errorf("%s: claim %q: no value computed for it in TestREADMEClaims", readme, m[1])
				continue
			}
			if seen[m[1]] {
				t.Errorf("%s: claim %q marked twice", readme, m[1])
			}
			seen[m[1]] = true
			if want := strconv.FormatFloat(v, 'f', len(m[3]), 64); m[2] != want {
				t.Errorf("%s: claim %q says %s, the benchmark files give %s (%.4g)", readme, m[1], m[2], want, v)
			}
		}
	}
	for name := range values {
		if !seen[name] {
			t.Errorf("claim %q is computed but marked in no README", name)
		}
	}
}

// TestREADMELinks: every relative link of the READMEs leads to a file or directory of the
// repository, and every #anchor to a heading of its file (GitHub's anchors: lower case, spaces
// to hyphens, punctuation dropped).
func TestREADMELinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	code := regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
	anchors := map[string]map[string]bool{}
	anchorsOf := func(rel string) (map[string]bool, error) {
		if a, ok := anchors[rel]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(moduleRoot(), rel))
		if err != nil {
			return nil, err
		}
		a := map[string]bool{}
		for _, line := range strings.Split(code.ReplaceAllStringFunc(string(b), func(s string) string {
			if strings.HasPrefix(s, "```") {
				return ""
			}
			return s
		}), "\n") {
			if h, ok := strings.CutPrefix(line, "#"); ok {
				a[slug(strings.TrimLeft(h, "#"))] = true
			}
		}
		anchors[rel] = a
		return a, nil
	}
	for _, readme := range readmes {
		text := code.ReplaceAllString(readREADME(t, readme), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			rel := readme
			if path != "" {
				rel = filepath.ToSlash(filepath.Join(filepath.Dir(readme), path))
				if _, err := os.Stat(filepath.Join(moduleRoot(), rel)); err != nil {
					t.Errorf("%s: link %q: %s does not exist", readme, target, rel)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			a, err := anchorsOf(rel)
			if err != nil {
				t.Errorf("%s: link %q: %v", readme, target, err)
				continue
			}
			if !a[anchor] {
				t.Errorf("%s: link %q: %s has no heading with that anchor", readme, target, rel)
			}
		}
	}
}

// slug is GitHub's anchor for a heading: lower case, letters, digits, '-' and '_' kept, spaces
// made hyphens, everything else (punctuation, backquotes) dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
