package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qwen3go/qwen3go/qwen3/viz"
)

// TestRunTrace: run -trace writes one event per decode step (the stop token's included), in
// order, and the drawn tokens spell the text that was printed.
func TestRunTrace(t *testing.T) {
	const prompt = "func main() {"
	path := filepath.Join(t.TempDir(), "steps.jsonl")
	r := runArgs(t, "", "run", "-trace", path, "-max-tokens", "30", "-seed", "3", "-stats", prompt)
	if r.e != nil {
		t.Fatal(r.e)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := viz.ReadTrace(f)
	if err != nil {
		t.Fatal(err)
	}
	m := statsLine.FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("no stats in %q", r.err)
	}
	stopped := strings.Contains(r.err, "finish: stop")
	want, _ := strconv.Atoi(m[2])
	if stopped {
		want++
	}
	if len(events) != want {
		t.Fatalf("%d events for %s new tokens (stopped: %v)", len(events), m[2], stopped)
	}
	var text strings.Builder
	for i, e := range events {
		if e.Step != i || e.Position != 4+i || e.Settings.Seed != 3 || len(e.Candidates) < viz.DefaultTop {
			t.Fatalf("event %d: step %d, position %d, settings %+v, %d candidates", i, e.Step, e.Position, e.Settings, len(e.Candidates))
		}
		if !e.Stop {
			text.WriteString(e.Token)
		}
	}
	if got := prompt + text.String() + "\n"; got != r.out {
		t.Errorf("the trace's tokens spell %q, run printed %q", got, r.out)
	}

	// A trace that cannot be written fails before the model loads, naming the flag.
	r = runArgs(t, "", "run", "-trace", filepath.Join(t.TempDir(), "no", "such", "dir", "x.jsonl"), "x")
	if r.code != 1 || r.out != "" || !strings.Contains(r.e.Error(), "-trace") || strings.Contains(r.err, "tiny reference checkpoint") {
		t.Errorf("-trace into a missing directory: exit %d, %v, stdout %q, stderr %q", r.code, r.e, r.out, r.err)
	}
}

var vizAddr = regexp.MustCompile(`open (http://127\.0\.0\.1:\d+/) in a browser`)

// TestVizCommand: qwen3 viz serves the page on the address it prints, answers one reply as
// server-sent events, and stops on Ctrl-C with status 0; a bad command line is status 2.
func TestVizCommand(t *testing.T) {
	ch := make(chan os.Signal, 1)
	errOut := &interruptingWriter{trigger: "\x00", ch: make(chan os.Signal, 1)} // a locked buffer: no write holds a NUL
	var out bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: errOut, interrupts: ch}
	done := make(chan error, 1)
	go func() { done <- run([]string{"viz", "-port", "0", "-max-tokens", "5", "-top-p", "0.9"}, e) }()
	var base string
	for deadline := time.Now().Add(time.Minute); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := vizAddr.FindStringSubmatch(errOut.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("no address printed: %q", errOut.String())
	}
	page := get(t, base)
	if !strings.Contains(page, "Watch the model think") || !strings.Contains(get(t, base+"static/app.js"), "readEvents") {
		t.Fatalf("the page: %.200q", page)
	}
	var info viz.Info
	if err := json.Unmarshal([]byte(get(t, base+"api/info")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Mode != "complete" || info.MaxTokens != 5 || info.Settings.TopP != 0.9 || info.Default.TopP == 0.9 || info.Vocab != 151936 {
		t.Errorf("api/info: %+v: want completion mode for the tiny model, the flags' max tokens and top-p", info)
	}
	res, err := http.Post(base+"api/generate", "application/json",
		strings.NewReader(`{"mode":"complete","prompt":"func (","settings":{"temperature":0.6,"top_k":20,"top_p":0.9,"min_p":0,"seed":1},"max_tokens":3}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got := strings.Count(string(body), "event: step\n"); got != 3 || !strings.Contains(string(body), "event: done\n") {
		t.Errorf("%d step events in %q", got, body)
	}
	ch <- os.Interrupt
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Ctrl-C: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("qwen3 viz did not stop on Ctrl-C")
	}
	if _, err := http.Get(base); err == nil {
		t.Error("the page still answers after Ctrl-C")
	}

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"viz", "extra"}, `viz takes no arguments ("extra")`},
		{[]string{"viz", "-port", "70000"}, "-port 70000: must be in 0..65535"},
		{[]string{"viz", "-top-p", "0"}, "-top-p"},
	} {
		r := runArgs(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.e.Error(), c.msg) {
			t.Errorf("%q: exit %d, %v; want 2 and %q", c.args, r.code, r.e, c.msg)
		}
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return string(b)
}

var serveAddr = regexp.MustCompile(`every decode step, in a browser: (http://127\.0\.0\.1:\d+/viz/)`)

// TestServeMountsViz: qwen3 serve serves the page of qwen3 viz at /viz/, beside the API.
func TestServeMountsViz(t *testing.T) {
	ch := make(chan os.Signal, 1)
	errOut := &interruptingWriter{trigger: "\x00", ch: make(chan os.Signal, 1)} // a locked buffer: no write holds a NUL
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: errOut, interrupts: ch}
	done := make(chan error, 1)
	go func() { done <- run([]string{"serve", "-port", "0", "-quiet"}, e) }()
	var base string
	for deadline := time.Now().Add(time.Minute); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := serveAddr.FindStringSubmatch(errOut.String()); m != nil {
			base = m[1]
		}
	}
	if base == "" {
		t.Fatalf("no page address printed: %q", errOut.String())
	}
	if page := get(t, base); !strings.Contains(page, "Watch the model think") {
		t.Fatalf("GET /viz/: %.200q", page)
	}
	res, err := http.Post(base+"api/generate", "application/json",
		strings.NewReader(`{"mode":"complete","prompt":"func (","settings":{"temperature":0,"top_k":0,"top_p":1,"min_p":0,"seed":0},"max_tokens":2}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if got := strings.Count(string(body), "event: step\n"); got != 2 {
		t.Errorf("%d step events from /viz/api/generate: %q", got, body)
	}
	ch <- os.Interrupt
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("qwen3 serve did not stop on Ctrl-C")
	}
}
