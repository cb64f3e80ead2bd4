package loadgen

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	d := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6} // 1..10
	for p, want := range map[float64]time.Duration{50: 5, 90: 9, 99: 10, 100: 10, 1: 1, 0: 1} {
		if got := Percentile(d, p); got != want {
			t.Errorf("p%v of 1..10 = %v, want %v (nearest rank)", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("the percentile of nothing is not 0")
	}
}

// A fake server that streams what an OpenAI server streams, with a pause between the pieces, and
// answers some requests with a 429: the records say what happened.
func TestRun(t *testing.T) {
	const pause = 20 * time.Millisecond
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		if strings.Contains(r.Header.Get("X-Test"), "busy") {
			http.Error(w, `{"error": {"message": "busy"}}`, http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for _, piece := range []string{`{"choices":[{"delta":{"role":"assistant","content":""}}]}`,
			`{"choices":[{"delta":{"content":"Hel"}}]}`, `{"choices":[{"delta":{"content":"lo"}}]}`,
			`{"choices":[{"delta":{"content":"!"},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":2}}}`} {
			fmt.Fprintf(w, "data: %s\n\n", piece)
			f.Flush()
			time.Sleep(pause)
		}
		if !strings.Contains(r.Header.Get("X-Test"), "no-done") {
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}))
	defer srv.Close()
	res, err := Run(context.Background(), Config{BaseURL: srv.URL + "/v1", APIKey: "k", Clients: 2, Requests: 4,
		Request: func(client, i int) Body { return Body{Chat: true, Fields: map[string]any{"messages": []any{}}} }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 4 {
		t.Fatalf("%d records, want 4", len(res.Records))
	}
	for _, r := range res.Records {
		if !r.OK() || r.Text != "Hello!" || r.Tokens != 3 || r.Prompt != 5 || r.Cached != 2 || r.Finish != "stop" || len(r.Gaps) != 2 {
			t.Errorf("record %+v", r)
		}
		if r.TTFT < pause || r.Gaps[0] < pause/2 || r.Total < 4*pause {
			t.Errorf("TTFT %v, gaps %v, total %v: the pauses of %v are not in them", r.TTFT, r.Gaps, r.Total, pause)
		}
	}
	s := res.Summarize()
	if s.Requests != 4 || s.Failed != 0 || s.Tokens != 12 || s.TokensPerSecond <= 0 || s.ITL50 < pause/2 {
		t.Errorf("summary %+v", s)
	}
	// A 429, and a stream without [DONE], are failures that say so.
	for header, want := range map[string]string{"busy": "HTTP 429", "no-done": "without data: [DONE]"} {
		hc := &http.Client{Transport: headerTransport{header}}
		res, _ := Run(context.Background(), Config{BaseURL: srv.URL + "/v1", APIKey: "k", Clients: 1, Requests: 1, Client: hc,
			Request: func(client, i int) Body { return Body{Chat: true} }})
		if r := res.Records[0]; r.OK() || !strings.Contains(r.Err, want) {
			t.Errorf("X-Test %s: record %+v, want an error with %q", header, r, want)
		}
		if s := res.Summarize(); s.Failed != 1 || s.Requests != 0 {
			t.Errorf("X-Test %s: summary %+v", header, s)
		}
	}
}

type headerTransport struct{ value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Header.Set("X-Test", h.value)
	return http.DefaultTransport.RoundTrip(r)
}
