package qwen3

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
)

var greedy = Sampling{Temperature: new(0.0)}

// TestSamplingZeroIsTheCheckpoints: the zero Sampling resolves to the checkpoint's recommended
// settings (the tiny checkpoint stores Qwen3-0.6B's: T 0.6, top-k 20, top-p 0.95), each set field
// replaces exactly one setting with chapter 09's meaning, and bad values are errors that name them.
func TestSamplingZeroIsTheCheckpoints(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	for _, c := range []struct {
		in   Sampling
		want sampling.Settings
	}{
		{Sampling{}, sampling.Settings{Temperature: 0.6, TopK: 20, TopP: 0.95}},
		{Sampling{Seed: 9}, sampling.Settings{Temperature: 0.6, TopK: 20, TopP: 0.95, Seed: 9}},
		{Sampling{Temperature: new(0.7)}, sampling.Settings{Temperature: 0.7, TopK: 20, TopP: 0.95}},
		{Sampling{TopK: new(0)}, sampling.Settings{Temperature: 0.6, TopP: 0.95}},
		{Sampling{TopP: new(1.0)}, sampling.Settings{Temperature: 0.6, TopK: 20, TopP: 1}},
		{Sampling{MinP: new(0.1)}, sampling.Settings{Temperature: 0.6, TopK: 20, TopP: 0.95, MinP: 0.1}},
		{greedy, sampling.Settings{Temperature: 0, TopK: 20, TopP: 0.95}},
		{SamplingFrom(sampling.Neutral(3)), sampling.Neutral(3)},
	} {
		got, err := m.Settings(c.in)
		if err != nil || got != c.want {
			t.Errorf("Settings(%s) = %+v, %v; want %+v", show(c.in), got, err, c.want)
		}
	}
	for field, s := range map[string]Sampling{
		"temperature": {Temperature: new(-1.0)},
		"top_k":       {TopK: new(-1)},
		"top_p":       {TopP: new(0.0)},
		"min_p":       {MinP: new(2.0)},
	} {
		if _, err := m.Settings(s); !errors.Is(err, sampling.ErrInvalidSettings) || !strings.Contains(err.Error(), field) {
			t.Errorf("Settings(%s): %v, want an error naming %s", show(s), err, field)
		}
	}
	if m.DefaultSettings(5) != (sampling.Settings{Temperature: 0.6, TopK: 20, TopP: 0.95, Seed: 5}) {
		t.Errorf("DefaultSettings(5) = %+v", m.DefaultSettings(5))
	}
}

func show(s Sampling) string {
	return fmt.Sprintf("{Temperature:%s TopK:%s TopP:%s MinP:%s Seed:%d}", deref(s.Temperature), deref(s.TopK), deref(s.TopP), deref(s.MinP), s.Seed)
}

func deref[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestCloseNil(t *testing.T) {
	var m *Model
	if err := m.Close(); err != nil {
		t.Errorf("Close on a nil Model: %v", err)
	}
}

// TestGenerateFinish: each way a reply ends is reported in Stats.Finish, and a reply that fills
// the context stops there without an error, with every token the context could hold.
func TestGenerateFinish(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	ctx := context.Background()
	const prompt = "The capital of France is" // 5 tokens
	text, st, err := m.Generate(ctx, prompt, ReplyOptions{Sampling: greedy, MaxNewTokens: 3}, nil)
	if err != nil || st.Finish != FinishLength || st.NewTokens != 3 {
		t.Errorf("budget of 3: %q %+v %v", text, st, err)
	}
	first := m.Tokenizer().Encode(text)[0]
	if _, st, err = m.Generate(ctx, prompt, ReplyOptions{Sampling: greedy, Stop: []int{first}}, nil); err != nil || st.Finish != FinishStop || st.NewTokens != 0 {
		t.Errorf("the first greedy token as a stop token: %+v %v", st, err)
	}
	// A 16-token context holds the 5 prompt tokens and 11 new ones; the 12th is picked from the
	// last logits but never fed back.
	if _, st, err = m.Generate(ctx, prompt, ReplyOptions{Sampling: greedy, MaxNewTokens: 100, MaxContext: 16, Stop: []int{}}, nil); err != nil || st.Finish != FinishContext || st.NewTokens != 12 {
		t.Errorf("a reply that fills a 16-token context: %+v %v (want 12 new tokens, finish context)", st, err)
	}
	if _, st, err = m.Generate(ctx, prompt, ReplyOptions{MaxContext: 4}, nil); !errors.Is(err, ErrContextFull) || !strings.Contains(err.Error(), "the prompt is 5 tokens, the context holds 4") {
		t.Errorf("a prompt longer than the context: %+v %v", st, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, st, err = m.Generate(cancelled, prompt, ReplyOptions{}, nil); !errors.Is(err, context.Canceled) || st.Finish != FinishCancel {
		t.Errorf("cancelled: %+v %v", st, err)
	}
	stopErr := errors.New("enough")
	if _, st, err = m.Generate(ctx, prompt, ReplyOptions{Stop: []int{}}, func(string) error { return stopErr }); !errors.Is(err, stopErr) || st.Finish != FinishError {
		t.Errorf("onText error: %+v %v", st, err)
	}
}

// TestPrefillProgressAndCancel: a long prompt reports its progress after every chunk, and a
// prefill cancelled part way reports the tokens and time it really spent.
func TestPrefillProgressAndCancel(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	prompt := strings.Repeat(" word", 600) // 600 tokens: chunks of 128
	var calls [][2]int
	_, st, err := m.Generate(context.Background(), prompt, ReplyOptions{Sampling: greedy, MaxNewTokens: 1,
		Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{128, 600}, {256, 600}, {384, 600}, {512, 600}, {600, 600}}
	if !slices.Equal(calls, want) || st.PromptTokens != 600 {
		t.Errorf("progress %v, want %v; stats %+v", calls, want, st)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, st, err = m.Generate(ctx, prompt, ReplyOptions{Progress: func(done, total int) {
		if done >= 256 {
			cancel()
		}
	}}, nil)
	if !errors.Is(err, context.Canceled) || st.PromptTokens != 256 || st.Prefill <= 0 || st.NewTokens != 0 || st.Finish != FinishCancel {
		t.Errorf("cancelled after two chunks: %v, stats %+v (want 256 prompt tokens, some prefill time)", err, st)
	}
}

// TestChatSurvivesAFullContext: in a small context, a chat of long replies goes on turn after
// turn: the oldest turns leave the model's view (the system prompt stays), the whole conversation
// is kept, a reply that fills the context makes room and goes on, and a message too long for the
// context alone is an error that leaves the chat usable.
func TestChatSurvivesAFullContext(t *testing.T) {
	const size = 96
	m := loadTiny(t, reference.TinyGGUF())
	ctx := context.Background()
	chat, err := m.NewChat(ChatOptions{System: "Be brief.", Reply: ReplyOptions{Sampling: greedy, MaxNewTokens: 30, MaxContext: size, Stop: []int{}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chat.Send(ctx, "Hi", nil); err != nil || chat.Dropped() != 0 {
		t.Fatalf("first turn: %v, dropped %d", err, chat.Dropped())
	}
	// The second reply fills the context: the first turn leaves, and the reply goes on after the
	// rest is prefilled again, up to 7/8 of the context (it is already over half of it).
	const story = "Tell me a story"
	with, without := mustRender(t, chat, 0, story), mustRender(t, chat, 2, story)
	budget := size*7/8 - len(without) - 1
	if len(with) >= size-1 || budget <= size-len(with)+1 {
		t.Fatalf("the test needs a second turn that fits at first (%d tokens) and a reply that overflows (%d tokens)", len(with), budget)
	}
	chat.Reply.MaxNewTokens = budget
	reply, err := chat.Send(ctx, story, nil)
	if err != nil {
		t.Fatal(err)
	}
	if chat.Dropped() != 2 || chat.Last().NewTokens != budget || chat.Last().Finish != FinishLength {
		t.Errorf("second turn: dropped %d messages, %d new tokens, finish %s; want 2, %d, length", chat.Dropped(), chat.Last().NewTokens, chat.Last().Finish, budget)
	}
	// The cache holds the system prompt and the second turn, as a conversation without the first
	// turn would have them, then the reply.
	if cached := chat.cache.Tokens(); len(cached) < len(without) || !slices.Equal(cached[:len(without)], without) || len(cached) > size {
		t.Errorf("after making room the cache holds %d tokens, not the conversation without turn 1 (%d tokens) and the reply", len(cached), len(without))
	}
	for turn := range 4 {
		if _, err := chat.Send(ctx, "Go on", nil); err != nil {
			t.Fatalf("turn %d: %v", turn+3, err)
		}
		if used, _ := chat.Context(); used > size {
			t.Fatalf("turn %d: %d tokens in a %d-token context", turn+3, used, size)
		}
	}
	msgs := chat.Messages()
	if len(msgs) != 1+2*6 || msgs[0].Role != "system" || msgs[1].Content != "Hi" || msgs[4].Content != reply {
		t.Errorf("the conversation was not kept whole: %d messages", len(msgs))
	}
	if chat.Dropped() < 4 || chat.Dropped()%2 != 0 || chat.Dropped() >= len(msgs)-1 {
		t.Errorf("dropped %d of %d messages", chat.Dropped(), len(msgs)-1)
	}
	// A message that cannot fit even alone is an error, and the chat goes on.
	if _, err := chat.Send(ctx, strings.Repeat(" word", size), nil); !errors.Is(err, ErrContextFull) {
		t.Errorf("a %d-token message in a %d-token context: %v", size, size, err)
	}
	if _, err := chat.Send(ctx, "Hi again", nil); err != nil || len(chat.Messages()) != 1+2*7 {
		t.Errorf("after the too-long message: %v, %d messages", err, len(chat.Messages()))
	}
	// Alone in the context, a reply that fills it stops there.
	chat.Reset()
	chat.Reply.MaxNewTokens = 2 * size
	if _, err := chat.Send(ctx, "Hi", nil); err != nil || chat.Last().Finish != FinishContext {
		t.Errorf("a reply that fills the context alone: %v, finish %s", err, chat.Last().Finish)
	}
}

func mustRender(t *testing.T, chat *Chat, first int, user string) []int {
	t.Helper()
	ids, err := chat.render(first, user)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestChatSystemAndThinking: the system prompt and thinking mode can change between turns.
func TestChatSystemAndThinking(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	chat, err := m.NewChat(ChatOptions{Reply: ReplyOptions{Sampling: greedy, MaxNewTokens: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if chat.System() != "" || len(chat.Messages()) != 0 {
		t.Errorf("zero ChatOptions: system %q, %d messages", chat.System(), len(chat.Messages()))
	}
	chat.SetSystem("You are a pirate.")
	chat.Thinking = true
	if _, err := chat.Send(context.Background(), "Hi", nil); err != nil {
		t.Fatal(err)
	}
	text := decode(t, m, chat, "Hi")
	if !strings.Contains(text, "<|im_start|>system\nYou are a pirate.<|im_end|>") || strings.Contains(text, "<think>") {
		t.Errorf("rendered with thinking on and a system prompt: %q", text)
	}
	chat.Thinking = false
	if text := decode(t, m, chat, "Hi"); !strings.HasSuffix(text, "<think>\n\n</think>\n\n") {
		t.Errorf("thinking off does not end with an empty think block: %q", text)
	}
	// Reset keeps the system prompt's tokens in the cache, and only them.
	chat.Reset()
	sys, _ := tokenizer.ApplyChatTemplate(chat.Messages(), tokenizer.ChatOptions{})
	if used, _ := chat.Context(); used != len(m.Tokenizer().Encode(sys)) || len(chat.Messages()) != 1 {
		t.Errorf("after Reset: %d tokens cached, the system prompt is %d; %d messages", used, len(m.Tokenizer().Encode(sys)), len(chat.Messages()))
	}
	if _, err := chat.Send(context.Background(), "  ", nil); err == nil {
		t.Error("an empty message was sent")
	}
}

// decode renders the chat's next prompt with user's message and decodes it back to text.
func decode(t *testing.T, m *Model, chat *Chat, user string) string {
	t.Helper()
	ids, err := chat.render(0, user)
	if err != nil {
		t.Fatal(err)
	}
	text, err := m.Tokenizer().Decode(ids, false)
	if err != nil {
		t.Fatal(err)
	}
	return text
}
