// Command compare runs the qwen3 engine and its peers on the same files, interleaved and
// repeated, and prints one table of speeds with ratios (ours / peer); it also writes the numbers as
// JSON for the notebooks. scripts/bench.sh builds everything and calls it; see there for use.
//
// Each repetition runs every file through every engine, alternating which engine goes first, so
// that a slow moment of a shared machine hits both; the table gives the median of the repetitions
// and their spread (min-max). Peak memory is the largest resident set of the engine's process.
//
// Engines are runners: a runner takes one file and returns samples keyed by test (prefill or
// decode, tokens, context depth, batch size). To add a peer or a kind of test (e.g. batched
// decoding with llama-batched-bench), write a runner that returns samples with new keys and add
// it to the list in main; the table and the JSON take whatever keys the runners return.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/scripts/bench/internal/ints"
)

// key identifies one measurement of one engine on one file.
type key struct {
	Test   string // "prefill" or "decode" (a runner may add others)
	Tokens int    // prompt length for prefill, tokens generated for decode
	Depth  int    // tokens already in the context
	Batch  int    // sequences decoded together; 0 for one
}

func (k key) String() string {
	s := fmt.Sprintf("%s %d", k.Test, k.Tokens)
	if k.Depth > 0 {
		s += fmt.Sprintf(" @%d", k.Depth)
	}
	if k.Batch > 0 {
		s += fmt.Sprintf(" x%d", k.Batch)
	}
	return s
}

// sample is one measured speed, with the bytes one decoded token streams (0 if not known) and
// the part of them that is the KV cache (f16: a float16 cache, else float32), and the peak resident
// memory of the process that measured it when that process ran this test's batch size or context
// alone (0: the engine's peak over the whole file, results.rss).
type sample struct {
	tokS      float64
	bytes, kv int64
	f16       bool
	rss       int64
}

// runner runs one engine on one file and returns its samples and its peak resident memory.
type runner interface {
	name() string
	run(file string) (map[key]sample, int64, error)
}

// config is what every runner shares.
type config struct {
	threads  int
	prefill  []int
	decode   int
	depth    []int
	verbose  bool
	bench    string // our bench binary
	llamaDir string // llama.cpp's binaries ("" to skip)
	python   string // a Python with torch and transformers ("" to skip)
	torchPy  string // scripts/bench_torch.py
	// batched generation (-batch): batch sizes and each sequence's prompt length; when set,
	// the engines run only batched tests (ours: bench -batch; llama.cpp: llama-batched-bench)
	batch       []int
	batchPrompt int
	// long contexts (-long): prompt lengths L; each engine prefills L tokens and decodes decode
	// tokens at depth L, one process per L (ours: bench -prefill L -depth L, its default KV cache,
	// float16 past 4096 tokens; llama.cpp: llama-batched-bench with each flash attention setting of
	// longFA, which decodes after its own prompt, so one prefill serves both cells)
	long   []int
	longFA []string // "off", "on": the settings run, in order
}

// faText says which of llama.cpp's flash attention settings a long-context run had, and under
// which engine name each one's rows are: what the JSON's source and peers say of them.
func faText(fa []string) string {
	var parts []string
	for _, f := range fa {
		switch f {
		case "off":
			parts = append(parts, "off (engine llama.cpp)")
		case "on":
			parts = append(parts, "on (engine llama.cpp fa)")
		}
	}
	switch len(parts) {
	case 0:
		return "flash attention not run"
	case 1:
		return "flash attention " + parts[0] + " only"
	}
	return "flash attention " + strings.Join(parts, " and ")
}

func main() {
	var c config
	synth := flag.String("synth", "", "directory of the synthetic GGUF files (qwen3-0.6b-<weights>.gguf)")
	files := flag.String("weights", "f32,bf16,q8_0,q4_k_m,q4_0,q6_k", "weight types to run, comma-separated")
	reps := flag.Int("reps", 3, "repetitions")
	prefill := flag.String("prefill", "128,512,2048", "prompt lengths")
	depth := flag.String("depth", "0,2048", "decode depths")
	out := flag.String("json", "", "write the results as JSON here")
	extra := flag.String("builds", "", "other builds of scripts/bench to run too: name=path,name=path")
	outBuilds := flag.String("json-builds", "", "write every build's results (engine = build name) and llama.cpp's as JSON here")
	flag.IntVar(&c.threads, "threads", runtime.NumCPU(), "threads for every engine")
	flag.IntVar(&c.decode, "decode", 64, "tokens to decode per depth")
	flag.StringVar(&c.bench, "bench", "", "the qwen3 bench binary (go build ./scripts/bench)")
	flag.StringVar(&c.llamaDir, "llama", "", "directory of llama-bench (empty: no llama.cpp)")
	flag.StringVar(&c.python, "python", "", "Python with torch and transformers (empty: no PyTorch)")
	flag.StringVar(&c.torchPy, "torch-script", "scripts/bench_torch.py", "the PyTorch bench script")
	flag.BoolVar(&c.verbose, "v", false, "print every run's output")
	batch := flag.String("batch", "", "batch sizes: run only batched generation, B prompts at once (e.g. 1,2,4,8)")
	flag.IntVar(&c.batchPrompt, "batch-prompt", 128, "prompt tokens of each sequence of a batch")
	long := flag.String("long", "", "long contexts: run only prefill of each length and decoding at that depth (e.g. 8192,16384,32768)")
	longFA := flag.String("long-fa", "off,on", "long contexts: llama.cpp's flash attention settings to run, comma-separated (off, on; llama.cpp with -fa on took 22 minutes for its 32k cells on 2 cores, 2026-11-28, so one setting can be left out)")
	flag.Parse()
	var err error
	if c.prefill, err = ints.Parse(*prefill); err == nil {
		c.depth, err = ints.Parse(*depth)
	}
	if err == nil {
		c.batch, err = ints.Parse(*batch)
	}
	if err == nil {
		c.long, err = ints.Parse(*long)
	}
	if err == nil && len(c.batch) > 0 && len(c.long) > 0 {
		err = errors.New("-batch and -long: one kind of run at a time")
	}
	if err != nil || *synth == "" || c.bench == "" || *reps < 1 {
		fmt.Fprintln(os.Stderr, "usage: compare -synth DIR -bench BIN [-llama DIR] [-python PY] [-reps 3] [-json FILE]", err)
		os.Exit(2)
	}
	runners := []runner{ours{&c, "qwen3", c.bench}}
	var builds []string
	for _, b := range strings.Split(*extra, ",") {
		if name, path, ok := strings.Cut(strings.TrimSpace(b), "="); ok {
			runners = append(runners, ours{&c, name, path})
			builds = append(builds, name)
		}
	}
	if c.llamaDir != "" && len(c.long) > 0 {
		for _, fa := range strings.Split(*longFA, ",") {
			switch fa = strings.TrimSpace(fa); fa {
			case "off", "on":
				runners = append(runners, llama{&c, fa})
				c.longFA = append(c.longFA, fa)
			default:
				fmt.Fprintf(os.Stderr, "compare: -long-fa %q: want off, on or both (comma-separated), not %q\n", *longFA, fa)
				os.Exit(2)
			}
		}
	} else if c.llamaDir != "" {
		runners = append(runners, llama{&c, ""})
	}
	var weights []string
	for _, w := range strings.Split(*files, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		path := filepath.Join(*synth, "qwen3-0.6b-"+strings.ToLower(w)+".gguf")
		if _, err := os.Stat(path); err != nil {
			fmt.Fprintf(os.Stderr, "compare: skipping %s: %v\n", w, err)
			continue
		}
		weights = append(weights, strings.ToUpper(w))
	}
	r := results{samples: map[string]map[string]map[key][]sample{}, rss: map[string]map[string][]int64{}}
	start := time.Now()
	r.read = append(r.read, measureRead(c.bench))
	for rep := 0; rep < *reps; rep++ {
		for i, w := range weights {
			path := filepath.Join(*synth, "qwen3-0.6b-"+strings.ToLower(w)+".gguf")
			order := slices.Clone(runners)
			if (rep+i)%2 == 1 {
				slices.Reverse(order)
			}
			for _, e := range order {
				fmt.Fprintf(os.Stderr, "compare: run %d/%d, %s, %s (%.0f s so far)\n", rep+1, *reps, w, e.name(), time.Since(start).Seconds())
				s, rss, err := e.run(path)
				if err != nil {
					fmt.Fprintf(os.Stderr, "compare: %s on %s: %v\n", e.name(), w, err)
					continue
				}
				r.add(e.name(), w, s, rss)
			}
		}
		if c.python != "" {
			fmt.Fprintf(os.Stderr, "compare: run %d/%d, PyTorch (F32)\n", rep+1, *reps)
			s, rss, err := torch{&c}.run("")
			if err != nil {
				fmt.Fprintln(os.Stderr, "compare: pytorch:", err)
			} else {
				r.add("pytorch", "F32", s, rss)
			}
		}
		r.read = append(r.read, measureRead(c.bench))
	}
	r.peers = map[string]string{}
	if c.llamaDir != "" {
		r.peers["llama.cpp"] = llamaVersion(c.llamaDir, c)
	}
	if c.python != "" {
		r.peers["pytorch"] = torchVersion(c.python)
	}
	r.print(os.Stdout, weights, c)
	if len(builds) > 0 {
		r.printBuilds(os.Stdout, weights, append(builds, "qwen3"))
	}
	if *outBuilds != "" {
		if err := r.writeJSON(*outBuilds, weights, c, append(builds, "qwen3", "llama.cpp")...); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "compare: wrote", *outBuilds)
	}
	if *out != "" {
		if err := r.writeJSON(*out, weights, c, "qwen3", "llama.cpp", "llama.cpp fa", "pytorch"); err != nil {
			fmt.Fprintln(os.Stderr, "compare:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "compare: wrote", *out)
	}
}

// runTool runs a program and returns its standard output and its peak resident memory in bytes.
func runTool(verbose bool, name string, args ...string) ([]byte, int64, error) {
	cmd := exec.Command(name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if verbose {
		fmt.Fprintf(os.Stderr, "$ %s %s\n%s%s", name, strings.Join(args, " "), out.String(), errb.String())
	}
	if err != nil {
		tail := strings.TrimSpace(errb.String())
		if i := strings.LastIndex(tail, "\n"); i >= 0 {
			tail = tail[i+1:]
		}
		return nil, 0, fmt.Errorf("%s: %v: %s", filepath.Base(name), err, tail)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
		if runtime.GOOS == "darwin" {
			rss = ru.Maxrss // bytes on macOS
		}
	}
	return out.Bytes(), rss, nil
}

// parseResults reads "RESULT k=v ..." lines (our bench and bench_torch.py print them).
func parseResults(out []byte) map[key]sample {
	s := map[key]sample{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "RESULT" {
			continue
		}
		kv := map[string]string{}
		for _, p := range f[1:] {
			if k, v, ok := strings.Cut(p, "="); ok {
				kv[k] = v
			}
		}
		atoi := func(k string) int { n, _ := strconv.Atoi(kv[k]); return n }
		tok, err := strconv.ParseFloat(kv["tok_s"], 64)
		if err != nil || kv["test"] == "" {
			continue
		}
		bytesPer, _ := strconv.ParseInt(kv["bytes_per_token"], 10, 64)
		kvPer, _ := strconv.ParseInt(kv["kv_bytes_per_token"], 10, 64)
		s[key{Test: kv["test"], Tokens: atoi("tokens"), Depth: atoi("depth"), Batch: atoi("batch")}] = sample{tokS: tok, bytes: bytesPer, kv: kvPer, f16: kv["kv"] == "f16"}
	}
	return s
}

// --- the engines ---------------------------------------------------------------------------

// ours runs a build of scripts/bench: the current one ("qwen3") or, with -builds, others (e.g.
// the engine at earlier commits, to measure what each change bought).
type ours struct {
	c          *config
	label, bin string
}

func (e ours) name() string { return e.label }

func (e ours) run(file string) (map[key]sample, int64, error) {
	args := []string{"-model", file, "-threads", strconv.Itoa(e.c.threads), "-decode", strconv.Itoa(e.c.decode)}
	switch {
	case len(e.c.batch) > 0: // a process per batch size, so that each has its own peak memory
		return eachProcess(e.c.batch, func(b int) ([]byte, int64, error) {
			return runTool(e.c.verbose, e.bin, append(slices.Clone(args), "-batch", strconv.Itoa(b), "-batch-prompt", strconv.Itoa(e.c.batchPrompt))...)
		}, func(out []byte, s map[key]sample) error {
			maps.Copy(s, parseResults(out))
			return nil
		})
	case len(e.c.long) > 0: // a process per context length
		return eachProcess(e.c.long, func(l int) ([]byte, int64, error) {
			return runTool(e.c.verbose, e.bin, append(slices.Clone(args), "-prefill", strconv.Itoa(l), "-depth", strconv.Itoa(l))...)
		}, func(out []byte, s map[key]sample) error {
			maps.Copy(s, parseResults(out))
			return nil
		})
	}
	args = append(args, "-prefill", ints.Join(e.c.prefill), "-depth", ints.Join(e.c.depth))
	out, rss, err := runTool(e.c.verbose, e.bin, args...)
	if err != nil {
		return nil, 0, err
	}
	return parseResults(out), rss, nil
}

// eachProcess runs one process per value of ns (run), reads each one's samples (parse) and sets
// their peak memory to that process's; it returns them all and the largest peak.
func eachProcess(ns []int, run func(n int) ([]byte, int64, error), parse func(out []byte, s map[key]sample) error) (map[key]sample, int64, error) {
	all := map[key]sample{}
	var peak int64
	for _, n := range ns {
		out, rss, err := run(n)
		if err != nil {
			return nil, 0, err
		}
		s := map[key]sample{}
		if err := parse(out, s); err != nil {
			return nil, 0, err
		}
		for k, v := range s {
			v.rss = rss
			all[k] = v
		}
		peak = max(peak, rss)
	}
	return all, peak, nil
}

// llama runs llama-bench with its defaults (F16 KV cache, its own choice of flash attention:
// auto, which a CPU build turns on: src/llama-context.cpp's resolve_fused_ops enables it unless a
// layer's attention lands on another device), one repetition per call: prompts and decoding from an empty
// context in one call, decoding at each other depth in another. Batches and long contexts take
// llama-batched-bench (runBatched, runLong); the long cells with flash attention fa.
type llama struct {
	c  *config
	fa string // -fa: "" (its default), "off" or "on"
}

func (e llama) name() string {
	if e.fa == "on" {
		return "llama.cpp fa"
	}
	return "llama.cpp"
}

func (e llama) run(file string) (map[key]sample, int64, error) {
	if len(e.c.batch) > 0 {
		return e.runBatched(file)
	}
	bin := filepath.Join(e.c.llamaDir, "llama-bench")
	common := []string{"-m", file, "-t", strconv.Itoa(e.c.threads), "-r", "1", "-o", "json"}
	if e.fa != "" {
		common = append(common, "-fa", e.fa)
	}
	if len(e.c.long) > 0 {
		return e.runLong(file)
	}
	calls := [][]string{append(slices.Clone(common), "-p", ints.Join(e.c.prefill), "-n", strconv.Itoa(e.c.decode))}
	var deep []int
	for _, d := range e.c.depth {
		if d > 0 {
			deep = append(deep, d)
		}
	}
	if len(deep) > 0 && e.c.decode > 0 {
		calls = append(calls, append(slices.Clone(common), "-p", "0", "-n", strconv.Itoa(e.c.decode), "-d", ints.Join(deep)))
	}
	s := map[key]sample{}
	var peak int64
	for _, args := range calls {
		out, rss, err := runTool(e.c.verbose, bin, args...)
		if err != nil {
			return nil, 0, err
		}
		peak = max(peak, rss)
		if err := parseLlama(out, s); err != nil {
			return nil, 0, err
		}
	}
	return s, peak, nil
}

// parseLlama adds the tests of llama-bench's JSON output (-o json) to s: a prompt test
// (n_prompt > 0, n_gen 0) is a prefill, a generation test (n_gen > 0, n_prompt 0) a decode.
func parseLlama(out []byte, s map[key]sample) error {
	var rows []struct {
		NPrompt int     `json:"n_prompt"`
		NGen    int     `json:"n_gen"`
		NDepth  int     `json:"n_depth"`
		AvgTS   float64 `json:"avg_ts"`
	}
	if err := json.Unmarshal(out, &rows); err != nil {
		return fmt.Errorf("llama-bench output: %v", err)
	}
	for _, r := range rows {
		switch {
		case r.NPrompt > 0 && r.NGen == 0:
			s[key{Test: "prefill", Tokens: r.NPrompt, Depth: r.NDepth}] = sample{tokS: r.AvgTS}
		case r.NGen > 0 && r.NPrompt == 0:
			s[key{Test: "decode", Tokens: r.NGen, Depth: r.NDepth}] = sample{tokS: r.AvgTS}
		}
	}
	return nil
}

// runBatched runs llama-batched-bench: for each batch size B, B prompts of batchPrompt tokens
// (not shared), then decode tokens of each sequence decoded together, a process for every B with
// a context of B sequences (so that each has its own peak memory, as ours).
func (e llama) runBatched(file string) (map[key]sample, int64, error) {
	return eachProcess(e.c.batch, func(b int) ([]byte, int64, error) {
		ctx := b * (e.c.batchPrompt + e.c.decode + 1)
		return runTool(e.c.verbose, filepath.Join(e.c.llamaDir, "llama-batched-bench"), "-m", file,
			"-t", strconv.Itoa(e.c.threads), "-c", strconv.Itoa(ctx), "-b", "2048", "-ub", "512",
			"-npp", strconv.Itoa(e.c.batchPrompt), "-ntg", strconv.Itoa(e.c.decode), "-npl", strconv.Itoa(b),
			"--output-format", "jsonl")
	}, parseBatched)
}

// runLong measures the long-context cells with llama-batched-bench, one process per length L: a
// prompt of L tokens from an empty context (speed_pp), then decode tokens decoded after it, at
// depth L (speed_tg), -fa as e.fa. One prefill serves both cells, where llama-bench warms up with
// an untimed prompt of L tokens, times another, and for -d L fills the context once more before it
// decodes: at 32k tokens with flash attention one such prefill took 21 minutes on two cores
// (2026-11-28). The batch settings are llama-bench's defaults
// (-b 2048 -ub 512), so the prompt runs as llama-bench's -p L runs it.
func (e llama) runLong(file string) (map[key]sample, int64, error) {
	return eachProcess(e.c.long, func(l int) ([]byte, int64, error) {
		args := []string{"-m", file, "-t", strconv.Itoa(e.c.threads), "-c", strconv.Itoa(l + e.c.decode + 1),
			"-b", "2048", "-ub", "512", "-npp", strconv.Itoa(l), "-ntg", strconv.Itoa(e.c.decode), "-npl", "1",
			"--output-format", "jsonl"}
		if e.fa != "" {
			args = append(args, "-fa", e.fa)
		}
		return runTool(e.c.verbose, filepath.Join(e.c.llamaDir, "llama-batched-bench"), args...)
	}, parseLong)
}

// batchedRow is one result line of llama-batched-bench's JSON lines output.
type batchedRow struct {
	PP      int     `json:"pp"`       // prompt tokens of each sequence
	TG      int     `json:"tg"`       // tokens decoded per sequence
	PL      int     `json:"pl"`       // sequences
	SpeedPP float64 `json:"speed_pp"` // all prompts' tokens over the prompt time
	SpeedTG float64 `json:"speed_tg"` // all decoded tokens over the decoding time
}

// batchedRows returns the result lines of llama-batched-bench's output (--output-format jsonl);
// other lines (logs) are skipped, and output without results is an error.
func batchedRows(out []byte) ([]batchedRow, error) {
	var rows []batchedRow
	for line := range strings.Lines(string(out)) {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var r batchedRow
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("llama-batched-bench output: %v", err)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, errors.New("llama-batched-bench printed no results")
	}
	return rows, nil
}

// parseLong reads llama-batched-bench's rows for one sequence (pl 1) as the long-context cells:
// speed_pp as a prefill of pp tokens from an empty context, speed_tg as a decode of tg tokens at
// depth pp.
func parseLong(out []byte, s map[key]sample) error {
	rows, err := batchedRows(out)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r.PL != 1 {
			return fmt.Errorf("llama-batched-bench output: a row of %d sequences where one was asked for", r.PL)
		}
		s[key{Test: "prefill", Tokens: r.PP}] = sample{tokS: r.SpeedPP}
		s[key{Test: "decode", Tokens: r.TG, Depth: r.PP}] = sample{tokS: r.SpeedTG}
	}
	return nil
}

// parseBatched adds llama-batched-bench's rows to s: speed_pp as a prefill of batch B (pl),
// speed_tg as a decode of batch B.
func parseBatched(out []byte, s map[key]sample) error {
	rows, err := batchedRows(out)
	if err != nil {
		return err
	}
	for _, r := range rows {
		s[key{Test: "prefill", Tokens: r.PP, Batch: r.PL}] = sample{tokS: r.SpeedPP}
		s[key{Test: "decode", Tokens: r.TG, Batch: r.PL}] = sample{tokS: r.SpeedTG}
	}
	return nil
}

// llamaVersion is the VERSION line scripts/bench/llamacpp.sh leaves beside the binaries (the
// sources carry no git metadata, so llama-bench cannot tell its own commit).
func llamaVersion(dir string, c config) string {
	v := "llama.cpp (unknown version)"
	if b, err := os.ReadFile(filepath.Join(dir, "VERSION")); err == nil {
		v = strings.TrimSpace(string(b))
	}
	if len(c.batch) > 0 {
		return v + fmt.Sprintf("; llama-batched-bench -b 2048 -ub 512 -npp %d -ntg %d, -npl B and -c B*%d for each B of %s, one process each, its default settings (F16 KV cache)",
			c.batchPrompt, c.decode, c.batchPrompt+c.decode+1, ints.Join(c.batch))
	}
	if len(c.long) > 0 {
		return v + fmt.Sprintf("; llama-batched-bench -b 2048 -ub 512 -npl 1 -npp L -ntg %d -c L+%d for each L of %s, one process each "+
			"(the prompt of L tokens, then %d tokens decoded at depth L after it), F16 KV cache (its default); "+
			"%s", c.decode, c.decode+1, ints.Join(c.long), c.decode, faText(c.longFA))
	}
	return v + "; llama-bench -r 1, its default settings (F16 KV cache)"
}

// torch runs bench_torch.py: transformers' Qwen3 in float32 with the same config and random
// weights (it does not read the GGUF files).
type torch struct{ c *config }

func (torch) name() string { return "pytorch" }

func (e torch) run(string) (map[key]sample, int64, error) {
	out, rss, err := runTool(e.c.verbose, e.c.python, e.c.torchPy, "--threads", strconv.Itoa(e.c.threads),
		"--prefill", ints.Join(e.c.prefill), "--decode", strconv.Itoa(e.c.decode), "--depth", ints.Join(e.c.depth))
	if err != nil {
		return nil, 0, err
	}
	return parseResults(out), rss, nil
}

func torchVersion(python string) string {
	out, err := exec.Command(python, "-c", "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)").Output()
	if err != nil {
		return "unknown version"
	}
	return strings.TrimSpace(string(out)) + ", float32, sdpa attention"
}

// measureRead returns the read bandwidth our bench binary measures, in GB/s.
func measureRead(bench string) float64 {
	out, err := exec.Command(bench, "-measure-read").Output()
	if err != nil {
		return 0
	}
	v, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "READ")), 64)
	return v
}

// --- results ---------------------------------------------------------------------------------

type results struct {
	samples map[string]map[string]map[key][]sample // engine -> weights -> key -> runs
	rss     map[string]map[string][]int64          // engine -> weights -> runs
	read    []float64                              // GB/s, before and after every repetition
	peers   map[string]string
}

func (r *results) add(engine, weights string, s map[key]sample, rss int64) {
	if r.samples[engine] == nil {
		r.samples[engine], r.rss[engine] = map[string]map[key][]sample{}, map[string][]int64{}
	}
	if r.samples[engine][weights] == nil {
		r.samples[engine][weights] = map[key][]sample{}
	}
	for k, v := range s {
		r.samples[engine][weights][k] = append(r.samples[engine][weights][k], v)
	}
	r.rss[engine][weights] = append(r.rss[engine][weights], rss)
}

// stats are the median and the extremes of some runs.
type stats struct{ med, lo, hi float64 }

func statsOf(v []float64) (stats, bool) {
	if len(v) == 0 {
		return stats{}, false
	}
	v = slices.Sorted(slices.Values(v))
	med := v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return stats{med, v[0], v[len(v)-1]}, true
}

// speed returns an engine's speed on a test and the bytes a decoded token streams: its own
// figure, or for llama.cpp ours with the KV cache halved (llama.cpp keeps it in float16).
func (r *results) speed(engine, weights string, k key) (stats, int64, bool) {
	var v []float64
	for _, s := range r.samples[engine][weights][k] {
		v = append(v, s.tokS)
	}
	st, ok := statsOf(v)
	var b int64
	if runs := r.samples["qwen3"][weights][k]; len(runs) > 0 {
		b = runs[0].bytes
		if strings.HasPrefix(engine, "llama.cpp") && !runs[0].f16 {
			b -= runs[0].kv / 2 // llama.cpp's cache is float16, ours was float32
		}
	}
	if engine == "pytorch" {
		b = 0
	}
	return st, b, ok
}

// testRSS is the peak memory of the processes that ran test k alone (a batch size, a context
// length), in MiB.
func (r *results) testRSS(engine, weights string, k key) (stats, bool) {
	var v []float64
	for _, s := range r.samples[engine][weights][k] {
		if s.rss > 0 {
			v = append(v, float64(s.rss)/(1<<20))
		}
	}
	return statsOf(v)
}

func (r *results) peakRSS(engine, weights string) (stats, bool) {
	var v []float64
	for _, b := range r.rss[engine][weights] {
		v = append(v, float64(b)/(1<<20))
	}
	return statsOf(v)
}

func (r *results) keys(weights string) []key {
	seen := map[key]bool{}
	for _, byWeights := range r.samples {
		for k := range byWeights[weights] {
			seen[k] = true
		}
	}
	ks := slices.Collect(func(yield func(key) bool) {
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	})
	slices.SortFunc(ks, func(a, b key) int {
		if a.Test != b.Test {
			return strings.Compare(b.Test, a.Test) // prefill before decode
		}
		if a.Batch != b.Batch {
			return a.Batch - b.Batch
		}
		if a.Depth != b.Depth {
			return a.Depth - b.Depth
		}
		return a.Tokens - b.Tokens
	})
	return ks
}

func machine() string {
	name := "unknown CPU"
	if runtime.GOOS == "darwin" { // an Apple M-series Mac: the chip's name and memory from sysctl
		if b, err := exec.Command("sysctl", "-n", "machdep.cpu.brand_string").Output(); err == nil {
			name = strings.TrimSpace(string(b))
		}
		mem := ""
		if b, err := exec.Command("sysctl", "-n", "hw.memsize").Output(); err == nil {
			if n, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil {
				mem = fmt.Sprintf(", %.0f GiB", n/(1<<30))
			}
		}
		return fmt.Sprintf("%s, %d cores%s; qwen3 kernels %s", name, runtime.NumCPU(), mem, qwen3.Kernels())
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil && runtime.GOARCH == "arm64" {
		name = "arm64 CPU" // Linux on arm64 names no model; the kernels' level says what it has
	} else if err == nil {
		fields := map[string]string{} // the first CPU's
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				if k = strings.TrimSpace(k); fields[k] == "" {
					fields[k] = strings.TrimSpace(v)
				}
			}
		}
		if fields["model name"] != "" {
			name = fields["model name"]
		}
		// A virtual machine's model name may be only "AMD EPYC"; family and model tell its
		// generation (25 and 17: Zen 4, whose AVX-512 runs on 256-bit units; 26: Zen 5).
		if fields["cpu family"] != "" && fields["model"] != "" {
			name += " family " + fields["cpu family"] + " model " + fields["model"]
		}
		var flags []string
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
				for _, f := range []string{"avx2", "fma", "f16c", "avx512f", "avx512_vnni"} {
					if slices.Contains(strings.Fields(v), f) {
						flags = append(flags, strings.ToUpper(f))
					}
				}
				break
			}
		}
		if !slices.Contains(flags, "AVX512F") {
			flags = append(flags, "no AVX-512")
		}
		name += " (" + strings.Join(flags, ", ") + ")"
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %f kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB", kb/(1<<20))
		}
	}
	return fmt.Sprintf("%s, %d cores%s; qwen3 kernels %s", name, runtime.NumCPU(), mem, qwen3.Kernels())
}

func fmtStats(s stats, prec int) string {
	f := "%." + strconv.Itoa(prec) + "f"
	if s.lo == s.hi {
		return fmt.Sprintf(f, s.med)
	}
	return fmt.Sprintf(f+" ("+f+"-"+f+")", s.med, s.lo, s.hi)
}

func (r *results) print(w *os.File, weights []string, c config) {
	read, _ := statsOf(r.read)
	fmt.Fprintf(w, "\nmachine: %s; %d threads per engine; %s\n", machine(), c.threads, time.Now().Format("2006-01-02"))
	fmt.Fprintf(w, "read bandwidth (all cores, a 1 GiB read stream, best of 5; measured %d times): %s GB/s\n", len(r.read), fmtStats(read, 1))
	for p, v := range r.peers {
		fmt.Fprintf(w, "%s: %s\n", p, v)
	}
	fmt.Fprintf(w, "tok/s: median of the runs (min-max); ratio = qwen3 / llama.cpp; bound = read bandwidth / bytes per decoded token\n\n")
	fmt.Fprintln(w, "| weights | test | ratio | qwen3 | llama.cpp | qwen3 of bound | llama.cpp of bound |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, wt := range weights {
		for _, k := range r.keys(wt) {
			a, bytesA, okA := r.speed("qwen3", wt, k)
			b, _, okB := r.speed("llama.cpp", wt, k)
			ratio, sa, sb, fa, fb := "-", "-", "-", "", ""
			if okA {
				sa = fmtStats(a, 1)
			}
			if okB {
				sb = fmtStats(b, 1)
			}
			if okA && okB {
				ratio = fmt.Sprintf("%.2fx", a.med/b.med)
			}
			if k.Test == "decode" && bytesA > 0 && read.med > 0 {
				if okA {
					fa = fmt.Sprintf("%.2f", a.med*float64(bytesA)/(read.med*1e9))
				}
				if _, bytesB, _ := r.speed("llama.cpp", wt, k); okB {
					fb = fmt.Sprintf("%.2f", b.med*float64(bytesB)/(read.med*1e9))
				}
			}
			fmt.Fprintf(w, "| %s | %v | %s | %s | %s | %s | %s |\n", wt, k, ratio, sa, sb, fa, fb)
		}
		a, okA := r.peakRSS("qwen3", wt)
		b, okB := r.peakRSS("llama.cpp", wt)
		if okA || okB {
			ratio := "-"
			if okA && okB {
				ratio = fmt.Sprintf("%.2fx", a.med/b.med)
			}
			sa, sb := "-", "-"
			if okA {
				sa = fmt.Sprintf("%.0f", a.med)
			}
			if okB {
				sb = fmt.Sprintf("%.0f", b.med)
			}
			fmt.Fprintf(w, "| %s | peak RSS MiB (lower is better) | %s | %s | %s | | |\n", wt, ratio, sa, sb)
		}
	}
	if len(r.samples["llama.cpp fa"]) > 0 {
		fmt.Fprintln(w, "\nllama.cpp with flash attention on (-fa on); ratio = qwen3 / llama.cpp fa:")
		fmt.Fprintln(w, "| weights | test | ratio | qwen3 | llama.cpp fa |\n|---|---|---|---|---|")
		for _, wt := range weights {
			for _, k := range r.keys(wt) {
				a, _, okA := r.speed("qwen3", wt, k)
				b, _, okB := r.speed("llama.cpp fa", wt, k)
				if !okB {
					continue
				}
				ratio, sa := "-", "-"
				if okA {
					ratio, sa = fmt.Sprintf("%.2fx", a.med/b.med), fmtStats(a, 1)
				}
				fmt.Fprintf(w, "| %s | %v | %s | %s | %s |\n", wt, k, ratio, sa, fmtStats(b, 1))
			}
		}
	}
	if len(c.batch) > 0 || len(c.long) > 0 {
		engines := []string{"qwen3", "llama.cpp", "llama.cpp fa"}
		fmt.Fprintln(w, "\npeak RSS MiB of the process that ran the test's batch size or context (median), and per sequence (/ batch):")
		fmt.Fprintln(w, "| weights | test | qwen3 | llama.cpp | llama.cpp fa | ratio qwen3 / llama.cpp |\n|---|---|---|---|---|---|")
		for _, wt := range weights {
			for _, k := range r.keys(wt) {
				if k.Test != "decode" {
					continue // the prefill of the same process: the same peak
				}
				cells := make([]string, len(engines))
				var med [3]float64
				for i, e := range engines {
					cells[i] = "-"
					if st, ok := r.testRSS(e, wt, k); ok {
						med[i] = st.med
						cells[i] = fmt.Sprintf("%.0f", st.med)
						if k.Batch > 0 {
							cells[i] += fmt.Sprintf(" (%.0f a sequence)", st.med/float64(k.Batch))
						}
					}
				}
				ratio := "-"
				if med[0] > 0 && med[1] > 0 {
					ratio = fmt.Sprintf("%.2fx", med[0]/med[1])
				}
				fmt.Fprintf(w, "| %s | %v | %s | %s |\n", wt, k, strings.Join(cells, " | "), ratio)
			}
		}
	}
	if rows := r.samples["pytorch"]["F32"]; len(rows) > 0 {
		fmt.Fprintln(w, "\nPyTorch (transformers, float32, random weights of the same shapes):")
		for _, k := range r.keys("F32") {
			if p, _, ok := r.speed("pytorch", "F32", k); ok {
				a, _, okA := r.speed("qwen3", "F32", k)
				ratio := "-"
				if okA {
					ratio = fmt.Sprintf("%.2fx", a.med/p.med)
				}
				fmt.Fprintf(w, "| F32 | %v | qwen3 / pytorch %s | %s |\n", k, ratio, fmtStats(p, 1))
			}
		}
	}
}

// printBuilds prints every build's speed and its ratio to llama.cpp, side by side.
func (r *results) printBuilds(w *os.File, weights, builds []string) {
	fmt.Fprintf(w, "\nbuilds (tok/s, and ratio to llama.cpp):\n| weights | test | %s | llama.cpp |\n|---|---|%s---|\n",
		strings.Join(builds, " | "), strings.Repeat("---|", len(builds)))
	for _, wt := range weights {
		for _, k := range r.keys(wt) {
			b, _, okB := r.speed("llama.cpp", wt, k)
			var cells []string
			for _, name := range builds {
				a, _, ok := r.speed(name, wt, k)
				switch {
				case ok && okB:
					cells = append(cells, fmt.Sprintf("%.1f (%.2fx)", a.med, a.med/b.med))
				case ok:
					cells = append(cells, fmt.Sprintf("%.1f", a.med))
				default:
					cells = append(cells, "-")
				}
			}
			lb := "-"
			if okB {
				lb = fmt.Sprintf("%.1f", b.med)
			}
			fmt.Fprintf(w, "| %s | %v | %s | %s |\n", wt, k, strings.Join(cells, " | "), lb)
		}
	}
}

// jsonRow is a row of notebooks/data/bench.json, in the schema the notebooks read (the plots
// package refuses unknown fields): tok_s the median of the runs, tok_s_min and tok_s_max their
// slowest and fastest.
type jsonRow struct {
	Engine        string  `json:"engine"`
	Weights       string  `json:"weights"`
	Test          string  `json:"test"`
	Tokens        int     `json:"tokens"`
	Depth         int     `json:"depth"`
	Batch         int     `json:"batch,omitempty"`
	TokS          float64 `json:"tok_s"`
	TokSMin       float64 `json:"tok_s_min"` // the slowest and fastest of the runs whose median is tok_s
	TokSMax       float64 `json:"tok_s_max"`
	BytesPerToken int64   `json:"bytes_per_token"`
	PeakRSSMiB    float64 `json:"peak_rss_mib"`
}

// writeJSON writes the results of the engines named (in that order) as bench.json does.
func (r *results) writeJSON(path string, weights []string, c config, engines ...string) error {
	read, _ := statsOf(r.read)
	doc := struct {
		Machine string            `json:"machine"`
		Date    string            `json:"date"`
		Threads int               `json:"threads"`
		Source  string            `json:"source"`
		ReadBW  float64           `json:"read_bandwidth_gbs"`
		Peers   map[string]string `json:"peers"`
		Rows    []jsonRow         `json:"rows"`
	}{
		Machine: machine(), Date: time.Now().Format("2006-01-02"), Threads: c.threads,
		Source: fmt.Sprintf("scripts/bench.sh: the synthetic Qwen3-0.6B GGUF files of scripts/make_synthetic.py (Q4_K_M, Q4_0 "+
			"and Q6_K made from the F32 one by llama-quantize), engines interleaved, tok_s the median of %d runs each (tok_s_min, tok_s_max: the slowest and fastest); prefill "+
			"from an empty context, decode %d tokens at each depth; bytes_per_token = weights + KV cache streamed per decoded token "+
			"(0 for prefill); read bandwidth: a 1 GiB AVX2 read stream with all cores, median of %d measurements (%.1f-%.1f GB/s); "+
			"peak RSS: the largest resident set of the engine's process over its run",
			len(r.read)-1, c.decode, len(r.read), read.lo, read.hi),
		ReadBW: round(read.med, 2), Peers: r.peers,
	}
	if len(c.batch) > 0 {
		doc.Source = fmt.Sprintf("scripts/bench.sh with BATCH: the synthetic Qwen3-0.6B GGUF files, engines interleaved, tok_s the "+
			"median of %d runs each (tok_s_min, tok_s_max: the slowest and fastest); for each batch size (batch), that many different %d-token prompts (prefill: all their tokens "+
			"over the prompts' time) then %d tokens of every sequence decoded together (decode: all new tokens over the decoding "+
			"time); peak RSS: the largest resident set of the engine's process for that batch size (one process each; per "+
			"sequence: divide by batch); our caches are the engine's default for a batch (float16), llama.cpp's its default (F16)",
			len(r.read)-1, c.batchPrompt, c.decode)
	}
	if len(c.long) > 0 {
		doc.Source = fmt.Sprintf("scripts/bench.sh with LONG: the synthetic Qwen3-0.6B GGUF files, engines interleaved, tok_s the "+
			"median of %d runs each (tok_s_min, tok_s_max: the slowest and fastest); for each context length L, a prefill of L tokens from an empty context and %d tokens "+
			"decoded at depth L; ours with its default KV cache (float16 past 4096 tokens), llama.cpp's llama-batched-bench "+
			"(one sequence: its prompt of L tokens, then the decoding after it) with its default F16 cache, %s; bytes_per_token = weights "+
			"+ KV cache streamed per decoded token; read bandwidth: a 1 GiB AVX2 read stream with all cores, median of %d "+
			"measurements (%.1f-%.1f GB/s), before and after each run; peak RSS: the largest resident set of the engine's process(es) for that L",
			len(r.read)-1, c.decode, faText(c.longFA), len(r.read), read.lo, read.hi)
	}
	for _, engine := range engines {
		for _, wt := range weights {
			for _, k := range r.keys(wt) {
				st, b, ok := r.speed(engine, wt, k)
				if !ok {
					continue
				}
				if k.Test != "decode" {
					b = 0
				}
				rss, _ := r.peakRSS(engine, wt)
				if st, ok := r.testRSS(engine, wt, k); ok {
					rss = st
				}
				doc.Rows = append(doc.Rows, jsonRow{engine, wt, k.Test, k.Tokens, k.Depth, k.Batch, round(st.med, 3), round(st.lo, 3), round(st.hi, 3), b, math.Round(rss.med)})
			}
		}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
