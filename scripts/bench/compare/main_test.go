package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseResults(t *testing.T) {
	out := []byte("model ...\nprefill     128 tokens ...\n" +
		"RESULT test=prefill tokens=128 depth=0 tok_s=101.500 bytes_per_token=0 kv_bytes_per_token=0 type=Q8_0\n" +
		"RESULT test=decode tokens=64 depth=2048 tok_s=12.250 bytes_per_token=700000000 kv_bytes_per_token=240000000 type=Q8_0\n" +
		"RESULT test=decode tokens=64 depth=0 tok_s=not-a-number\n")
	s := parseResults(out)
	if len(s) != 2 {
		t.Fatalf("%d results, want 2 (the line without a number is skipped): %v", len(s), s)
	}
	if got := s[key{Test: "prefill", Tokens: 128}]; got.tokS != 101.5 {
		t.Errorf("prefill 128: %+v", got)
	}
	if got := s[key{Test: "decode", Tokens: 64, Depth: 2048}]; got.tokS != 12.25 || got.bytes != 700000000 || got.kv != 240000000 {
		t.Errorf("decode 64 @2048: %+v", got)
	}
}

func TestParseLlama(t *testing.T) {
	out := []byte(`[{"n_prompt": 512, "n_gen": 0, "n_depth": 0, "avg_ts": 98.5},
		{"n_prompt": 0, "n_gen": 64, "n_depth": 2048, "avg_ts": 12.0},
		{"n_prompt": 16, "n_gen": 16, "n_depth": 0, "avg_ts": 5}]`)
	s := map[key]sample{}
	if err := parseLlama(out, s); err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[key{Test: "prefill", Tokens: 512}].tokS != 98.5 || s[key{Test: "decode", Tokens: 64, Depth: 2048}].tokS != 12 {
		t.Errorf("parsed %v", s)
	}
	if err := parseLlama([]byte("error: model not found"), s); err == nil {
		t.Error("no error for output that is not JSON")
	}
}

func TestStatsAndKeys(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want stats
	}{{[]float64{3, 1, 2}, stats{2, 1, 3}}, {[]float64{4, 1, 2, 3}, stats{2.5, 1, 4}}, {[]float64{7}, stats{7, 7, 7}}} {
		if got, ok := statsOf(c.v); !ok || got != c.want {
			t.Errorf("statsOf(%v) = %+v, want %+v", c.v, got, c.want)
		}
	}
	if _, ok := statsOf(nil); ok {
		t.Error("statsOf(nil) reports a result")
	}
	r := results{samples: map[string]map[string]map[key][]sample{}, rss: map[string]map[string][]int64{}}
	ks := []key{{"decode", 64, 2048, 0}, {"prefill", 2048, 0, 0}, {"decode", 64, 0, 0}, {"prefill", 128, 0, 0}}
	for _, k := range ks {
		r.add("qwen3", "Q8_0", map[key]sample{k: {tokS: 1}}, 100<<20)
	}
	want := []key{{"prefill", 128, 0, 0}, {"prefill", 2048, 0, 0}, {"decode", 64, 0, 0}, {"decode", 64, 2048, 0}}
	if got := r.keys("Q8_0"); !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v (prefill first, then by depth and tokens)", got, want)
	}
	if st, ok := r.peakRSS("qwen3", "Q8_0"); !ok || st.med != 100 {
		t.Errorf("peak RSS %+v MiB, want 100", st)
	}
}

func TestParseBatched(t *testing.T) {
	out := []byte("main: n_kv_max = 1544 ...\n" +
		`{"n_kv_max": 1544, "pp": 128, "tg": 64, "pl": 1, "n_kv": 192, "t_pp": 1.36, "speed_pp": 93.9, "t_tg": 2.4, "speed_tg": 26.5, "t": 3.7, "speed": 73.1}` + "\n" +
		`{"n_kv_max": 1544, "pp": 128, "tg": 64, "pl": 8, "n_kv": 1536, "t_pp": 10.9, "speed_pp": 95.4, "t_tg": 8.6, "speed_tg": 59.7, "t": 19.5, "speed": 78.8}` + "\n")
	s := map[key]sample{}
	if err := parseBatched(out, s); err != nil {
		t.Fatal(err)
	}
	if len(s) != 4 || s[key{Test: "prefill", Tokens: 128, Batch: 8}].tokS != 95.4 || s[key{Test: "decode", Tokens: 64, Batch: 1}].tokS != 26.5 {
		t.Errorf("parsed %v", s)
	}
	if err := parseBatched([]byte("error: failed to load model\n"), map[key]sample{}); err == nil {
		t.Error("no error for output without results")
	}
	if err := parseBatched([]byte("{not json\n"), map[key]sample{}); err == nil {
		t.Error("no error for a broken JSON line")
	}
}

// TestParseLong: llama-batched-bench's line for one sequence gives a prefill of pp tokens from an
// empty context and a decode at depth pp, the keys of our bench's long cells; a line of several
// sequences is not a long cell.
func TestParseLong(t *testing.T) {
	out := []byte("main: n_kv_max = 8257\n" +
		`{"n_kv_max": 8257, "pp": 8192, "tg": 64, "pl": 1, "n_kv": 8256, "t_pp": 75.1, "speed_pp": 109.1, "t_tg": 10.2, "speed_tg": 6.27, "t": 85.3, "speed": 96.8}` + "\n")
	s := map[key]sample{}
	if err := parseLong(out, s); err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[key{Test: "prefill", Tokens: 8192}].tokS != 109.1 || s[key{Test: "decode", Tokens: 64, Depth: 8192}].tokS != 6.27 {
		t.Errorf("parsed %v, want prefill 8192 at 109.1 and decode 64 at depth 8192 at 6.27", s)
	}
	eight := []byte(`{"pp": 128, "tg": 64, "pl": 8, "speed_pp": 95.4, "speed_tg": 59.7}` + "\n")
	if err := parseLong(eight, map[key]sample{}); err == nil || !strings.Contains(err.Error(), "8 sequences") {
		t.Errorf("a row of 8 sequences: error %v, want one that names them", err)
	}
	if err := parseLong([]byte("error: failed to load model\n"), map[key]sample{}); err == nil {
		t.Error("no error for output without results")
	}
}

// TestEachProcess: a process per batch size (or context length) gives each of its samples that
// process's peak memory, which testRSS reads back per test, and the f16 mark of a RESULT line
// keeps llama.cpp's streamed bytes equal to ours (both float16) instead of halving our cache.
func TestEachProcess(t *testing.T) {
	s, peak, err := eachProcess([]int{1, 4}, func(b int) ([]byte, int64, error) {
		line := fmt.Sprintf("RESULT test=decode tokens=8 depth=0 batch=%d tok_s=%d bytes_per_token=1000 kv_bytes_per_token=200 type=Q8_0 kv=f16\n", b, 10*b)
		return []byte(line), int64(b) << 30, nil
	}, func(out []byte, s map[key]sample) error {
		maps.Copy(s, parseResults(out))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if peak != 4<<30 || len(s) != 2 {
		t.Fatalf("peak %d, %d samples: want the largest process's (4 GiB) and 2", peak, len(s))
	}
	r := results{samples: map[string]map[string]map[key][]sample{}, rss: map[string]map[string][]int64{}}
	r.add("qwen3", "Q8_0", s, peak)
	for _, b := range []int{1, 4} {
		k := key{Test: "decode", Tokens: 8, Batch: b}
		if st, ok := r.testRSS("qwen3", "Q8_0", k); !ok || st.med != float64(b<<10) {
			t.Errorf("batch %d: peak %+v MiB, want its own process's %d", b, st, b<<10)
		}
		if _, bytes, _ := r.speed("llama.cpp", "Q8_0", k); bytes != 1000 {
			t.Errorf("batch %d: llama.cpp streams %d bytes a token, want ours (1000: both caches float16)", b, bytes)
		}
	}
	if _, _, err := eachProcess([]int{1}, func(int) ([]byte, int64, error) { return nil, 0, errors.New("no") }, nil); err == nil {
		t.Error("a failed process gave no error")
	}
}

// TestFAText: a long run's source and peers name only the flash attention settings it ran.
func TestFAText(t *testing.T) {
	for _, c := range []struct {
		fa   []string
		want string
	}{
		{[]string{"off", "on"}, "flash attention off (engine llama.cpp) and on (engine llama.cpp fa)"},
		{[]string{"on"}, "flash attention on (engine llama.cpp fa) only"},
		{[]string{"off"}, "flash attention off (engine llama.cpp) only"},
		{nil, "flash attention not run"},
	} {
		if got := faText(c.fa); got != c.want {
			t.Errorf("faText(%q) = %q, want %q", c.fa, got, c.want)
		}
	}
}

// TestWriteJSONRanges: each row keeps the slowest and fastest of its runs beside their median,
// so that a reader of the file sees how far the runs spread.
func TestWriteJSONRanges(t *testing.T) {
	r := results{samples: map[string]map[string]map[key][]sample{}, rss: map[string]map[string][]int64{}, read: []float64{50, 51}}
	k := key{"decode", 64, 0, 16}
	for _, v := range []float64{390.1, 360.3, 375.5} {
		r.add("qwen3", "Q4_K_M", map[key]sample{k: {tokS: v}}, 780<<20)
	}
	path := filepath.Join(t.TempDir(), "b.json")
	if err := r.writeJSON(path, []string{"Q4_K_M"}, config{decode: 64, batch: []int{16}, batchPrompt: 128}, "qwen3"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Rows []jsonRow }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 1 {
		t.Fatalf("%d rows, want 1: %s", len(doc.Rows), b)
	}
	if got := doc.Rows[0]; got.TokS != 375.5 || got.TokSMin != 360.3 || got.TokSMax != 390.1 {
		t.Errorf("row tok/s %v (min %v, max %v), want 375.5 (360.3-390.1)", got.TokS, got.TokSMin, got.TokSMax)
	}
	for _, field := range []string{`"tok_s": 375.5`, `"tok_s_min": 360.3`, `"tok_s_max": 390.1`} { // the names the notebooks read
		if !strings.Contains(string(b), field) {
			t.Errorf("the file has no %s:\n%s", field, b)
		}
	}
}

// TestMachineFamily: on Linux x86-64 the machine line names the CPU's family and model from
// /proc/cpuinfo (a virtual machine's model name may be only "AMD EPYC", which names no generation).
func TestMachineFamily(t *testing.T) {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || !strings.Contains(string(b), "cpu family") {
		t.Skip("no /proc/cpuinfo with a cpu family here")
	}
	var family string
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "cpu family" {
			family = strings.TrimSpace(v)
			break
		}
	}
	if m := machine(); !strings.Contains(m, " family "+family+" model ") {
		t.Errorf("machine() = %q, want the family (%s) and model of /proc/cpuinfo", m, family)
	}
}
