package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a stderr that the server's goroutines may write to while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serving is a `qwen3 serve` run in-process on a free port.
type serving struct {
	base       string // http://127.0.0.1:PORT/v1
	stderr     *lockedBuffer
	done       chan error // what the command returned
	interrupts chan os.Signal
}

// startServe runs `qwen3 serve -port 0 args...` in-process until it prints the address it serves.
func startServe(t *testing.T, args ...string) *serving {
	t.Helper()
	sv := &serving{stderr: &lockedBuffer{}, done: make(chan error, 1), interrupts: make(chan os.Signal, 1)}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: sv.stderr, interrupts: sv.interrupts}
	go func() { sv.done <- run(append([]string{"serve", "-port", "0"}, args...), e) }()
	addr := regexp.MustCompile(`serving tiny-qwen3 on (http://127\.0\.0\.1:\d+/v1) `)
	for deadline := time.Now().Add(60 * time.Second); sv.base == ""; time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(sv.stderr.String()); m != nil {
			sv.base = m[1]
		}
		select {
		case err := <-sv.done:
			t.Fatalf("serve returned %v before serving: %s", err, sv.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address after 60 s: %s", sv.stderr)
		}
	}
	return sv
}

// TestServe runs `qwen3 serve` in-process on a free port: it prints its address, answers an
// OpenAI request with the API key and refuses one without, and a Ctrl-C stops it with a summary.
func TestServe(t *testing.T) {
	sv := startServe(t, "-slots", "2", "-ctx", "512", "-api-key", "sesame")
	base, stderr, done, interrupts := sv.base, sv.stderr, sv.done, sv.interrupts
	if want := "(tiny-qwen3.gguf (built in); 2 slots of 512 tokens; continuous batching)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("the first line lacks %q: %s", want, stderr)
	}
	post := func(key string) (int, string) {
		req, _ := http.NewRequest("POST", base+"/completions", strings.NewReader(`{"prompt": "func main() {", "max_tokens": 8, "temperature": 0}`))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("sesame"); code != 200 || !strings.Contains(body, `"finish_reason":"length"`) || !strings.Contains(body, `"completion_tokens":8`) {
		t.Errorf("with the key: %d %s", code, body)
	}
	if code, body := post(""); code != 401 || !strings.Contains(body, "invalid_api_key") {
		t.Errorf("without the key: %d %s", code, body)
	}
	interrupts <- os.Interrupt
	select {
	case err := <-done:
		if !errors.Is(err, errInterrupted) {
			t.Errorf("after Ctrl-C serve returned %v, want errInterrupted (exit 130)", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve still running 30 s after Ctrl-C")
	}
	out := stderr.String()
	for _, want := range []string{"msg=request method=POST path=/v1/completions status=200", "status=401", "shutting down", "stopped: 1 requests, 1 completed, 0 cancelled, 0 failed, 0 refused; 8 tokens generated"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}

func TestServeFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "-slots", "0"}, "-slots 0: must be in 1..128"},
		{[]string{"serve", "-step-tokens", "129"}, "-step-tokens 129: at most 128, the most tokens of one pass"},
		{[]string{"serve", "-port", "70000"}, "-port 70000: must be in 0..65535"},
		{[]string{"serve", "extra"}, "serve takes no arguments"},
		{[]string{"serve", "-temperature", "1"}, "flag provided but not defined: -temperature"},
	} {
		r := runArgs(t, "", c.args...)
		if r.code != 2 || !strings.Contains(r.e.Error(), c.want) {
			t.Errorf("%q: exit %d, %v; want 2 and %q", c.args, r.code, r.e, c.want)
		}
	}
	// A port another program holds: the error says so and what to do.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	for _, cmd := range []string{"serve", "viz"} {
		r := runArgs(t, "", cmd, "-port", port)
		if r.code != 1 || r.e == nil || !strings.Contains(r.e.Error(), "another program has the port (give another -port, or -port 0 for a free one)") {
			t.Errorf("%s on a taken port: exit %d, %v", cmd, r.code, r.e)
		}
	}
	r := runArgs(t, "", "serve", "-h")
	for _, want := range []string{"OpenAI's HTTP API", "-slots", "-api-key", "-host", "-chunk", "-ctx"} {
		if r.code != 0 || !strings.Contains(r.out, want) {
			t.Errorf("serve -h lacks %q (exit %d): %s", want, r.code, r.out)
		}
	}
}

// The warning for a server without -api-key reachable beyond this machine: every host but the
// loopback ones counts as reachable (0.0.0.0 and :: listen on every interface).
func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "127.0.0.2": true,
		"0.0.0.0": false, "::": false, "": false, "192.168.1.20": false, "example.com": false} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}
