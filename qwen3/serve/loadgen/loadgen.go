// Package loadgen is a load generator for OpenAI-compatible servers: a number of clients, each
// sending streaming requests one after another, timing every piece of text that comes back.
// It measures what a user of a server feels: the time to the first token (TTFT), the gaps
// between tokens (inter-token latency, ITL) and the tokens per second the server makes for all
// of its clients together. The same generator runs against `qwen3 serve` and llama.cpp's
// llama-server (scripts/bench.sh's serving mode), in notebook 13, and in this package's tests.
//
// It speaks the API's streaming form only: POST {base}/completions or /chat/completions with
// "stream": true and stream_options.include_usage, reading server-sent events until
// "data: [DONE]", and counting tokens from the final usage.
package loadgen

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Config is one run: Clients clients, each sending requests one after another until the run has
// sent Requests requests in all or Duration has passed (whichever is set; both: the first).
type Config struct {
	BaseURL string // the API's root, such as http://127.0.0.1:8080/v1
	APIKey  string // sent as "Authorization: Bearer KEY" when not empty
	Clients int
	// Requests bounds the requests of the run (0: no bound); Duration its time (0: no bound).
	Requests int
	Duration time.Duration
	// Request returns the body of client's i-th request (without "stream" and
	// "stream_options", which the generator sets); Chat says it is for /chat/completions
	// (messages) rather than /completions (prompt).
	Request func(client, i int) Body
	// Client is the HTTP client; nil means one with a connection per client kept alive.
	Client *http.Client
}

// Body is one request's JSON fields, and where it goes.
type Body struct {
	Chat   bool
	Fields map[string]any
}

// Record is one request as the client saw it.
type Record struct {
	Client, Index int
	Start         time.Duration   // since the run began
	Status        int             // HTTP status (0: no answer)
	Err           string          // why it failed, if it did
	TTFT          time.Duration   // to the first piece of text
	Gaps          []time.Duration // between consecutive pieces of text
	Total         time.Duration   // to the end of the stream
	Finish        string          // finish_reason
	Prompt        int             // usage.prompt_tokens
	Cached        int             // usage.prompt_tokens_details.cached_tokens
	Tokens        int             // usage.completion_tokens
	Text          string          // the reply
}

// OK reports whether the request ended with [DONE] and a usage.
func (r Record) OK() bool { return r.Status == http.StatusOK && r.Err == "" }

// Result is a run's records and its wall time.
type Result struct {
	Clients int
	Wall    time.Duration
	Records []Record
}

// Run runs cfg until its bound, or ctx ends; the records of the requests cut short by ctx say so.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Clients < 1 || cfg.Request == nil || cfg.BaseURL == "" {
		return Result{}, errors.New("loadgen: a run needs BaseURL, Request and at least one client")
	}
	if cfg.Requests <= 0 && cfg.Duration <= 0 {
		return Result{}, errors.New("loadgen: a run needs a bound: Requests or Duration")
	}
	hc := cfg.Client
	if hc == nil {
		// A connection per request: a kept-alive one that the server closes while idle would fail a POST,
		// which the transport does not retry (llama-server closes idle connections after seconds).
		hc = &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
		defer hc.CloseIdleConnections()
	}
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	start := time.Now()
	var (
		mu      sync.Mutex
		records []Record
		sent    int
	)
	next := func() bool { // a request may start
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || (cfg.Requests > 0 && sent >= cfg.Requests) {
			return false
		}
		sent++
		return true
	}
	var wg sync.WaitGroup
	for c := range cfg.Clients {
		wg.Go(func() {
			for i := 0; next(); i++ {
				r := one(ctx, hc, cfg, cfg.Request(c, i), start)
				r.Client, r.Index = c, i
				mu.Lock()
				records = append(records, r)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(records, func(a, b Record) int { return cmp.Compare(a.Start, b.Start) })
	return Result{Clients: cfg.Clients, Wall: time.Since(start), Records: records}, nil
}

// one sends one streaming request and reads its events.
func one(ctx context.Context, hc *http.Client, cfg Config, b Body, runStart time.Time) Record {
	fields := make(map[string]any, len(b.Fields)+2)
	for k, v := range b.Fields {
		fields[k] = v
	}
	fields["stream"] = true
	fields["stream_options"] = map[string]any{"include_usage": true}
	body, err := json.Marshal(fields)
	t0 := time.Now()
	rec := Record{Start: t0.Sub(runStart)}
	if err != nil {
		rec.Err = err.Error()
		return rec
	}
	path := "/completions"
	if b.Chat {
		path = "/chat/completions"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(cfg.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		rec.Err = err.Error()
		return rec
	}
	req.Header.Set("Content-Type", "application/json")
	if cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		rec.Err = err.Error()
		return rec
	}
	defer resp.Body.Close()
	rec.Status = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		rec.Err = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(msg)))
		return rec
	}
	var text strings.Builder
	var last time.Time
	done := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue // blank lines between events, comments, other fields
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			break
		}
		var ev event
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			rec.Err = fmt.Sprintf("an event that is not JSON: %.200q", data)
			break
		}
		if ev.Error != nil {
			rec.Err = "error event: " + string(ev.Error)
			break
		}
		now := time.Now()
		for _, c := range ev.Choices {
			piece := c.Text
			if c.Delta != nil {
				piece = c.Delta.Content
			}
			if piece != "" {
				if last.IsZero() {
					rec.TTFT = now.Sub(t0)
				} else {
					rec.Gaps = append(rec.Gaps, now.Sub(last))
				}
				last = now
				text.WriteString(piece)
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				rec.Finish = *c.FinishReason
			}
		}
		if ev.Usage != nil {
			rec.Prompt, rec.Tokens = ev.Usage.PromptTokens, ev.Usage.CompletionTokens
			if ev.Usage.Details != nil {
				rec.Cached = ev.Usage.Details.CachedTokens
			}
		}
	}
	rec.Total = time.Since(t0)
	rec.Text = text.String()
	switch {
	case rec.Err != "":
	case sc.Err() != nil:
		rec.Err = sc.Err().Error()
	case !done:
		rec.Err = "the stream ended without data: [DONE]"
	}
	return rec
}

// event is what the generator reads of a streamed chunk, from either endpoint.
type event struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta *struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		Details          *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// Summary is what a run's successful requests add up to.
type Summary struct {
	Clients, Requests, Failed int
	Tokens                    int           // completion tokens of the successful requests
	Wall                      time.Duration // the run's wall time
	TokensPerSecond           float64       // Tokens / Wall: the server's aggregate throughput
	TTFT50, TTFT99            time.Duration // time to first token, median and 99th percentile
	ITL50, ITL99              time.Duration // inter-token gaps, all requests' pooled
	ITLMax                    time.Duration
}

// Summarize adds up r's records.
func (r Result) Summarize() Summary {
	s := Summary{Clients: r.Clients, Wall: r.Wall}
	var ttft, gaps []time.Duration
	for _, rec := range r.Records {
		if !rec.OK() {
			s.Failed++
			continue
		}
		s.Requests++
		s.Tokens += rec.Tokens
		ttft = append(ttft, rec.TTFT)
		gaps = append(gaps, rec.Gaps...)
	}
	if r.Wall > 0 {
		s.TokensPerSecond = float64(s.Tokens) / r.Wall.Seconds()
	}
	s.TTFT50, s.TTFT99 = Percentile(ttft, 50), Percentile(ttft, 99)
	s.ITL50, s.ITL99 = Percentile(gaps, 50), Percentile(gaps, 99)
	if len(gaps) > 0 {
		s.ITLMax = slices.Max(gaps)
	}
	return s
}

// Percentile returns the p-th percentile of d by the nearest rank (the smallest value with at
// least p% of the values at or below it); 0 for no values.
func Percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

func (s Summary) String() string {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return fmt.Sprintf("%d clients: %d requests (%d failed), %d tokens in %.1f s = %.1f tok/s; TTFT p50 %.0f ms p99 %.0f ms; ITL p50 %.1f ms p99 %.1f ms max %.1f ms",
		s.Clients, s.Requests, s.Failed, s.Tokens, s.Wall.Seconds(), s.TokensPerSecond, ms(s.TTFT50), ms(s.TTFT99), ms(s.ITL50), ms(s.ITL99), ms(s.ITLMax))
}
