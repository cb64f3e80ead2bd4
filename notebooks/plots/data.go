package plots

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
)

// Bench is notebooks/data/bench.json: measured speeds of the qwen3 engine and its peers on one
// machine, written by scripts/bench.sh (or, until it has run there, copied from an outside
// measurement that Source names).
type Bench struct {
	Machine          string            `json:"machine"`
	Date             string            `json:"date"`
	Threads          int               `json:"threads"`
	Source           string            `json:"source"`
	ReadBandwidthGBs float64           `json:"read_bandwidth_gbs"` // memory read bandwidth, GB/s (1e9 bytes)
	Peers            map[string]string `json:"peers"`              // engine -> version
	Rows             []BenchRow        `json:"rows"`
}

// BenchRow is one measurement. Tokens is the prompt length for "prefill" and the number of
// generated tokens for "decode"; Depth is the number of tokens already in the context. Batch is
// the number of sequences run together (notebooks/data/bench_batched.json: TokS is then the
// aggregate of all of them), 0 in bench.json, whose rows run one sequence. TokS is the median of
// the runs, TokSMin and TokSMax their slowest and fastest (0 in files written before the
// bench recorded them). Zero BytesPerToken or PeakRSSMiB means not measured.
type BenchRow struct {
	Engine        string  `json:"engine"`  // "qwen3", "llama.cpp", "pytorch"
	Weights       string  `json:"weights"` // "F32", "BF16", "Q8_0", "Q4_K_M", ...
	Test          string  `json:"test"`    // "prefill" or "decode"
	Tokens        int     `json:"tokens"`
	Depth         int     `json:"depth"`
	Batch         int     `json:"batch,omitempty"`
	TokS          float64 `json:"tok_s"`
	TokSMin       float64 `json:"tok_s_min,omitempty"`
	TokSMax       float64 `json:"tok_s_max,omitempty"`
	BytesPerToken int64   `json:"bytes_per_token"` // weight bytes streamed per decoded token
	PeakRSSMiB    float64 `json:"peak_rss_mib"`
}

// LoadBench reads and checks a bench.json file: a positive bandwidth, and rows that name an
// engine and weights, a test that is "prefill" or "decode", a positive speed and, when the file
// gives them, both ends of its runs' range around it.
func LoadBench(path string) (*Bench, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	var b Bench
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", path, err)
	}
	if !(b.ReadBandwidthGBs > 0) {
		return nil, fmt.Errorf("plots: %s: read_bandwidth_gbs is %g, want a positive GB/s figure", path, b.ReadBandwidthGBs)
	}
	if len(b.Rows) == 0 {
		return nil, fmt.Errorf("plots: %s: no rows", path)
	}
	for i, r := range b.Rows {
		switch {
		case r.Engine == "" || r.Weights == "":
			return nil, fmt.Errorf("plots: %s: row %d has no engine or weights", path, i)
		case r.Test != "prefill" && r.Test != "decode":
			return nil, fmt.Errorf("plots: %s: row %d: test %q, want \"prefill\" or \"decode\"", path, i, r.Test)
		case !(r.TokS > 0):
			return nil, fmt.Errorf("plots: %s: row %d: tok_s %g, want a positive speed", path, i, r.TokS)
		case (r.TokSMin != 0 || r.TokSMax != 0) && !(0 < r.TokSMin && r.TokSMin <= r.TokS && r.TokS <= r.TokSMax):
			return nil, fmt.Errorf("plots: %s: row %d: tok_s %g outside its runs' range %g-%g", path, i, r.TokS, r.TokSMin, r.TokSMax)
		case r.Tokens < 0 || r.Depth < 0 || r.Batch < 0 || r.BytesPerToken < 0:
			return nil, fmt.Errorf("plots: %s: row %d: negative tokens, depth, batch or bytes_per_token", path, i)
		}
	}
	return &b, nil
}

// Find returns the row of engine, weights and test at depth (for prefill also: of that prompt
// length; tokens 0 matches any), and whether there is one.
func (b *Bench) Find(engine, weights, test string, tokens, depth int) (BenchRow, bool) {
	for _, r := range b.Rows {
		if r.Engine == engine && r.Weights == weights && r.Test == test && r.Depth == depth &&
			(tokens == 0 || r.Tokens == tokens) {
			return r, true
		}
	}
	return BenchRow{}, false
}

// FindBatch returns the row of engine, weights and test run with batch sequences together (the
// rows of bench_batched.json), and whether there is one.
func (b *Bench) FindBatch(engine, weights, test string, batch int) (BenchRow, bool) {
	for _, r := range b.Rows {
		if r.Engine == engine && r.Weights == weights && r.Test == test && r.Batch == batch {
			return r, true
		}
	}
	return BenchRow{}, false
}

// Bound is the decode speed that memory bandwidth allows when every token streams
// r.BytesPerToken bytes: read_bandwidth_gbs * 1e9 / bytes_per_token tokens per second, or 0
// when the bytes are not known.
func (b *Bench) Bound(r BenchRow) float64 {
	if r.BytesPerToken <= 0 {
		return 0
	}
	return b.ReadBandwidthGBs * 1e9 / float64(r.BytesPerToken)
}

// readRange finds the spread of the read-bandwidth probe in a bench.json source line, as
// scripts/bench.sh writes it: "median of 6 measurements (41.3-78.5 GB/s)".
var readRange = regexp.MustCompile(`median of \d+ measurements \(([0-9.]+)-([0-9.]+) GB/s\)`)

// ReadRange is the lowest and the highest read bandwidth the run measured (GB/s), of which
// ReadBandwidthGBs is the median, taken from the Source line; ok is false when Source does not
// give them. A machine whose bandwidth moves during a run can decode above Bound (the median's
// bound) and still below the fastest read measured: Bound scaled by hi / ReadBandwidthGBs.
func (b *Bench) ReadRange() (lo, hi float64, ok bool) {
	m := readRange.FindStringSubmatch(b.Source)
	if m == nil {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseFloat(m[1], 64)
	hi, err2 := strconv.ParseFloat(m[2], 64)
	if err1 != nil || err2 != nil || !(lo > 0 && lo <= b.ReadBandwidthGBs && b.ReadBandwidthGBs <= hi) {
		return 0, 0, false
	}
	return lo, hi, true
}

// GoBench is one result line of `go test -bench`: the benchmark's name without the
// "Benchmark" prefix and the -GOMAXPROCS suffix, its iteration count and time per operation.
type GoBench struct {
	Name    string
	N       int
	NsPerOp float64
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+(\d+)\s+([0-9.e+]+) ns/op`)

// ReadGoBench reads the result lines of `go test -bench` output saved in path, in order; other
// lines (goos, pkg, PASS) are skipped. A file without results is an error.
func ReadGoBench(path string) ([]GoBench, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	defer f.Close()
	var out []GoBench
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, err1 := strconv.Atoi(m[2])
		ns, err2 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("plots: %s: bad benchmark line %q", path, sc.Text())
		}
		out = append(out, GoBench{Name: m[1], N: n, NsPerOp: ns})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("plots: %s: no benchmark results", path)
	}
	return out, nil
}

// Medians returns the median time per operation (ns) of each benchmark name in results, for
// output with several runs of each (go test -count N).
func Medians(results []GoBench) map[string]float64 {
	byName := map[string][]float64{}
	for _, r := range results {
		byName[r.Name] = append(byName[r.Name], r.NsPerOp)
	}
	out := make(map[string]float64, len(byName))
	for name, v := range byName {
		slices.Sort(v)
		if n := len(v); n%2 == 1 {
			out[name] = v[n/2]
		} else {
			out[name] = (v[n/2-1] + v[n/2]) / 2
		}
	}
	return out
}

// TopIndices returns the indices of the n largest values of v, largest first (ties in index
// order); all of them when n > len(v).
func TopIndices(v []float64, n int) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case v[a] > v[b]:
			return -1
		case v[a] < v[b]:
			return 1
		}
		return 0
	})
	return idx[:min(n, len(idx))]
}
