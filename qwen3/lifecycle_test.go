package qwen3

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qwen3go/qwen3go/reference"
)

// TestKernelPanicBecomesError: a kernel that panics on a worker during Generate (here
// kernels.DotF32Rows, given the last row of a gate_proj one weight short) comes back as a
// *PanicError that names the kernel, the layer, the matrix with its type and shape, and the
// token; the model stays usable, and the next Generate gives the text of an intact model.
func TestKernelPanicBecomesError(t *testing.T) {
	base := loadTiny(t, reference.TinyGGUF())
	m := convert(t, base, F32)
	opts := ReplyOptions{Sampling: greedy, MaxNewTokens: 6, Stop: []int{}}
	want, _, err := m.Generate(t.Context(), "Hi", opts, nil) // "Hi" is one token: the decoding path
	if err != nil {
		t.Fatal(err)
	}
	gate := m.layers[1].gate
	intact := gate.f32
	short := intact[: len(intact)-1 : len(intact)-1]
	gate.f32 = short
	text, st, err := m.Generate(t.Context(), "Hi", opts, nil)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Generate with a broken matrix: %q, %v; want a *PanicError", text, err)
	}
	wantMsg := "qwen3: panic in kernels.DotF32Rows during layer 1, the gate and up projections " +
		"(model.layers.1.mlp.gate_proj.weight: F32 192x64), 1 token at position 0: kernels: DotF32Rows of"
	if !strings.HasPrefix(err.Error(), wantMsg) || st.Finish != FinishError || len(pe.Stack) == 0 {
		t.Errorf("error %q (finish %s, %d bytes of stack); want it to start %q", err, st.Finish, len(pe.Stack), wantMsg)
	}
	gate.f32 = intact
	if again, _, err := m.Generate(t.Context(), "Hi", opts, nil); err != nil || again != want {
		t.Errorf("after the panic: %q, %v; an intact model says %q", again, err, want)
	}
	// A prompt takes the tile path, where the engine's own packing finds the short row first.
	gate.f32 = short
	_, _, err = m.Generate(t.Context(), "The capital of France is", opts, nil)
	gate.f32 = intact
	if !errors.As(err, &pe) || pe.Kernel != "qwen3.(*matrix).packRows" || !strings.Contains(err.Error(), "layer 1, the gate and up projections") ||
		!strings.Contains(err.Error(), "5 tokens at positions 0..4") {
		t.Errorf("a prompt with a broken matrix: %v", err)
	}
}

// TestPoolPanicOnAnyWorker: a panic on an extra worker, or on run's caller, ends the job and
// reaches run's caller as a *PanicError naming the function that panicked, with the panic's
// value; the pool then runs the next job in full, and close returns once its goroutines have.
func TestPoolPanicOnAnyWorker(t *testing.T) {
	before := poolWorkers()
	p := newPool(3)
	for _, panicker := range []string{"extra", "caller"} {
		var once sync.Once
		other := make(chan struct{})
		got := func() (v any) {
			defer func() { v = recover() }()
			p.run(300, 1, func(w, lo, hi int) {
				if (w == 0) == (panicker == "caller") {
					once.Do(func() { close(other) })
					panic(fmt.Sprintf("boom on worker %d", w))
				}
				select { // let the panicking side take a chunk
				case <-other:
				case <-time.After(10 * time.Second):
				}
			})
			return nil
		}()
		pe, ok := got.(*PanicError)
		if !ok || !strings.Contains(pe.Kernel, "TestPoolPanicOnAnyWorker") || !strings.HasPrefix(fmt.Sprint(pe.Value), "boom on worker") {
			t.Fatalf("panic on the %s goroutine: run raised %#v, want a *PanicError naming the body", panicker, got)
		}
		if w := fmt.Sprint(pe.Value); (panicker == "caller") != (w == "boom on worker 0") {
			t.Errorf("panic on the %s goroutine: %s", panicker, w)
		}
		seen := make([]int, 1000)
		var mu sync.Mutex
		p.run(len(seen), 3, func(_, lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		if i := slices.IndexFunc(seen, func(n int) bool { return n != 1 }); i >= 0 {
			t.Fatalf("after a panic on the %s goroutine, index %d was visited %d times", panicker, i, seen[i])
		}
	}
	p.close()
	if after := poolWorkers(); after != before {
		t.Errorf("close returned with %d pool workers running, %d before the pool", after, before)
	}
}

// poolWorkers counts the goroutines in a pool's worker loop, every pool's (other tests' models
// keep theirs: the count before a pool is made is the baseline).
func poolWorkers() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "qwen3.(*pool).loop(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestCloseDuringGenerate: Model.Close while a Generate runs on another goroutine ends that
// Generate with an error wrapping ErrClosed, whether Close comes between two tokens or while a
// prompt's chunks go through the model; afterwards every call that needs the weights says so.
func TestCloseDuringGenerate(t *testing.T) {
	ctx := t.Context()
	load := func() *Model {
		m, err := Load(ctx, reference.TinyGGUF(), WithThreads(2))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	long := ReplyOptions{Sampling: greedy, MaxNewTokens: 100, Stop: []int{}}

	// Between two tokens: the callback lets Close run, then the next step finds the model closed.
	m := load()
	closed := make(chan struct{})
	pieces := 0
	_, st, err := m.Generate(ctx, "Hi", long, func(string) error {
		if pieces++; pieces == 1 {
			go func() { m.Close(); close(closed) }()
			<-closed
		}
		return nil
	})
	if !errors.Is(err, ErrClosed) || st.Finish != FinishError || st.NewTokens == 0 || st.NewTokens == long.MaxNewTokens {
		t.Errorf("Close between tokens: %v, %+v; want an error wrapping ErrClosed after some tokens", err, st)
	}

	// While a prompt is prefilled: Close starts after the first chunk, and takes the engine
	// either before the next chunk (which then fails) or after it (the one after fails).
	m = load()
	var wg sync.WaitGroup
	prompt := strings.Repeat(" word", 600)
	_, st, err = m.Generate(ctx, prompt, ReplyOptions{Progress: func(done, total int) {
		if done == 128 {
			wg.Go(func() { m.Close() })
		}
	}}, nil)
	wg.Wait()
	if !errors.Is(err, ErrClosed) || st.PromptTokens >= 600 || st.NewTokens != 0 {
		t.Errorf("Close during a prefill: %v, %+v; want an error wrapping ErrClosed before the prompt's end", err, st)
	}

	// Afterwards: everything that needs the weights fails the same way, never a fault.
	if _, _, err := m.Generate(ctx, "Hi", long, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Generate after Close: %v", err)
	}
	if _, err := m.NewCache(8); !errors.Is(err, ErrClosed) {
		t.Errorf("NewCache after Close: %v", err)
	}
	if _, _, err := m.GenerateBatch(ctx, []string{"Hi", "Go"}, long, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("GenerateBatch after Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// TestCacheOutlivesItsModel: a cache made before Close refuses to run afterwards, and a closed
// cache refuses too, each with an error wrapping ErrClosed; Batch.Step reports which cache.
func TestCacheOutlivesItsModel(t *testing.T) {
	m, err := Load(t.Context(), reference.TinyGGUF(), WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := m.NewCache(16)
	b, _ := m.NewCache(16)
	if _, err := a.Prefill(t.Context(), []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Step(3); !errors.Is(err, ErrClosed) || err.Error() != "qwen3: the cache is closed" {
		t.Errorf("Step on a closed cache: %v", err)
	}
	batch, _ := m.NewBatch(2)
	if _, err := batch.Step([]*Cache{a, b}, []int{3, 4}); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "cache 1: the cache is closed") {
		t.Errorf("a batch step with a closed cache: %v", err)
	}
	m.Close()
	if _, err := a.Step(3); !errors.Is(err, ErrClosed) || err.Error() != "qwen3: the model is closed" {
		t.Errorf("Step after the model's Close: %v", err)
	}
	if a.Len() != 2 {
		t.Errorf("failed steps changed the cache: %d tokens", a.Len())
	}
	if err := a.Close(); err != nil {
		t.Errorf("closing a cache after its model: %v", err)
	}
}

// TestGenerateReusesItsCache: Generate keeps one cache between calls and reuses it when the
// length matches, replaces it when another length is asked for, and a cache in use does not
// stop a concurrent call from getting its own.
func TestGenerateReusesItsCache(t *testing.T) {
	m := convert(t, loadTiny(t, reference.TinyGGUF()), BF16) // an engine of its own
	opts := ReplyOptions{Sampling: greedy, MaxNewTokens: 2}
	if _, _, err := m.Generate(t.Context(), "Hi", opts, nil); err != nil {
		t.Fatal(err)
	}
	first := m.eng.idle
	if first == nil || first.MaxLen() != min(DefaultMaxContext, m.sizes.MaxContext) || first.Len() != 0 {
		t.Fatalf("after Generate the model keeps %+v, want an empty cache of the default length", first)
	}
	if _, _, err := m.Generate(t.Context(), "Hi", opts, nil); err != nil || m.eng.idle != first {
		t.Errorf("the second Generate did not reuse the cache (%v)", err)
	}
	opts.MaxContext = 64
	if _, _, err := m.Generate(t.Context(), "Hi", opts, nil); err != nil || m.eng.idle == first || m.eng.idle.MaxLen() != 64 || first.mem != nil {
		t.Errorf("a Generate of another length kept the old cache open or did not keep its own (%v)", err)
	}
}

// TestCacheTruncate: Truncate keeps a prefix, refuses lengths outside 0..Len, and the next
// token's logits after a truncation are those of a cache that never held the rest.
func TestCacheTruncate(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	a, _ := m.NewCache(32)
	b, _ := m.NewCache(32)
	defer a.Close()
	defer b.Close()
	if _, err := a.Prefill(t.Context(), []int{785, 6722, 315, 9625, 374}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-1, 6} {
		if err := a.Truncate(n); err == nil || !strings.Contains(err.Error(), "outside 0..5") {
			t.Errorf("Truncate(%d) of 5 tokens: %v", n, err)
		}
	}
	if err := a.Truncate(2); err != nil || a.Len() != 2 || !slices.Equal(a.Tokens(), []int{785, 6722}) {
		t.Fatalf("Truncate(2): %v, %v", err, a.Tokens())
	}
	got, err := a.Step(13)
	if err != nil {
		t.Fatal(err)
	}
	want, err := b.Prefill(t.Context(), []int{785, 6722, 13})
	if err != nil {
		t.Fatal(err)
	}
	// A step against a prefill of the same three tokens: two float32 paths that sum in different
	// orders. Measured on the tiny model of 2026-11-27: 1.7e-6 of the largest logit; the
	// tolerance, 1e-5 relative, is 5.9 times that.
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	if d := maxAbsDiff(got, want); d > 1e-5*scale {
		t.Errorf("after Truncate(2) and a step the logits differ by %.3g from a fresh cache's (largest logit %.3g, tolerance 1e-5 relative)", d, scale)
	} else {
		t.Logf("after Truncate(2) and a step: max |Δ| %.3g, %.2g relative", d, d/scale)
	}
}

// TestErrorsNamedOnce: an error the package returns names it once, with what each layer knows
// after it, and an error of the caller's callback comes back as it was.
func TestErrorsNamedOnce(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	ctx := t.Context()
	full, _ := m.NewCache(2)
	defer full.Close()
	if _, err := full.Prefill(ctx, []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	other, _ := m.NewCache(8)
	defer other.Close()
	b, _ := m.NewBatch(2)
	_, stepErr := b.Step([]*Cache{other, full}, []int{1, 2})
	_, _, genErr := m.Generate(ctx, strings.Repeat(" word", 20), ReplyOptions{MaxContext: 8}, nil)
	_, prefillErr := full.Prefill(ctx, []int{3})
	for _, c := range []struct {
		err  error
		want string
	}{
		{stepErr, "qwen3: batch step: cache 1: context is full: 2 cached + 1 new tokens > 2"},
		{genErr, "qwen3: context is full: the prompt is 20 tokens, the context holds 8"},
		{prefillErr, "qwen3: context is full: 2 cached + 1 new tokens > 2"},
	} {
		if c.err == nil || c.err.Error() != c.want || !errors.Is(c.err, ErrContextFull) {
			t.Errorf("error %v, want %q wrapping ErrContextFull", c.err, c.want)
		}
	}
	mine := errors.New("mine")
	_, _, err := m.Generate(ctx, "Hi", ReplyOptions{Stop: []int{}}, func(string) error { return mine })
	if err != mine {
		t.Errorf("the callback's error came back as %v", err)
	}
	_, _, err = m.GenerateBatch(ctx, []string{"Hi", "Go"}, ReplyOptions{Sampling: greedy, MaxNewTokens: 3}, func(seq int, _ string) error {
		if seq == 1 {
			return mine
		}
		return nil
	})
	if err == nil || err.Error() != "qwen3: sequence 1: mine" || !errors.Is(err, mine) {
		t.Errorf("GenerateBatch with a failing callback: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := other.Prefill(cancelled, []int{1}); err != context.Canceled {
		t.Errorf("a cancelled prefill: %v, want ctx's error as it is", err)
	}
}

// TestChatHonoursMaxContext: a chat whose Reply.MaxContext changes moves to a cache of the new
// length at its next turn, and goes on with the conversation.
func TestChatHonoursMaxContext(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	chat, err := m.NewChat(ChatOptions{System: "Be brief.", Reply: ReplyOptions{Sampling: greedy, MaxNewTokens: 4, MaxContext: 64}})
	if err != nil {
		t.Fatal(err)
	}
	defer chat.Close()
	if _, err := chat.Send(t.Context(), "Hi", nil); err != nil {
		t.Fatal(err)
	}
	chat.Reply.MaxContext = 128
	if _, err := chat.Send(t.Context(), "Again", nil); err != nil {
		t.Fatal(err)
	}
	if used, size := chat.Context(); size != 128 || used == 0 || chat.Reused() != 0 || len(chat.Messages()) != 5 {
		t.Errorf("after MaxContext 64 -> 128: %d of %d tokens, %d reused, %d messages", used, size, chat.Reused(), len(chat.Messages()))
	}
	chat.Reply.MaxContext = -1
	if _, err := chat.Send(t.Context(), "Hi", nil); err == nil || !strings.Contains(err.Error(), "a cache of -1 tokens") {
		t.Errorf("MaxContext -1: %v", err)
	}
}

// TestLoadCancelled: a cancelled context stops Load with ctx's error, through either door, and
// a cancel while the weights are prefaulted stops the prefault at its next matrix.
func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, path := range []string{reference.TinyGGUF(), reference.TinyHFDir()} {
		if m, err := Load(ctx, path); !errors.Is(err, context.Canceled) {
			m.Close()
			t.Errorf("Load(%s) with a cancelled context: %v", path, err)
		}
	}
	if m, err := LoadGGUFBytes(ctx, "tiny", reference.TinyGGUFBytes()); !errors.Is(err, context.Canceled) {
		m.Close()
		t.Errorf("LoadGGUFBytes with a cancelled context: %v", err)
	}
	ctx, cancel = context.WithCancel(t.Context())
	calls := 0
	m, err := Load(ctx, reference.TinyGGUF(), WithoutHugePages(), WithPrefault(func(done, total int64) {
		calls++
		cancel()
	}))
	if !errors.Is(err, context.Canceled) || calls != 1 {
		m.Close()
		t.Errorf("cancelled at the prefault's first matrix: %v after %d progress calls, want ctx's error after 1", err, calls)
	}
}

// TestReadOnlyState: what the model reports is a copy; changing it changes nothing in the model.
func TestReadOnlyState(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	d := m.Defaults()
	d.Stop[0] = -5
	c := m.Config()
	c.Architectures[0] = "changed"
	if m.Defaults().Stop[0] == -5 || m.Config().Architectures[0] == "changed" {
		t.Error("changing the returned Defaults or Config changed the model's")
	}
}
