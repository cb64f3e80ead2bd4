package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// A test runs the command in-process with an env: standard input from a string, output into
// buffers, and a Ctrl-C channel it controls. pty_test.go runs the real binary on a terminal.

type result struct {
	out, err string
	code     int
	e        error
}

// runWith runs args; stdin is piped (not a terminal) unless tty, which makes all three streams
// terminals.
func runWith(t *testing.T, stdin string, tty bool, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, interrupts: make(chan os.Signal),
		stdinTTY: tty, stdoutTTY: tty, stderrTTY: tty}
	err := run(args, e)
	return result{out.String(), errOut.String(), exitCode(err), err}
}

func runArgs(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runWith(t, stdin, false, args...)
}

func TestRunTiny(t *testing.T) {
	r := runArgs(t, "", "run", "-prompt", "func main() {", "-max-tokens", "8", "-temperature", "0", "-stats")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if !strings.HasPrefix(r.out, "func main() {") || len(r.out) <= len("func main() {\n") {
		t.Errorf("output %q", r.out)
	}
	for _, want := range []string{"tiny reference checkpoint", "trained on Go", "completes Go code", "4 prompt tokens", "8 new tokens", "finish: length", "tok/s", "peak memory"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q: %q", want, r.err)
		}
	}
	if strings.Contains(r.err, "\r") {
		t.Errorf("progress carriage returns in a stderr that is not a terminal: %q", r.err)
	}
}

// TestRunPromptSources: the prompt comes from -prompt, the arguments (flags may follow them),
// -prompt - or a piped standard input, and all give the same text.
// TestRunCacheAndExactFlags: -kv-cache (either case) and -exact load the model with a float16
// cache and float32 activations, and it generates.
func TestRunCacheAndExactFlags(t *testing.T) {
	r := runArgs(t, "", "run", "-kv-cache", "F16", "-exact", "-max-tokens", "4", "-temperature", "0", "The capital of France is")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if !strings.HasPrefix(r.out, "The capital of France is") || len(r.out) <= len("The capital of France is\n") {
		t.Errorf("output %q", r.out)
	}
}

func TestRunPromptSources(t *testing.T) {
	const prompt = "The capital of France is"
	greedy := []string{"-max-tokens", "4", "-temperature", "0"}
	want := runArgs(t, "", append([]string{"run", "-prompt", prompt}, greedy...)...)
	if want.e != nil || !strings.HasPrefix(want.out, prompt) {
		t.Fatalf("-prompt: %v %q", want.e, want.out)
	}
	for name, r := range map[string]result{
		"arguments":        runArgs(t, "", append([]string{"run", "The", "capital", "of", "France", "is"}, greedy...)...),
		"-- then text":     runArgs(t, "", append(append([]string{"run"}, greedy...), "--", "The capital of France is")...),
		"-prompt -":        runArgs(t, prompt+"\n", append([]string{"run", "-prompt", "-"}, greedy...)...),
		"piped stdin":      runArgs(t, prompt+"\n", append([]string{"run"}, greedy...)...),
		"piped, CRLF line": runArgs(t, prompt+"\r\n", append([]string{"run"}, greedy...)...),
	} {
		if r.e != nil || r.out != want.out {
			t.Errorf("%s: %v, output %q, want %q", name, r.e, r.out, want.out)
		}
	}
	for name, r := range map[string]result{
		"no prompt on a terminal": runWith(t, "", true, "run"),
		"-prompt and arguments":   runArgs(t, "", "run", "-prompt", "x", "y"),
		"empty stdin":             runArgs(t, "\n", "run"),
		"empty -prompt":           runArgs(t, "", "run", "-prompt", ""),
	} {
		if r.code != 2 || r.out != "" {
			t.Errorf("%s: exit %d (%v), output %q; want exit 2 and no output", name, r.code, r.e, r.out)
		}
	}
}

// TestRunContextEnd: a reply that reaches the end of the context stops with a note and still
// prints -stats; a prompt longer than the context is an error naming -ctx, with nothing on stdout.
func TestRunContextEnd(t *testing.T) {
	r := runArgs(t, "", "run", "-ctx", "16", "-max-tokens", "500", "-stats", "The capital of France is")
	if r.e != nil || !strings.HasSuffix(r.out, "\n") {
		t.Fatalf("%v, output %q", r.e, r.out)
	}
	for _, want := range []string{"the context of 16 tokens is full; raise -ctx", "5 prompt tokens", "finish: context"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q: %q", want, r.err)
		}
	}
	if r.code != 0 {
		t.Errorf("exit %d", r.code)
	}
	r = runArgs(t, "", "run", "-ctx", "4", "The capital of France is")
	if r.code != 1 || r.out != "" || !strings.Contains(r.e.Error(), "the prompt is 5 tokens, the context holds 4; raise -ctx") {
		t.Errorf("a prompt over the context: exit %d, %v, output %q", r.code, r.e, r.out)
	}
	// Over the model's own context (40,960 tokens for the tiny model) no -ctx helps: shorten it.
	r = runArgs(t, "", "run", strings.Repeat(" word", 41000))
	if r.code != 1 || r.out != "" || r.e == nil || !strings.Contains(r.e.Error(), "this model reads at most 40960 tokens, whatever -ctx says: shorten the prompt") {
		t.Errorf("a prompt over the model's context: exit %d, %v, output %q", r.code, r.e, r.out)
	}
}

// interruptingWriter sends a Ctrl-C the first time what was written contains trigger.
type interruptingWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	trigger string
	ch      chan os.Signal
	sent    bool
}

func (w *interruptingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.sent && strings.Contains(w.buf.String(), w.trigger) {
		w.sent = true
		w.ch <- os.Interrupt
	}
	return len(p), nil
}

func (w *interruptingWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

var statsLine = regexp.MustCompile(`\[(\d+) prompt tokens in [^;]+; first token after [^;]+; (\d+) new tokens`)

// TestRunInterrupted: Ctrl-C during a reply prints what was generated, the stats of what was
// really done, and exits 130; so does Ctrl-C during a long prompt's prefill (on a terminal, where
// its progress line is drawn and then erased), and Ctrl-C during the model's load.
func TestRunInterrupted(t *testing.T) {
	ch := make(chan os.Signal, 1)
	out := &interruptingWriter{trigger: "France is", ch: ch}
	var errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: out, stderr: &errOut, interrupts: ch}
	err := run([]string{"run", "-max-tokens", "2000", "-stats", "The capital of France is"}, e)
	if exitCode(err) != 130 || !strings.HasSuffix(out.String(), "\n") {
		t.Fatalf("exit %d (%v), output %q", exitCode(err), err, out.String())
	}
	m := statsLine.FindStringSubmatch(errOut.String())
	if m == nil || m[1] != "5" || m[2] == "0" || m[2] == "2000" || !strings.Contains(errOut.String(), "[interrupted after "+m[2]+" new tokens]") {
		t.Errorf("stats after a Ctrl-C during the reply: %q", errOut.String())
	}

	ch = make(chan os.Signal, 1)
	errW := &interruptingWriter{trigger: "prompt: 128/", ch: ch}
	var stdout bytes.Buffer
	e = &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: errW, interrupts: ch, stderrTTY: true}
	err = run([]string{"run", "-stats", strings.Repeat(" word", 3000)}, e)
	m = statsLine.FindStringSubmatch(errW.String())
	if exitCode(err) != 130 || m == nil {
		t.Fatalf("Ctrl-C during the prefill: exit %d (%v), stderr %q", exitCode(err), err, errW.String())
	}
	if done, _ := strconv.Atoi(m[1]); done < 128 || done >= 3000 || m[2] != "0" || !strings.Contains(errW.String(), fmt.Sprintf("[interrupted during the prompt, after %d tokens]", done)) {
		t.Errorf("stats after a Ctrl-C during the prefill: %q", errW.String())
	}
	if !strings.Contains(errW.String(), "\r\x1b[K[interrupted") {
		t.Errorf("the progress line was not erased before the note: %q", errW.String())
	}

	// Ctrl-C while the model loads: the load stops, nothing is generated, exit 130.
	ch = make(chan os.Signal, 1)
	ch <- os.Interrupt
	stdout.Reset()
	e = &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: io.Discard, interrupts: ch}
	if err = run([]string{"run", "x"}, e); exitCode(err) != 130 || !strings.Contains(err.Error(), "loading stopped") || stdout.Len() != 0 {
		t.Errorf("Ctrl-C during the load: exit %d (%v), stdout %q", exitCode(err), err, stdout.String())
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}, {"help", "run"}, {"run", "-h"}, {"chat", "--help"}, {"inspect", "-h"}, {"run", "-prompt", "x", "-h"}} {
		r := runArgs(t, "", args...)
		if r.e != nil || r.code != 0 || !strings.Contains(r.out, "usage") || r.err != "" {
			t.Errorf("%q: exit %d (%v), stdout %q, stderr %q", args, r.code, r.e, r.out, r.err)
		}
	}
	if r := runArgs(t, "", "chat", "-h"); !strings.Contains(r.out, "-history") || !strings.Contains(r.out, "-system") {
		t.Errorf("chat -h: %q", r.out)
	}
	for _, v := range []string{"--version", "version", "-version"} {
		if r := runArgs(t, "", v); r.e != nil || !strings.Contains(r.out, "github.com/qwen3go/qwen3go") || !strings.Contains(r.out, "go1.") || !strings.Contains(r.out, "\nkernels ") {
			t.Errorf("%s: %v %q", v, r.e, r.out)
		}
	}
}

// TestBadInput: every bad command line is one clear error and exit status 2, or 1 for a bad
// model file, and nothing on stdout; the flag package prints nothing itself.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "usage"},
		{[]string{"fly"}, 2, `unknown command "fly"`},
		{[]string{"run", "-nope", "x"}, 2, "flag provided but not defined: -nope (see 'qwen3 run -h')"},
		{[]string{"chat", "-nope"}, 2, "flag provided but not defined: -nope (see 'qwen3 chat -h')"},
		{[]string{"run", "-top-p", "1.5", "x"}, 2, "-top-p: invalid sampling settings: top_p 1.5"},
		{[]string{"run", "-temperature", "-3", "x"}, 2, "-temperature: invalid sampling settings: temperature -3"},
		{[]string{"run", "-top-k", "-1", "x"}, 2, "-top-k: invalid sampling settings: top_k -1"},
		{[]string{"run", "-min-p", "2", "x"}, 2, "-min-p: invalid sampling settings: min_p 2"},
		{[]string{"run", "-max-tokens", "0", "x"}, 2, "-max-tokens 0"},
		{[]string{"run", "-ctx", "0", "x"}, 2, "-ctx 0"},
		{[]string{"run", "-ctx", "-5", "x"}, 2, "-ctx -5"},
		{[]string{"run", "-ctx", "50000", "x"}, 2, "-ctx 50000: the model's context is 40960 tokens"},
		{[]string{"chat", "-ctx", "0"}, 2, "-ctx 0"},
		{[]string{"run", "-threads", "-1", "x"}, 2, "-threads -1: must be in 0.."},
		{[]string{"run", "-threads", "100000", "x"}, 2, "-threads 100000"},
		{[]string{"run", "-kv-cache", "q8_0", "x"}, 2, `invalid value "q8_0" for flag -kv-cache: KV cache type "q8_0": the engine keeps its cache in f32 or f16`},
		{[]string{"run", "-think=false", "x"}, 2, "-think applies to chat turns: add -chat"},
		{[]string{"run", "-system", "Be brief.", "x"}, 2, "-system applies to chat turns: add -chat"},
		{[]string{"chat", "hello"}, 2, "chat takes no arguments"},
		{[]string{"inspect"}, 2, "usage: qwen3 inspect"},
		{[]string{"inspect", "a", "b"}, 2, "usage: qwen3 inspect"},
		{[]string{"run", "-model", "/nonexistent/model.gguf", "x"}, 1, "no such file"},
		{[]string{"run", "-model", reference.Golden("01_gguf", "sample.gguf"), "x"}, 1, ""}, // not qwen3
	} {
		r := runArgs(t, "", c.args...)
		if r.code != c.code || r.e == nil || !strings.Contains(r.e.Error(), c.want) || r.out != "" {
			t.Errorf("%q: exit %d, error %v, stdout %q; want exit %d and an error with %q", c.args, r.code, r.e, r.out, c.code, c.want)
		}
		if strings.Contains(r.err, "flag provided") || strings.Contains(r.err, "Usage of") {
			t.Errorf("%q: the flag package printed to stderr too: %q", c.args, r.err)
		}
	}
	if exitCode(errors.New("x")) != 1 || exitCode(nil) != 0 || exitCode(fmt.Errorf("w: %w", errInterrupted)) != 130 {
		t.Error("exit codes")
	}
}

func TestInspect(t *testing.T) {
	r := runArgs(t, "", "inspect", reference.TinyGGUF())
	if r.e != nil {
		t.Fatal(r.e)
	}
	for _, want := range []string{"GGUF v3", "qwen3.attention.head_count_kv", "blk.2.ffn_down.weight", "BF16", "68 tensors"} {
		if !strings.Contains(r.out, want) {
			t.Errorf("inspect output lacks %q", want)
		}
	}
	if r = runArgs(t, "", "inspect", reference.TinyHFDir()); r.e != nil || !strings.Contains(r.out, "model.layers.0.self_attn.q_norm.weight") {
		t.Errorf("inspect HF dir: %v\n%s", r.e, r.out)
	}
}

var _ io.Writer = (*interruptingWriter)(nil)
