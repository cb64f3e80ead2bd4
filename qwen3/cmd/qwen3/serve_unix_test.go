//go:build unix

package main

import (
	"bufio"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGTERM while a reply streams: the stream runs to its end ([DONE] after max_tokens tokens),
// and the command returns nil (exit 0) with its summary. The test sends SIGTERM to its own
// process: serve catches it from before it prints its address.
func TestServeSIGTERMFinishesStreams(t *testing.T) {
	sv := startServe(t, "-slots", "2", "-ctx", "1024", "-quiet")
	const maxTokens = 600
	body := `{"prompt": "func main() {", "max_tokens": 600, "temperature": 0, "stream": true, "stream_options": {"include_usage": true}}`
	resp, err := http.Post(sv.base+"/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "data: {") {
		t.Fatalf("the stream's first line: %q (%v)", sc.Text(), sc.Err())
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var last, usage string
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			last = line
			if strings.Contains(line, `"usage":{`) {
				usage = line
			}
		}
	}
	if last != "data: [DONE]" || !strings.Contains(usage, `"completion_tokens":600`) {
		t.Errorf("the stream running at SIGTERM ended with %q (%v), usage %q: want all %d tokens and [DONE]", last, sc.Err(), usage, maxTokens)
	}
	select {
	case err := <-sv.done:
		if err != nil {
			t.Errorf("after SIGTERM serve returned %v, want nil (exit 0)", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve still running 60 s after SIGTERM")
	}
	out := sv.stderr.String()
	for _, want := range []string{"shutting down: finishing 1 running replies", "stopped: 1 requests, 1 completed, 0 cancelled"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
}
