package qwen3

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
)

type greedyRun struct {
	Prompt       string `json:"prompt"`
	PromptIDs    []int  `json:"prompt_ids"`
	NewIDs       []int  `json:"new_ids"`
	MaxNewTokens int    `json:"max_new_tokens"`
}

// TestGreedyGolden: greedy decoding must give exactly transformers' generate(do_sample=False) ids,
// 40 new tokens for each golden prompt, through both file kinds.
func TestGreedyGolden(t *testing.T) {
	var runs []greedyRun
	if err := reference.LoadJSON("09_sampling", "greedy", &runs); err != nil {
		t.Fatal(err)
	}
	greedy := SamplingFrom(sampling.Greedy())
	for kind, path := range tinyPaths() {
		m := loadTiny(t, path)
		for i, r := range runs {
			if got := m.Tokenizer().Encode(r.Prompt); !slices.Equal(got, r.PromptIDs) {
				t.Fatalf("run %d: prompt encodes to %v, transformers %v", i, got, r.PromptIDs)
			}
			s, err := m.NewCache(128)
			if err != nil {
				t.Fatal(err)
			}
			ids, _, err := m.continueCache(context.Background(), s, r.PromptIDs,
				ReplyOptions{Sampling: greedy, MaxNewTokens: r.MaxNewTokens}, func(int) error { return nil }, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, r.NewIDs) {
				t.Errorf("%s run %d: greedy ids\n %v\ntransformers\n %v", kind, i, ids, r.NewIDs)
			}
		}
	}
}

// TestPickerMatchesSampler: the engine's top-k shortcut draws the same tokens as chapter 09's
// sampler on the whole vocabulary, seed for seed.
func TestPickerMatchesSampler(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	logits32 := make([]float32, 5000)
	logits64 := make([]float64, len(logits32))
	for _, settings := range []sampling.Settings{
		sampling.QwenThinking(1), sampling.QwenNonThinking(2), sampling.Neutral(3),
		{Temperature: 0.9, TopK: 50, TopP: 0.9, MinP: 0.05, Seed: 4},
		{Temperature: 1.2, TopK: 3, TopP: 1, Seed: 5},
	} {
		fast, err := sampling.NewSampler(settings)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := sampling.NewSampler(settings)
		p := newPicker(len(logits32), fast)
		for draw := 0; draw < 200; draw++ {
			for i := range logits32 {
				logits32[i] = float32(r.NormFloat64() * 3)
				if i%97 == 0 { // ties
					logits32[i] = logits32[0]
				}
				logits64[i] = float64(logits32[i])
			}
			got, err := p.pick(logits32)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Sample(logits64)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("%+v draw %d: picker chose %d, chapter 09's sampler %d", settings, draw, got, want)
			}
		}
	}
}

// TestGreedyPickTiesLikeArgmax: greedy decoding picks the FIRST of tied largest logits, as
// torch.argmax does (and with it transformers' greedy search) and as chapter 09's Argmax does.
// Ties are rare in float32 logits but they occur, and picking the last one would change the
// generated text from transformers'.
func TestGreedyPickTiesLikeArgmax(t *testing.T) {
	sm, err := sampling.NewSampler(sampling.Greedy())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		logits []float32
		want   int
	}{
		{[]float32{1, 3, 3, 2}, 1},
		{[]float32{5, 5}, 0},
		{[]float32{-1, 0, 7, 0, 7, 7}, 2},
		{[]float32{-2}, 0},
	} {
		p := newPicker(len(c.logits), sm)
		got, err := p.pick(c.logits)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("greedy pick of %v = %d, want %d: the first of the tied largest logits, like torch.argmax", c.logits, got, c.want)
		}
		logits64 := make([]float64, len(c.logits))
		for i, v := range c.logits {
			logits64[i] = float64(v)
		}
		if a := sampling.Argmax(logits64); a != c.want {
			t.Errorf("chapter 09's Argmax(%v) = %d, want %d", c.logits, a, c.want)
		}
	}
}

// TestStepAllocatesNothing: a decode step reuses the session's buffers, with either cache and
// with exact activations (whose float path decodes rows into a buffer on the stack).
func TestStepAllocatesNothing(t *testing.T) {
	base := loadTiny(t, reference.TinyGGUF())
	exactF16 := variant(convert(t, base, Q8_0), KVFloat16, true)
	for name, m := range map[string]*Model{"as stored": base, "Q8_0, exact, F16 cache": exactF16} {
		s, err := m.NewCache(256)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Prefill(context.Background(), []int{785, 6722, 315}); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := s.Step(374); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: Step allocates %v times per token", name, allocs)
		}
	}
}

// TestChatReusesCache: the second turn reuses the cached prefix, and its reply is the same as
// when the whole conversation is computed from scratch.
func TestChatReusesCache(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	opts := ChatOptions{System: "You are terse.", Reply: ReplyOptions{Sampling: Sampling{Temperature: new(0.0)}, MaxNewTokens: 12, MaxContext: 512}}
	chat, err := m.NewChat(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var streamed strings.Builder
	first, err := chat.Send(ctx, "Hi", func(s string) error { streamed.WriteString(s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if streamed.String() != first {
		t.Errorf("streamed %q, returned %q", streamed.String(), first)
	}
	second, err := chat.Send(ctx, "And again?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if chat.Reused() < 10 {
		t.Errorf("second turn reused only %d cached tokens", chat.Reused())
	}
	if len(chat.Messages()) != 5 {
		t.Fatalf("%d messages after two turns, want 5", len(chat.Messages()))
	}
	// From scratch: the same messages in a fresh chat, replayed as one prompt.
	fresh, _ := m.NewChat(opts)
	fresh.messages = append(fresh.messages, chat.Messages()[1:3]...)
	again, err := fresh.Send(ctx, "And again?", nil)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Reused() != 0 || again != second {
		t.Errorf("reply with cache %q, from scratch %q (reused %d)", second, again, fresh.Reused())
	}
}

func TestSessionErrors(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	ctx := context.Background()
	if _, err := m.NewCache(m.Config().MaxPositionEmbeddings + 1); err == nil {
		t.Error("a session longer than the model's context was accepted")
	}
	s, _ := m.NewCache(4)
	if _, err := s.Prefill(ctx, []int{1, 2, 3, 4, 5}); !errors.Is(err, ErrContextFull) {
		t.Errorf("5 tokens into a 4-token session: %v", err)
	}
	if _, err := s.Prefill(ctx, []int{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Step(5); !errors.Is(err, ErrContextFull) {
		t.Errorf("a step past the context: %v", err)
	}
	s.Reset()
	for _, id := range []int{-1, m.Config().VocabSize} {
		if _, err := s.Step(id); err == nil || !strings.Contains(err.Error(), "outside the vocabulary") {
			t.Errorf("token %d: %v", id, err)
		}
	}
	if _, err := s.Prefill(ctx, nil); err == nil {
		t.Error("empty prefill accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Prefill(cancelled, []int{1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled prefill: %v", err)
	}
	if _, _, err := m.Generate(ctx, "Hi", ReplyOptions{Sampling: Sampling{Temperature: new(-1.0)}}, nil); err == nil {
		t.Error("negative temperature accepted")
	}
	if _, _, err := m.Generate(ctx, "Hi", ReplyOptions{MaxNewTokens: -1}, nil); err == nil {
		t.Error("negative budget accepted")
	}
	long := strings.Repeat("word ", 100)
	if _, _, err := m.Generate(ctx, long, ReplyOptions{MaxContext: 50}, nil); !errors.Is(err, ErrContextFull) {
		t.Errorf("over-long prompt: %v", err)
	}
}

func TestGenerateStreamsAndStops(t *testing.T) {
	m := loadTiny(t, reference.TinyHFDir())
	ctx := context.Background()
	var pieces []string
	settings := Sampling{Seed: 7}
	text, st, err := m.Generate(ctx, "The capital of France is", ReplyOptions{Sampling: settings, MaxNewTokens: 20},
		func(s string) error { pieces = append(pieces, s); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pieces, "") != text || st.NewTokens == 0 || st.NewTokens > 20 || st.PromptTokens != 5 {
		t.Errorf("text %q from pieces %q, stats %+v", text, pieces, st)
	}
	// the same seed gives the same text
	again, _, _ := m.Generate(ctx, "The capital of France is", ReplyOptions{Sampling: settings, MaxNewTokens: 20}, nil)
	if again != text {
		t.Errorf("seed 7 gave %q, then %q", text, again)
	}
	// a callback error stops generation
	stopErr := errors.New("enough")
	_, st, err = m.Generate(ctx, "Hi", ReplyOptions{MaxNewTokens: 20, Stop: []int{}}, func(string) error { return stopErr })
	if !errors.Is(err, stopErr) || st.NewTokens > 3 {
		t.Errorf("callback error: %v after %d tokens", err, st.NewTokens)
	}
	for name, d := range map[string]Defaults{"generation_config.json": m.Defaults(), "GGUF general.sampling": loadTiny(t, reference.TinyGGUF()).Defaults()} {
		if d.Temperature != 0.6 || d.TopK != 20 || d.TopP != 0.95 || !slices.Contains(d.Stop, 151645) || !slices.Contains(d.Stop, 151643) {
			t.Errorf("defaults from %s: %+v", name, d)
		}
	}
	// top_k beyond the vocabulary keeps everything; it must not size anything by k.
	huge := Sampling{Temperature: new(1.0), TopK: new(1 << 50), TopP: new(1.0), Seed: 1}
	if _, _, err := m.Generate(ctx, "Hi", ReplyOptions{Sampling: huge, MaxNewTokens: 2}, nil); err != nil {
		t.Errorf("top_k 2^50: %v", err)
	}
}

// TestUnusedIDsGiveNoText: Qwen3's vocabulary has unused ids (151669 and up) that a random model
// can draw; they stream no text instead of failing the reply.
func TestUnusedIDsGiveNoText(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	var b strings.Builder
	sink := textSink(m.Tokenizer(), &b, nil)
	for _, id := range []int{9707, 151700, 11, -1} { // "Hello", unused, ",", flush
		if err := sink(id); err != nil {
			t.Fatal(err)
		}
	}
	if b.String() != "Hello," {
		t.Errorf("got %q", b.String())
	}
}
