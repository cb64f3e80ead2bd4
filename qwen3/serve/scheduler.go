package serve

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// The scheduler: continuous (iteration-level) batching over the engine's slots.
//
// One goroutine owns the engine and loops. Each turn of the loop it
//
//  1. admits waiting requests into free slots (choosing, for each, the free slot whose cache
//     shares the longest prefix with its prompt, so that a conversation's next turn prefills only
//     what is new), and drops those whose client has gone;
//  2. retires the requests whose client disconnected, freeing their slots;
//  3. runs one forward pass (qwen3.Batch.Run) of one token of every slot that is decoding and a
//     chunk of at most Config.PrefillChunk tokens of the oldest prompt still being prefilled
//     (fewer when the pass would exceed Config.StepTokens, though at least minChunk, or the
//     engine's limit; with no one decoding, the chunk runs alone), then picks each decoding slot's next
//     token and hands its text to the request's handler; a reply that ends (a stop token or
//     string, its max_tokens, a full context) leaves at once. When the chunk is the prompt's
//     last, its logits give the reply's first token and the slot decodes from the next turn on.
//
// So a new request joins the running batch at the next step instead of waiting for the batch to
// finish (static batching, Config.Static, which chapter 10 teaches and notebook 13 measures), and
// a long prompt is spread over many turns, each costing the running streams one chunk's time
// instead of the whole prompt's. The chunk rides in the decoding step's pass, as vLLM's chunked
// prefill does: every weight read from memory serves the chunk and the decoding tokens, where a
// pass for each would read the weights twice a turn. Static batching and a whole prompt at once
// (PrefillChunk < 0) run the prompt in a pass of its own. The handlers never block the loop: a
// reply's text goes into its job, and the handler takes it when its client can receive it.

// job is one request inside the server: what the scheduler needs to run it, and the reply it
// hands back to the request's handler.
type job struct {
	id        string
	ctx       context.Context
	prompt    []int
	settings  sampling.Settings
	maxTokens int
	stops     []string // stop strings
	stopIDs   []int    // stop tokens (the checkpoint's)

	// The reply, written by the scheduler and taken by the handler, under mu.
	mu     sync.Mutex
	text   strings.Builder // released text the handler has not taken yet
	done   bool
	finish string // "stop" or "length" (OpenAI's finish_reason), when done without err
	err    error
	usage  Usage
	first  time.Duration // from submit to the first token
	ready  chan struct{} // buffer 1: a signal that text or done changed

	submitted time.Time
}

// Usage counts one request's tokens, as OpenAI's usage object does; CachedTokens are the prompt
// tokens found in a slot's cache, which were not run again (prompt_tokens_details.cached_tokens).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	Details          struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func newJob(ctx context.Context, id string, prompt []int) *job {
	return &job{id: id, ctx: ctx, prompt: prompt, ready: make(chan struct{}, 1), submitted: time.Now()}
}

// emit adds released text to the reply.
func (j *job) emit(text string) {
	if text == "" {
		return
	}
	j.mu.Lock()
	j.text.WriteString(text)
	j.mu.Unlock()
	j.signal()
}

// end closes the reply after completion tokens: finish says why it ended, or err why it failed.
func (j *job) end(finish string, err error, completion int) {
	j.mu.Lock()
	j.done, j.finish, j.err = true, finish, err
	j.usage.CompletionTokens = completion
	j.usage.TotalTokens = j.usage.PromptTokens + j.usage.CompletionTokens
	j.mu.Unlock()
	j.signal()
}

func (j *job) signal() {
	select {
	case j.ready <- struct{}{}:
	default:
	}
}

// take returns the text released since the last take and, once the reply is over, done with
// the reason or the error.
func (j *job) take() (text string, done bool, finish string, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	text = j.text.String()
	j.text.Reset()
	return text, j.done, j.finish, j.err
}

// result returns the usage and time to the first token (read after done).
func (j *job) result() (Usage, time.Duration) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.usage, j.first
}

// StepEvent is one token chosen for one request, given to Config.OnStep on the scheduler's
// goroutine before the token's text is released: the request's id (the response's "id"), the
// token's index in the reply and position in its cache, the settings it was drawn with, the
// logits it was drawn from (the engine's, valid only during the call: copy what you keep), the
// id chosen, and the forward pass that made the logits (a batched step, or a prompt's last chunk
// for the first token) with how many sequences it ran. A stop token is an event too.
type StepEvent struct {
	Request  string
	Index    int
	Position int
	Settings sampling.Settings
	Logits   []float32
	Token    int
	Prefill  bool          // the logits came from the prompt's last chunk
	Batch    int           // decoding sequences in the pass; for Prefill, those and the chunk's (1 alone)
	Pass     time.Duration // the forward pass's time, a chunk riding beside the decoding tokens included
}

// Errors of submit, which the server turns into 429 and 503.
var (
	errQueueFull    = errors.New("serve: every slot is busy and the queue is full")
	errShuttingDown = errors.New("serve: the server is shutting down")
)

// slot is one of the engine's caches and the request it runs, if any (the loop's own state).
type slot struct {
	i        int
	job      *job
	pending  []int // prompt ids not yet prefilled; empty: decoding
	next     int   // decoding: the token to run at the next step
	picker   picker
	text     *textOut
	out      int   // tokens generated
	admitted int64 // admission order: prompts are prefilled oldest first
	used     int64 // when it was last freed: the least recently used free slot is reused first
}

type scheduler struct {
	eng    engine
	tok    *tokenizer.Tokenizer
	chunk  int  // prompt tokens per prefill turn; 0: a whole prompt
	budget int  // the most tokens of a turn's pass, decoding tokens and chunk together; 0: the engine's limit
	static bool // admit only into an empty batch
	queue  int  // requests that may wait for a slot
	onStep func(StepEvent)

	mu      sync.Mutex
	waiting []*job
	busy    int // slots holding a job
	closing bool
	wake    chan struct{} // buffer 1
	kill    chan struct{} // closed: end every job now
	killed  sync.Once
	done    chan struct{} // closed when the loop has returned

	slots []*slot // the loop's
	clock int64
	stats counters

	// the decoding step's buffers, reused
	stepSlots    []*slot
	stepIdx, ids []int
	picked       []int
	pickErrs     []error
	passSlots    []int   // a turn's pass: the decoding slots, then the chunk's
	passIDs      [][]int // and their ids
}

// counters are the scheduler's running totals (Stats).
type counters struct {
	requests, completed, cancelled, failed, rejected atomic.Int64
	promptTokens, cachedTokens, prefilledTokens      atomic.Int64
	generatedTokens, steps, stepTokens, chunks       atomic.Int64
}

func newScheduler(eng engine, tok *tokenizer.Tokenizer, chunk, queue int, static bool, onStep func(StepEvent)) *scheduler {
	s := &scheduler{
		eng: eng, tok: tok, chunk: chunk, queue: queue, static: static, onStep: onStep,
		wake: make(chan struct{}, 1), kill: make(chan struct{}), done: make(chan struct{}),
	}
	for i := range eng.slots() {
		s.slots = append(s.slots, &slot{i: i})
	}
	go s.run()
	return s
}

// submit queues j for a slot, or refuses it when the slots and the queue are full or the
// scheduler is shutting down.
func (s *scheduler) submit(j *job) error {
	s.mu.Lock()
	switch {
	case s.closing:
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		return errShuttingDown
	case s.busy+len(s.waiting) >= len(s.slots)+s.queue:
		s.mu.Unlock()
		s.stats.rejected.Add(1)
		return errQueueFull
	}
	s.waiting = append(s.waiting, j)
	s.mu.Unlock()
	s.stats.requests.Add(1)
	s.signal()
	return nil
}

func (s *scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// close stops admitting new requests; the loop ends once the running and waiting ones are done.
func (s *scheduler) close() {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.signal()
}

// abort ends every request now, with errShuttingDown, and the loop with them.
func (s *scheduler) abort() {
	s.close()
	s.killed.Do(func() { close(s.kill) })
}

func (s *scheduler) run() {
	defer close(s.done)
	defer s.eng.close() // the loop owns the engine: its caches go when it ends
	for {
		select {
		case <-s.kill:
			s.endAll(errShuttingDown)
			return
		default:
		}
		s.admit()
		s.reap()
		if s.active() == 0 {
			s.mu.Lock()
			idle, closing := len(s.waiting) == 0, s.closing
			s.mu.Unlock()
			if !idle {
				continue // requests that were cancelled while waiting: admit drops them
			}
			if closing {
				return
			}
			select {
			case <-s.wake:
			case <-s.kill:
			}
			continue
		}
		switch {
		case s.static: // chapter 10's way: prompts first, then the batch decodes
			if !s.anyPrefilling() {
				s.decode()
			}
			s.prefill()
		case s.chunk == 0: // a whole prompt in a pass of its own
			s.decode()
			s.prefill()
		default:
			s.turn()
		}
	}
}

func (s *scheduler) active() int {
	n := 0
	for _, sl := range s.slots {
		if sl.job != nil {
			n++
		}
	}
	return n
}

func (s *scheduler) anyPrefilling() bool {
	return slices.ContainsFunc(s.slots, func(sl *slot) bool { return sl.job != nil && len(sl.pending) > 0 })
}

// admit moves waiting requests into free slots, in arrival order; requests whose client has
// gone are dropped. With static batching, a batch forms only when the previous one is over.
func (s *scheduler) admit() {
	type admission struct {
		sl     *slot
		j      *job
		shared int
	}
	var admitted []admission
	s.mu.Lock()
	if len(s.waiting) > 0 && !(s.static && s.busy > 0) {
		keep := s.waiting[:0]
		for _, j := range s.waiting {
			if err := j.ctx.Err(); err != nil {
				s.stats.cancelled.Add(1)
				j.end("", err, 0)
				continue
			}
			sl, shared := s.freeSlot(j.prompt)
			if sl == nil {
				keep = append(keep, j)
				continue
			}
			sl.job = j // reserved: freeSlot passes it over
			s.busy++
			admitted = append(admitted, admission{sl, j, shared})
		}
		clear(s.waiting[len(keep):])
		s.waiting = keep
	}
	s.mu.Unlock()
	for _, a := range admitted {
		s.start(a.sl, a.j, a.shared)
	}
}

// freeSlot returns the free slot whose cache shares the longest prefix with prompt (at most all
// but its last token, whose logits start the reply), the least recently used among equals.
func (s *scheduler) freeSlot(prompt []int) (*slot, int) {
	var best *slot
	bestShared := -1
	for _, sl := range s.slots {
		if sl.job != nil {
			continue
		}
		shared := commonPrefix(s.eng.cached(sl.i), prompt[:len(prompt)-1])
		if shared > bestShared || (shared == bestShared && sl.used < best.used) {
			best, bestShared = sl, shared
		}
	}
	return best, bestShared
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// start runs j in sl, keeping the first shared tokens of its cache.
func (s *scheduler) start(sl *slot, j *job, shared int) {
	s.clock++
	s.eng.truncate(sl.i, shared)
	*sl = slot{i: sl.i, job: j, pending: j.prompt[shared:], admitted: s.clock, used: sl.used}
	j.mu.Lock()
	j.usage.PromptTokens = len(j.prompt)
	j.usage.Details.CachedTokens = shared
	j.mu.Unlock()
	s.stats.promptTokens.Add(int64(len(j.prompt)))
	s.stats.cachedTokens.Add(int64(shared))
	p, err := newPicker(s.eng.vocab(), j.settings)
	if err != nil {
		s.retire(sl, "", err)
		return
	}
	sl.picker, sl.text = p, newTextOut(s.tok, j.stops)
}

// retire ends sl's job and frees the slot; its cache keeps what it holds, for the next prompt
// that shares it.
func (s *scheduler) retire(sl *slot, finish string, err error) {
	j := sl.job
	switch {
	case err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)):
		s.stats.cancelled.Add(1)
	case err != nil:
		s.stats.failed.Add(1)
	default:
		s.stats.completed.Add(1)
	}
	out := sl.out
	s.clock++
	*sl = slot{i: sl.i, used: s.clock}
	s.mu.Lock()
	s.busy--
	s.mu.Unlock()
	j.end(finish, err, out) // last: the handler may read the stats once it has seen the end
}

// reap retires the requests whose client has gone: their slots are free before the next step.
func (s *scheduler) reap() {
	for _, sl := range s.slots {
		if sl.job != nil {
			if err := sl.job.ctx.Err(); err != nil {
				s.retire(sl, "", err)
			}
		}
	}
}

// endAll ends every running and waiting request with err.
func (s *scheduler) endAll(err error) {
	for _, sl := range s.slots {
		if sl.job != nil {
			s.retire(sl, "", err)
		}
	}
	s.mu.Lock()
	for _, j := range s.waiting {
		s.stats.failed.Add(1)
		j.end("", err, 0)
	}
	s.waiting = nil
	s.mu.Unlock()
}

// decoding gathers the decoding slots and their next tokens into stepSlots, stepIdx and ids.
func (s *scheduler) decoding() int {
	s.stepSlots, s.stepIdx, s.ids = s.stepSlots[:0], s.stepIdx[:0], s.ids[:0]
	for _, sl := range s.slots {
		if sl.job != nil && len(sl.pending) == 0 {
			s.stepSlots, s.stepIdx, s.ids = append(s.stepSlots, sl), append(s.stepIdx, sl.i), append(s.ids, sl.next)
		}
	}
	return len(s.stepSlots)
}

// decode runs one token of every decoding slot in one batched pass and takes each one's next
// token.
func (s *scheduler) decode() {
	n := s.decoding()
	if n == 0 {
		return
	}
	start := time.Now()
	rows, err := s.eng.step(s.stepIdx, s.ids)
	pass := time.Since(start)
	if err != nil {
		for _, sl := range s.stepSlots {
			s.retire(sl, "", err)
		}
		return
	}
	s.took(rows, n, pass)
}

// took counts a step of n decoding slots (stepSlots) and takes each one's next token from rows.
func (s *scheduler) took(rows [][]float32, n int, pass time.Duration) {
	s.stats.steps.Add(1)
	s.stats.stepTokens.Add(int64(n))
	s.pickAll(rows[:n])
	for k, sl := range s.stepSlots[:n] {
		if s.pickErrs[k] != nil {
			s.retire(sl, "", s.pickErrs[k])
			continue
		}
		s.accept(sl, s.picked[k], rows[k], false, n, pass)
	}
}

// minChunk is the fewest prompt tokens a turn's pass carries when the decoding tokens fill its
// budget: a prompt still moves on while many replies decode.
const minChunk = 8

// turn runs one pass of every decoding slot's next token and the next chunk of the oldest prompt
// still being prefilled, and takes what it gives. The chunk is at most s.chunk tokens and fills
// the pass up to its budget (at least minChunk). With no one decoding the chunk runs alone
// (prefill); with no room left in the pass beside the decoding tokens (MaxTokens of the engine),
// the chunk runs in its own pass after the step.
func (s *scheduler) turn() {
	n, sl := s.decoding(), s.oldestPrefilling()
	room := s.eng.passTokens() - n
	if s.budget > 0 {
		room = min(room, max(s.budget-n, minChunk))
	}
	switch {
	case sl == nil:
		s.decode()
		return
	case n == 0 || room <= 0:
		s.decode()
		s.prefill()
		return
	}
	c := min(len(sl.pending), s.chunk, room)
	s.passSlots = append(append(s.passSlots[:0], s.stepIdx...), sl.i)
	s.passIDs = s.passIDs[:0]
	for k := range s.ids {
		s.passIDs = append(s.passIDs, s.ids[k:k+1])
	}
	s.passIDs = append(s.passIDs, sl.pending[:c])
	start := time.Now()
	rows, err := s.eng.run(s.passSlots, s.passIDs)
	pass := time.Since(start)
	if err != nil {
		for _, d := range s.stepSlots {
			s.retire(d, "", err)
		}
		s.retire(sl, "", err)
		return
	}
	chunk := rows[n] // the decoding slots' picks below run before the next pass: it stays valid
	s.took(rows, n, pass)
	s.chunked(sl, c, chunk, n+1, pass)
}

// oldestPrefilling is the slot of the oldest prompt still being prefilled, or nil.
func (s *scheduler) oldestPrefilling() *slot {
	var sl *slot
	for _, c := range s.slots {
		if c.job != nil && len(c.pending) > 0 && (sl == nil || c.admitted < sl.admitted) {
			sl = c
		}
	}
	return sl
}

// pickAll picks the next token of every slot of the step, on all cores: with top-k, each pick
// reads the whole vocabulary's logits once, which for many sequences is worth spreading.
func (s *scheduler) pickAll(rows [][]float32) {
	n := len(rows)
	s.picked = slices.Grow(s.picked[:0], n)[:n]
	s.pickErrs = slices.Grow(s.pickErrs[:0], n)[:n]
	pick := func(k int) { s.picked[k], s.pickErrs[k] = s.stepSlots[k].picker.Pick(rows[k]) }
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for k := range n {
			pick(k)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				pick(k)
			}
		})
	}
	wg.Wait()
}

// prefill runs the next chunk of the oldest prompt still being prefilled; after its last chunk
// the reply's first token is picked.
func (s *scheduler) prefill() {
	sl := s.oldestPrefilling()
	if sl == nil {
		return
	}
	n := len(sl.pending)
	if s.chunk > 0 {
		n = min(n, s.chunk)
	}
	start := time.Now()
	logits, err := s.eng.prefill(sl.job.ctx, sl.i, sl.pending[:n])
	pass := time.Since(start)
	if err != nil {
		s.retire(sl, "", err)
		return
	}
	s.chunked(sl, n, logits, 1, pass)
}

// chunked counts n prompt tokens of sl as prefilled by a pass of batch sequences; after the
// prompt's last chunk, its logits give the reply's first token.
func (s *scheduler) chunked(sl *slot, n int, logits []float32, batch int, pass time.Duration) {
	if sl.job == nil { // retired meanwhile (cannot happen today: the picks above touch other slots)
		return
	}
	s.stats.chunks.Add(1)
	s.stats.prefilledTokens.Add(int64(n))
	sl.pending = sl.pending[n:]
	if len(sl.pending) > 0 {
		return
	}
	id, err := sl.picker.Pick(logits)
	if err != nil {
		s.retire(sl, "", err)
		return
	}
	s.accept(sl, id, logits, true, batch, pass)
}

// accept takes id as sl's next token: a stop token ends the reply; otherwise its text is
// released (up to a stop string, which ends the reply too), and the reply ends at its
// max_tokens or when the cache has no room for another step.
func (s *scheduler) accept(sl *slot, id int, logits []float32, prefill bool, batch int, pass time.Duration) {
	j := sl.job
	cached := len(s.eng.cached(sl.i))
	if s.onStep != nil {
		s.onStep(StepEvent{Request: j.id, Index: sl.out, Position: cached, Settings: j.settings, Logits: logits,
			Token: id, Prefill: prefill, Batch: batch, Pass: pass})
	}
	if sl.out == 0 {
		j.mu.Lock()
		j.first = time.Since(j.submitted)
		j.mu.Unlock()
	}
	if slices.Contains(j.stopIDs, id) {
		j.emit(sl.text.flush())
		s.retire(sl, "stop", nil)
		return
	}
	sl.out++
	s.stats.generatedTokens.Add(1)
	text, stopped := sl.text.add(id)
	j.emit(text)
	switch {
	case stopped:
		s.retire(sl, "stop", nil)
	case sl.out >= j.maxTokens || cached >= s.eng.maxLen():
		j.emit(sl.text.flush())
		s.retire(sl, "length", nil)
	default:
		sl.next = id
	}
}

// Stats are the server's running totals since it started, and its state now.
type Stats struct {
	Requests  int64 // accepted into the queue
	Completed int64 // ended by a stop token or string, max_tokens or a full context
	Cancelled int64 // ended because the client went away (or its request's context ended)
	Failed    int64 // ended by an error (an engine error, or shutdown)
	Rejected  int64 // refused: the queue was full, or the server shutting down

	PromptTokens    int64 // the prompts of the admitted requests
	CachedTokens    int64 // prompt tokens found in a slot's cache: not prefilled again
	PrefilledTokens int64 // prompt tokens run through the model
	GeneratedTokens int64
	Steps           int64 // batched decoding steps
	StepTokens      int64 // tokens those steps ran (StepTokens/Steps is the mean batch)
	PrefillChunks   int64

	Busy, Waiting int // requests in a slot now, and waiting for one
}

func (s *scheduler) snapshot() Stats {
	c := &s.stats
	st := Stats{
		Requests: c.requests.Load(), Completed: c.completed.Load(), Cancelled: c.cancelled.Load(),
		Failed: c.failed.Load(), Rejected: c.rejected.Load(),
		PromptTokens: c.promptTokens.Load(), CachedTokens: c.cachedTokens.Load(), PrefilledTokens: c.prefilledTokens.Load(),
		GeneratedTokens: c.generatedTokens.Load(), Steps: c.steps.Load(), StepTokens: c.stepTokens.Load(), PrefillChunks: c.chunks.Load(),
	}
	s.mu.Lock()
	st.Busy, st.Waiting = s.busy, len(s.waiting)
	s.mu.Unlock()
	return st
}
