package viz

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

type sse struct {
	name string
	data string
}

// readSSE reads the events of a stream until it ends.
func readSSE(t *testing.T, r io.Reader) []sse {
	t.Helper()
	var events []sse
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sse
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			cur.data = line[6:]
		case line == "":
			events = append(events, cur)
			cur = sse{}
		default:
			t.Fatalf("a line that is not server-sent events: %q", line)
		}
	}
	return events
}

func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := sampling.QwenThinking(1)
	srv := httptest.NewServer(Handler(tinyModel(t), Options{Complete: true, Settings: &s, MaxContext: 256}))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	res, err := http.Post(url+"/api/generate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

const settings = `"settings":{"temperature":0.6,"top_k":20,"top_p":0.95,"min_p":0,"seed":1}`

// TestGenerateStream: a reply is the prompt's tokens, one step and the text per token drawn (the
// stop token a step without text), and done, in that order; a chat's prompt is the chat template.
func TestGenerateStream(t *testing.T) {
	srv := testServer(t)
	res := post(t, srv.URL, `{"mode":"complete","prompt":"func main() {",`+settings+`,"max_tokens":12}`)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%s, %s", res.Status, res.Header.Get("Content-Type"))
	}
	events := readSSE(t, res.Body)
	if len(events) < 3 || events[0].name != "prompt" || events[len(events)-1].name != "done" {
		t.Fatalf("events %v", events)
	}
	var prompt PromptEvent
	if err := json.Unmarshal([]byte(events[0].data), &prompt); err != nil || len(prompt.Tokens) != 4 || prompt.Tokens[0].Token != "func" {
		t.Fatalf("prompt event %q: %v", events[0].data, err)
	}
	var done DoneEvent
	if err := json.Unmarshal([]byte(events[len(events)-1].data), &done); err != nil {
		t.Fatal(err)
	}
	var steps []Event
	var text, tokens strings.Builder
	for _, ev := range events[1 : len(events)-1] {
		switch ev.name {
		case "step":
			var e Event
			if err := json.Unmarshal([]byte(ev.data), &e); err != nil {
				t.Fatal(err)
			}
			if e.Step != len(steps) {
				t.Fatalf("step %d after %d steps", e.Step, len(steps))
			}
			steps = append(steps, e)
			if !e.Stop {
				tokens.WriteString(e.Token)
			}
		case "text":
			var x TextEvent
			if err := json.Unmarshal([]byte(ev.data), &x); err != nil {
				t.Fatal(err)
			}
			text.WriteString(x.Text)
		default:
			t.Fatalf("event %q in the middle of a reply", ev.name)
		}
	}
	wantSteps := done.NewTokens
	if done.Finish == "stop" {
		wantSteps++
	}
	if len(steps) != wantSteps || done.PromptTokens != 4 || text.String() != tokens.String() {
		t.Errorf("%d steps, done %+v, text %q, tokens %q", len(steps), done, text.String(), tokens.String())
	}

	res = post(t, srv.URL, `{"mode":"chat","messages":[{"role":"user","content":"Hi"}],"think":false,`+settings+`,"max_tokens":2}`)
	defer res.Body.Close()
	events = readSSE(t, res.Body)
	if err := json.Unmarshal([]byte(events[0].data), &prompt); err != nil || prompt.Tokens[0].Token != "<|im_start|>" || !strings.Contains(events[0].data, "think") {
		t.Errorf("a chat's prompt %q: want the chat template, with the empty think block of thinking off", events[0].data)
	}
}

// TestGenerateRefusals: each bad request gets its status and a JSON error that says what is wrong.
func TestGenerateRefusals(t *testing.T) {
	srv := testServer(t)
	for _, c := range []struct {
		body   string
		status int
		msg    string
	}{
		{`{"mode":"complete"`, 400, "not the JSON the page sends"},
		{`{"mode":"complete","prompt":"x","colour":1,` + settings + `,"max_tokens":2}`, 400, `unknown field "colour"`},
		{`{"mode":"complete","prompt":"x","settings":{"temperature":0.6,"top_k":20,"top_p":0,"min_p":0},"max_tokens":2}`, 400, "top_p"},
		{`{"mode":"complete","prompt":"x","settings":{"temperature":-1,"top_k":20,"top_p":1,"min_p":0},"max_tokens":2}`, 400, "temperature"},
		{`{"mode":"complete","prompt":"x",` + settings + `,"max_tokens":0}`, 400, "max_tokens 0: must be in 1..256"},
		{`{"mode":"complete","prompt":"x",` + settings + `,"max_tokens":257}`, 400, "max_tokens 257"},
		{`{"mode":"complete","prompt":"  ",` + settings + `,"max_tokens":2}`, 400, "the prompt is empty"},
		{`{"mode":"poem","prompt":"x",` + settings + `,"max_tokens":2}`, 400, `mode "poem"`},
		{`{"mode":"chat","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],` + settings + `,"max_tokens":2}`, 400, "ends with the user's message"},
		{`{"mode":"chat","messages":[{"role":"system","content":"a"},{"role":"user","content":"b"}],` + settings + `,"max_tokens":2}`, 400, `role "system"`},
		{`{"mode":"complete","prompt":"` + strings.Repeat("x", maxBody) + `",` + settings + `,"max_tokens":2}`, 413, "over 1048576 bytes"},
	} {
		res := post(t, srv.URL, c.body)
		var e ErrorEvent
		err := json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != c.status || err != nil || !strings.Contains(e.Error, c.msg) {
			t.Errorf("%.80s: %d %q (%v); want %d and %q", c.body, res.StatusCode, e.Error, err, c.status, c.msg)
		}
	}
	// A prompt longer than the context runs nothing: an error event after the prompt's tokens.
	res := post(t, srv.URL, `{"mode":"complete","prompt":"`+strings.Repeat(" x", 300)+`",`+settings+`,"max_tokens":2}`)
	events := readSSE(t, res.Body)
	res.Body.Close()
	if len(events) != 2 || events[1].name != "error" || !strings.Contains(events[1].data, "the context holds 256") {
		t.Errorf("a prompt over the context: %.300v", events)
	}
}

// TestGenerateOneAtATime: while a reply runs a second request gets 429; a page that leaves frees
// the model at the next step.
func TestGenerateOneAtATime(t *testing.T) {
	srv := testServer(t)
	res := post(t, srv.URL, `{"mode":"complete","prompt":"func main() {",`+settings+`,"max_tokens":250}`)
	r := bufio.NewReader(res.Body)
	if line, err := r.ReadString('\n'); err != nil || line != "event: prompt\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	busy := post(t, srv.URL, `{"mode":"complete","prompt":"x",`+settings+`,"max_tokens":2}`)
	var e ErrorEvent
	json.NewDecoder(busy.Body).Decode(&e)
	busy.Body.Close()
	if busy.StatusCode != http.StatusTooManyRequests || !strings.Contains(e.Error, "another reply") {
		t.Errorf("a second request while one runs: %d %q", busy.StatusCode, e.Error)
	}
	res.Body.Close() // the page leaves
	deadline := time.Now().Add(30 * time.Second)
	for {
		again := post(t, srv.URL, `{"mode":"complete","prompt":"x",`+settings+`,"max_tokens":2}`)
		io.Copy(io.Discard, again.Body)
		again.Body.Close()
		if again.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the first page left, a request still gets %s", again.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPageFiles: the page and its files are served from the binary; the info says the settings.
func TestPageFiles(t *testing.T) {
	srv := testServer(t)
	for path, want := range map[string]string{"/": "text/html", "/static/app.js": "javascript", "/static/style.css": "text/css", "/api/info": "application/json"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Type"), want) {
			t.Errorf("GET %s: %s, %s", path, res.Status, res.Header.Get("Content-Type"))
		}
	}
	res, _ := http.Get(srv.URL + "/api/info")
	var info Info
	json.NewDecoder(res.Body).Decode(&info)
	res.Body.Close()
	if info.Context != 256 || info.MaxAllowed != 256 || info.Settings.Seed != 1 || info.Mode != "complete" || info.Top != DefaultTop {
		t.Errorf("info %+v", info)
	}
	if res, _ := http.Get(srv.URL + "/nope"); res.StatusCode != 404 {
		t.Errorf("GET /nope: %s", res.Status)
	}
}
