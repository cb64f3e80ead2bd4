package serve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// The scheduler against a fake engine whose every pass is logged, so that the tests can check the
// order of what the scheduler asks: which slots a step runs, which chunk of which prompt is
// prefilled between two steps. The fake's "model" continues any letter with the next one of the
// alphabet (z with a), so that a reply's text says what the scheduler fed back.

// byteTokenizer is a tokenizer of the 256 byte tokens: id b is byte b.
func byteTokenizer(t testing.TB) *tokenizer.Tokenizer {
	t.Helper()
	b2r := tokenizer.ByteToRune()
	tokens := make([]string, 256)
	for b := range tokens {
		tokens[b] = string(b2r[b])
	}
	tok, err := tokenizer.New(tokens, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// nextLetter is the fake model: the letter after id ('a' after anything else).
func nextLetter(id int) int {
	if id >= 'a' && id < 'z' {
		return id + 1
	}
	return 'a'
}

type fakeEngine struct {
	n, max int
	caches [][]int
	logits [][]float32

	mu  sync.Mutex
	ops []string // "step 0,2", "prefill 1 64"
	// gate, when not nil, is received from before each step: a test holds a step in flight.
	gate    chan struct{}
	failAt  int // the step (1-based) that fails, 0 none
	stepped int
	pass    int  // passTokens (0: 128)
	failRun bool // every run (a pass with a chunk) fails
}

func newFakeEngine(slots, maxLen int) *fakeEngine {
	e := &fakeEngine{n: slots, max: maxLen, caches: make([][]int, slots)}
	for range slots {
		e.logits = append(e.logits, make([]float32, 256))
	}
	return e
}

func (e *fakeEngine) slots() int            { return e.n }
func (e *fakeEngine) maxLen() int           { return e.max }
func (e *fakeEngine) vocab() int            { return 256 }
func (e *fakeEngine) cached(slot int) []int { return e.caches[slot] }
func (e *fakeEngine) truncate(slot, n int) {
	e.caches[slot] = e.caches[slot][:min(n, len(e.caches[slot]))]
}

func (e *fakeEngine) log(format string, args ...any) {
	e.mu.Lock()
	e.ops = append(e.ops, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

func (e *fakeEngine) opsLog() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.ops...)
}

func (e *fakeEngine) oneHot(row int, id int) []float32 {
	l := e.logits[row]
	clear(l)
	l[nextLetter(id)] = 1
	return l
}

func (e *fakeEngine) prefill(ctx context.Context, slot int, ids []int) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(e.caches[slot])+len(ids) > e.max {
		return nil, errors.New("fake: context full")
	}
	e.log("prefill %d %d", slot, len(ids))
	e.caches[slot] = append(e.caches[slot], ids...)
	return e.oneHot(slot, ids[len(ids)-1]), nil
}

func (e *fakeEngine) step(slots, ids []int) ([][]float32, error) {
	var names []string
	for _, s := range slots {
		names = append(names, fmt.Sprint(s))
	}
	e.log("step %s", strings.Join(names, ",")) // logged as it starts: a step held by the gate is in the log
	if e.gate != nil {
		<-e.gate
	}
	e.stepped++
	if e.stepped == e.failAt {
		return nil, errors.New("fake: the step failed")
	}
	rows := make([][]float32, len(slots))
	for k, s := range slots {
		if len(e.caches[s]) >= e.max {
			return nil, fmt.Errorf("fake: slot %d is full", s)
		}
		e.caches[s] = append(e.caches[s], ids[k])
		rows[k] = e.oneHot(s, ids[k])
	}
	return rows, nil
}

// run logs a pass of decoding slots and a prompt's chunk (the scheduler puts the chunk last) as
// "step 0,2 + prefill 1 64", and runs each slot's ids as step and prefill would.
func (e *fakeEngine) run(slots []int, ids [][]int) ([][]float32, error) {
	var names []string
	for _, s := range slots[:len(slots)-1] {
		names = append(names, fmt.Sprint(s))
	}
	last := slots[len(slots)-1]
	e.log("step %s + prefill %d %d", strings.Join(names, ","), last, len(ids[len(ids)-1]))
	if e.gate != nil {
		<-e.gate
	}
	e.stepped++
	if e.stepped == e.failAt || e.failRun {
		return nil, errors.New("fake: the pass failed")
	}
	rows := make([][]float32, len(slots))
	for k, s := range slots {
		if len(e.caches[s])+len(ids[k]) > e.max {
			return nil, fmt.Errorf("fake: slot %d is full", s)
		}
		e.caches[s] = append(e.caches[s], ids[k]...)
		rows[k] = e.oneHot(s, ids[k][len(ids[k])-1])
	}
	return rows, nil
}

func (e *fakeEngine) passTokens() int {
	if e.pass > 0 {
		return e.pass
	}
	return 128
}

func (e *fakeEngine) close() error { return nil }

// fakeJob is a greedy job of prompt text (bytes as ids).
func fakeJob(ctx context.Context, id, prompt string, maxTokens int) *job {
	ids := make([]int, len(prompt))
	for i := range prompt {
		ids[i] = int(prompt[i])
	}
	j := newJob(ctx, id, ids)
	j.settings, j.maxTokens = sampling.Greedy(), maxTokens
	return j
}

// wait returns j's whole text once it is done, or fails the test after 10 s.
func wait(t *testing.T, j *job) (string, string, error) {
	t.Helper()
	var text strings.Builder
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-j.ready:
		case <-deadline:
			t.Fatalf("job %s did not end within 10 s", j.id)
		}
		piece, done, finish, err := j.take()
		text.WriteString(piece)
		if done {
			return text.String(), finish, err
		}
	}
}

func TestSchedulerReplies(t *testing.T) {
	eng := newFakeEngine(2, 64)
	s := newScheduler(eng, byteTokenizer(t), 0, 4, false, nil)
	defer s.abort()
	j := fakeJob(context.Background(), "a", "xyz", 5)
	if err := s.submit(j); err != nil {
		t.Fatal(err)
	}
	text, finish, err := wait(t, j)
	if text != "abcde" || finish != "length" || err != nil {
		t.Fatalf("reply %q, finish %q, err %v; want \"abcde\" (the fake model's letters after z), length, nil", text, finish, err)
	}
	u, _ := j.result()
	if u.PromptTokens != 3 || u.CompletionTokens != 5 || u.TotalTokens != 8 {
		t.Errorf("usage %+v, want 3 prompt + 5 completion tokens", u)
	}
	// The cache holds the prompt and every token but the last, which was never fed back.
	if got := string(runes(eng.cached(0))); got != "xyzabcd" {
		t.Errorf("slot 0 caches %q, want \"xyzabcd\"", got)
	}
}

func runes(ids []int) []rune {
	r := make([]rune, len(ids))
	for i, id := range ids {
		r[i] = rune(id)
	}
	return r
}

// A request that arrives while another decodes joins the running batch: its prompt is
// prefilled between two steps and the step after runs both.
func TestSchedulerAdmitsIntoRunningBatch(t *testing.T) {
	eng := newFakeEngine(2, 256)
	eng.gate = make(chan struct{})
	s := newScheduler(eng, byteTokenizer(t), 0, 4, false, nil)
	defer s.abort()
	a := fakeJob(context.Background(), "a", "long", 50)
	s.submit(a)
	eng.gate <- struct{}{} // A's first step
	eng.gate <- struct{}{} // and its second: A is decoding
	b := fakeJob(context.Background(), "b", "short", 3)
	s.submit(b)
	go func() {
		for range 60 {
			eng.gate <- struct{}{}
		}
	}()
	wait(t, b)
	wait(t, a)
	ops := eng.opsLog()
	// Find B's prefill: the step after it must run both slots.
	for i, op := range ops {
		if op == "prefill 1 5" {
			if i+1 >= len(ops) || ops[i+1] != "step 0,1" {
				t.Fatalf("after B's prefill the scheduler ran %q, want \"step 0,1\" (B joins A's batch at the next step); ops %v", ops[i+1:], ops)
			}
			// B's 3 tokens: one from its prefill, two from steps; the step after its last runs A
			// alone (B retired at once).
			if i+3 >= len(ops) || ops[i+2] != "step 0,1" || ops[i+3] != "step 0" {
				t.Fatalf("after B's prefill the scheduler ran %v, want step 0,1 twice then step 0 (B retired after its last token)", ops[i+1:min(i+5, len(ops))])
			}
			// and before it, at most the step in flight when B arrived and one more of A alone
			steps := 0
			for _, o := range ops[:i] {
				if o == "step 0" {
					steps++
				}
			}
			if steps > 4 {
				t.Errorf("B waited %d steps of A before its prefill, want at most 4 (ops %v)", steps, ops)
			}
			return
		}
	}
	t.Fatalf("B's prompt was never prefilled in one chunk: %v", ops)
}

// A long prompt is prefilled a chunk at a time, each chunk in the same pass as the running
// replies' step: no pass of a chunk alone while someone decodes.
func TestSchedulerChunkedPrefill(t *testing.T) {
	eng := newFakeEngine(2, 1024)
	eng.gate = make(chan struct{})
	s := newScheduler(eng, byteTokenizer(t), 64, 4, false, nil)
	defer s.abort()
	a := fakeJob(context.Background(), "a", "a", 40)
	s.submit(a)
	eng.gate <- struct{}{}
	b := fakeJob(context.Background(), "b", strings.Repeat("q", 300), 2)
	s.submit(b)
	go func() {
		for range 60 {
			eng.gate <- struct{}{}
		}
	}()
	wait(t, b)
	wait(t, a)
	var chunks []string
	for _, op := range eng.opsLog() {
		if strings.Contains(op, "prefill 1") {
			chunks = append(chunks, op)
		}
	}
	want := []string{"step 0 + prefill 1 64", "step 0 + prefill 1 64", "step 0 + prefill 1 64", "step 0 + prefill 1 64", "step 0 + prefill 1 44"}
	if strings.Join(chunks, "; ") != strings.Join(want, "; ") {
		t.Errorf("B's prompt of 300 tokens went in passes %v, want %v", chunks, want)
	}
	if st := s.snapshot(); st.PrefillChunks != 6 || st.PrefilledTokens != 301 {
		t.Errorf("stats: %d chunks of %d tokens in all, want 6 of 301 (A's prompt of 1 alone, B's 300 in 5)", st.PrefillChunks, st.PrefilledTokens)
	}
}

// A chunk takes what room the pass has beside the decoding tokens: the engine's limit
// (passTokens) and the step's budget (StepTokens), which leaves a chunk at least minChunk
// tokens. With no room left under the engine's limit, the chunk runs in a pass of its own after
// the step, so that a prompt is never starved.
func TestSchedulerChunkFitsThePass(t *testing.T) {
	for _, tc := range []struct {
		pass, budget int
		want         []string
	}{
		{4, 0, []string{"step 0,1 + prefill 2 2", "step 0,1 + prefill 2 2", "step 0,1 + prefill 2 2", "step 0,1 + prefill 2 2", "step 0,1 + prefill 2 2", "step 0,1 + prefill 2 2", "step 0,1 + prefill 2 1"}},
		{2, 0, []string{"prefill 2 10", "prefill 2 3"}}, // two decoding slots fill a pass of 2: the chunk goes alone
		{128, 11, []string{"step 0,1 + prefill 2 9", "step 0,1 + prefill 2 4"}},
		{128, 3, []string{"step 0,1 + prefill 2 8", "step 0,1 + prefill 2 5"}}, // the budget leaves less than minChunk: minChunk
	} {
		eng := newFakeEngine(3, 1024)
		eng.gate, eng.pass = make(chan struct{}), tc.pass
		s := newScheduler(eng, byteTokenizer(t), 10, 4, false, nil)
		s.budget = tc.budget
		a := fakeJob(context.Background(), "a", "a", 30)
		b := fakeJob(context.Background(), "b", "b", 30)
		s.submit(a)
		s.submit(b)
		for range 4 { // both prompts, then both decoding
			eng.gate <- struct{}{}
		}
		c := fakeJob(context.Background(), "c", "ccccccccccccc", 1)
		s.submit(c)
		go func() {
			for range 100 {
				eng.gate <- struct{}{}
			}
		}()
		wait(t, c)
		wait(t, a)
		wait(t, b)
		s.abort()
		var got []string
		for _, op := range eng.opsLog() {
			if strings.Contains(op, "prefill 2") {
				got = append(got, op)
			}
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("a pass of at most %d tokens, budget %d: C's prompt of 13 went in %v, want %v", tc.pass, tc.budget, got, tc.want)
		}
	}
}

// A pass that fails ends every request in it, the decoding ones and the one whose chunk it
// carried, with the engine's error; the server goes on.
func TestSchedulerFailedPassEndsItsRequests(t *testing.T) {
	eng := newFakeEngine(2, 1024)
	eng.gate, eng.failRun = make(chan struct{}), true
	s := newScheduler(eng, byteTokenizer(t), 64, 4, false, nil)
	defer s.abort()
	a := fakeJob(context.Background(), "a", "a", 40)
	s.submit(a)
	eng.gate <- struct{}{} // A's first step (its prompt went alone)
	b := fakeJob(context.Background(), "b", strings.Repeat("q", 100), 2)
	s.submit(b)
	go func() {
		for range 20 {
			eng.gate <- struct{}{}
		}
	}()
	for _, j := range []*job{a, b} {
		if _, _, err := wait(t, j); err == nil || !strings.Contains(err.Error(), "fake: the pass failed") {
			t.Errorf("job %s ended with %v, want the pass's error", j.id, err)
		}
	}
	c := fakeJob(context.Background(), "c", "c", 2)
	s.submit(c)
	if _, _, err := wait(t, c); err != nil {
		t.Errorf("after the failed pass, a new request ended with %v", err)
	}
}

// Without chunking (chunk 0), the same prompt goes in one pass.
func TestSchedulerWholePrompt(t *testing.T) {
	eng := newFakeEngine(1, 1024)
	s := newScheduler(eng, byteTokenizer(t), 0, 4, false, nil)
	defer s.abort()
	b := fakeJob(context.Background(), "b", strings.Repeat("q", 300), 1)
	s.submit(b)
	wait(t, b)
	if ops := eng.opsLog(); len(ops) != 1 || ops[0] != "prefill 0 300" {
		t.Errorf("ops %v, want one prefill of 300 tokens", ops)
	}
}

// A client that goes away frees its slot before the next step: the step in flight when it left
// is the last to run it.
func TestSchedulerCancelFreesSlotWithinOneStep(t *testing.T) {
	eng := newFakeEngine(2, 256)
	eng.gate = make(chan struct{})
	s := newScheduler(eng, byteTokenizer(t), 0, 4, false, nil)
	defer s.abort()
	ctx, cancel := context.WithCancel(context.Background())
	a := fakeJob(ctx, "a", "a", 100)
	b := fakeJob(context.Background(), "b", "b", 100)
	s.submit(a)
	s.submit(b)
	eng.gate <- struct{}{}
	eng.gate <- struct{}{} // a step of both is over; the loop is now blocked in the next one
	time.Sleep(10 * time.Millisecond)
	cancel()
	eng.gate <- struct{}{} // the step in flight ends
	eng.gate <- struct{}{} // the next one must run B alone
	_, _, err := wait(t, a)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("A ended with %v, want context.Canceled", err)
	}
	ops := eng.opsLog()
	steps := []string{}
	for _, op := range ops {
		if strings.HasPrefix(op, "step") {
			steps = append(steps, op)
		}
	}
	if len(steps) < 4 || steps[3] != "step 1" {
		t.Fatalf("steps %v: the one after the cancel must run slot 1 (B) alone", steps)
	}
	if st := s.snapshot(); st.Busy != 1 || st.Cancelled != 1 {
		t.Errorf("stats %+v: want 1 busy (B), 1 cancelled (A)", st)
	}
	go func() {
		for range 200 {
			eng.gate <- struct{}{}
		}
	}()
	wait(t, b)
}

// The next request goes to the free slot whose cache shares the longest prefix with its prompt,
// and only the rest of the prompt is prefilled.
func TestSchedulerReusesPrefix(t *testing.T) {
	eng := newFakeEngine(3, 256)
	s := newScheduler(eng, byteTokenizer(t), 0, 4, false, nil)
	defer s.abort()
	for _, p := range []string{"hello world.", "goodbye moon.", "unrelated."} {
		j := fakeJob(context.Background(), p, p, 3) // replies "abc" (after "."); caches hold prompt + "ab"
		s.submit(j)
		wait(t, j)
	}
	// The three prompts went to three slots (least recently used first among equals)?
	next := fakeJob(context.Background(), "next", "goodbye moon.ab and more", 2)
	s.submit(next)
	wait(t, next)
	u, _ := next.result()
	if u.Details.CachedTokens != len("goodbye moon.ab") {
		t.Errorf("cached tokens %d, want %d (\"goodbye moon.\" and the reply's \"ab\")", u.Details.CachedTokens, len("goodbye moon.ab"))
	}
	ops := eng.opsLog()
	if last := ops[len(ops)-2]; last != fmt.Sprintf("prefill 1 %d", len(" and more")) {
		t.Errorf("the new prompt's prefill was %q, want only \" and more\" into slot 1 (%v)", last, ops)
	}
	// A prompt that is all cached still runs its last token: its logits start the reply.
	again := fakeJob(context.Background(), "again", "hello world.", 1)
	s.submit(again)
	wait(t, again)
	if u, _ := again.result(); u.Details.CachedTokens != len("hello world.")-1 {
		t.Errorf("a prompt the cache holds whole: %d cached, want %d (all but the last token)", u.Details.CachedTokens, len("hello world.")-1)
	}
	if st := s.snapshot(); st.CachedTokens != int64(len("goodbye moon.ab")+len("hello world.")-1) {
		t.Errorf("stats count %d cached tokens", st.CachedTokens)
	}
}

func TestSchedulerQueueAndShutdown(t *testing.T) {
	eng := newFakeEngine(1, 256)
	eng.gate = make(chan struct{})
	s := newScheduler(eng, byteTokenizer(t), 0, 1, false, nil)
	a := fakeJob(context.Background(), "a", "a", 100)
	b := fakeJob(context.Background(), "b", "b", 5)
	c := fakeJob(context.Background(), "c", "c", 5)
	if err := s.submit(a); err != nil {
		t.Fatal(err)
	}
	if err := s.submit(b); err != nil {
		t.Fatalf("a request that fits the queue: %v", err)
	}
	if err := s.submit(c); !errors.Is(err, errQueueFull) {
		t.Fatalf("a request beyond one slot and a queue of one: %v, want errQueueFull", err)
	}
	s.close()
	if err := s.submit(c); !errors.Is(err, errShuttingDown) {
		t.Fatalf("a request after close: %v, want errShuttingDown", err)
	}
	// Closing lets A and B finish; abort ends them.
	eng.gate <- struct{}{}
	s.abort()
	go func() {
		for {
			select {
			case eng.gate <- struct{}{}:
			case <-s.done:
				return
			}
		}
	}()
	for _, j := range []*job{a, b} {
		if _, _, err := wait(t, j); !errors.Is(err, errShuttingDown) {
			t.Errorf("job %s after abort: %v, want errShuttingDown", j.id, err)
		}
	}
	<-s.done
	if st := s.snapshot(); st.Rejected != 2 || st.Failed != 2 {
		t.Errorf("stats %+v: want 2 rejected, 2 failed", st)
	}
}

// With static batching a request waits for the running batch to end.
func TestSchedulerStatic(t *testing.T) {
	eng := newFakeEngine(2, 256)
	eng.gate = make(chan struct{})
	s := newScheduler(eng, byteTokenizer(t), 0, 4, true, nil)
	defer s.abort()
	a := fakeJob(context.Background(), "a", "a", 6)
	s.submit(a)
	eng.gate <- struct{}{}
	b := fakeJob(context.Background(), "b", "b", 2)
	s.submit(b)
	go func() {
		for range 20 {
			eng.gate <- struct{}{}
		}
	}()
	wait(t, a)
	wait(t, b)
	ops := eng.opsLog()
	want := "prefill 0 1;step 0;step 0;step 0;step 0;step 0;prefill 1 1;step 1"
	if strings.Join(ops, ";") != want {
		t.Errorf("static batching ran %v, want %s: B starts only after A's last step (in slot 1, the least recently used)", ops, want)
	}
}

// A reply ends at a stop token (not sent), a stop string (cut before it), max_tokens, or a full
// cache, each with its finish_reason; an engine error ends the replies of the failed step.
func TestSchedulerEndings(t *testing.T) {
	eng := newFakeEngine(1, 10)
	s := newScheduler(eng, byteTokenizer(t), 0, 4, false, nil)
	defer s.abort()
	run := func(j *job) (string, string, error) { s.submit(j); return wait(t, j) }

	j := fakeJob(context.Background(), "stopid", "a", 20)
	j.stopIDs = []int{'e'}
	if text, finish, _ := run(j); text != "bcd" || finish != "stop" {
		t.Errorf("stop token e: %q %q, want \"bcd\" stop", text, finish)
	}
	j = fakeJob(context.Background(), "stopstr", "a", 20)
	j.stops = []string{"de", "cdx"}
	if text, finish, _ := run(j); text != "bc" || finish != "stop" {
		t.Errorf("stop strings de, cdx: %q %q, want \"bc\" stop", text, finish)
	}
	j = fakeJob(context.Background(), "full", "abcdef", 20) // 6 cached + 4 more fill 10
	if text, finish, _ := run(j); text != "ghijk" || finish != "length" {
		t.Errorf("a full cache: %q %q, want \"ghijk\" (4 tokens fed back and the last one) length", text, finish)
	}
	eng.failAt = eng.stepped + 2
	j = fakeJob(context.Background(), "fail", "a", 20)
	if text, _, err := run(j); err == nil || !strings.Contains(err.Error(), "fake: the step failed") || text != "bc" {
		t.Errorf("a failed step: %q, %v; want \"bc\" and the engine's error", text, err)
	}
	if st := s.snapshot(); st.Failed != 1 || st.Completed != 3 || st.Busy != 0 {
		t.Errorf("stats %+v", st)
	}
}
