package sampling

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// errContextFull stands for a KV cache's "context length exceeded" error.
var errContextFull = errors.New("context full")

// scriptModel is a fake language model: whatever the input, the logits at position n put all
// their weight (a margin of 10 units) on script[n - len(prompt)], so greedy decoding replays the
// script. It records every call and refuses to go past maxLen positions.
type scriptModel struct {
	vocab, maxLen int
	script        []int
	pos           int // number of tokens in the cache
	prefills      [][]int
	steps         []int
}

func (m *scriptModel) logits(n int) []float64 {
	z := make([]float64, m.vocab)
	if n < len(m.script) {
		z[m.script[n]] = 10
	}
	return z
}

func (m *scriptModel) Prefill(ids []int) ([]float64, error) {
	m.prefills = append(m.prefills, slices.Clone(ids))
	if len(ids) > m.maxLen {
		return nil, fmt.Errorf("prompt of %d tokens: %w (%d)", len(ids), errContextFull, m.maxLen)
	}
	m.pos = len(ids)
	return m.logits(0), nil
}

func (m *scriptModel) Step(id int) ([]float64, error) {
	m.steps = append(m.steps, id)
	if m.pos >= m.maxLen {
		return nil, fmt.Errorf("position %d: %w (%d)", m.pos, errContextFull, m.maxLen)
	}
	m.pos++
	return m.logits(len(m.steps)), nil
}

const fakeVocab = 151936 // the real vocabulary, so the real stop ids exist

func newScript(script ...int) *scriptModel {
	return &scriptModel{vocab: fakeVocab, maxLen: 1 << 20, script: script}
}

func greedyOpts(max int) GenerateOptions {
	return GenerateOptions{Settings: Greedy(), MaxNewTokens: max}
}

func TestGenerateStopsAtStopToken(t *testing.T) {
	for _, stop := range []int{ImEnd, EndOfText} {
		m := newScript(5, 6, 7, stop, 8, 9)
		var seen []int
		ids, err := Generate(context.Background(), m, []int{1, 2, 3}, greedyOpts(10), func(id int) error {
			seen = append(seen, id)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{5, 6, 7}; !slices.Equal(ids, want) || !slices.Equal(seen, want) {
			t.Fatalf("stop %d: ids %v, callback saw %v, want %v (stop token not emitted)", stop, ids, seen, want)
		}
		if !slices.Equal(m.steps, []int{5, 6, 7}) || len(m.prefills) != 1 || !slices.Equal(m.prefills[0], []int{1, 2, 3}) {
			t.Fatalf("model saw prefill %v and steps %v", m.prefills, m.steps)
		}
	}
	// custom stop tokens replace the defaults; an empty list disables stopping.
	opts := greedyOpts(10)
	opts.StopTokens = []int{7}
	if ids, err := Generate(context.Background(), newScript(5, ImEnd, 7), []int{1}, opts, nil); err != nil || !slices.Equal(ids, []int{5, ImEnd}) {
		t.Fatalf("StopTokens [7]: %v, %v", ids, err)
	}
	opts.StopTokens = []int{}
	if ids, err := Generate(context.Background(), newScript(5, ImEnd, 7), []int{1}, opts, nil); err != nil || len(ids) != 10 {
		t.Fatalf("no stop tokens: %v, %v; want 10 tokens", ids, err)
	}
}

func TestGenerateBudget(t *testing.T) {
	m := newScript(5, 6, 7, 8, 9)
	ids, err := Generate(context.Background(), m, []int{1}, greedyOpts(3), nil)
	if err != nil || !slices.Equal(ids, []int{5, 6, 7}) {
		t.Fatalf("budget 3: %v, %v", ids, err)
	}
	if !slices.Equal(m.steps, []int{5, 6}) {
		t.Fatalf("steps %v: the last token must not be fed back", m.steps)
	}
	for _, bad := range []int{0, -1} {
		if _, err := Generate(context.Background(), newScript(5), []int{1}, greedyOpts(bad), nil); err == nil {
			t.Errorf("MaxNewTokens %d: no error", bad)
		}
	}
	if _, err := Generate(context.Background(), newScript(5), nil, greedyOpts(3), nil); err == nil {
		t.Errorf("empty prompt: no error")
	}
	bad := greedyOpts(3)
	bad.Settings.TopP = 0
	if _, err := Generate(context.Background(), newScript(5), []int{1}, bad, nil); !errors.Is(err, ErrInvalidSettings) {
		t.Errorf("invalid settings: error %v", err)
	}
}

func TestGenerateContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := newScript(5, 6, 7, 8, 9)
	ids, err := Generate(ctx, m, []int{1}, greedyOpts(10), func(id int) error {
		if id == 6 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !slices.Equal(ids, []int{5, 6}) {
		t.Fatalf("cancel after 6: %v, %v", ids, err)
	}
	if !slices.Equal(m.steps, []int{5}) {
		t.Fatalf("steps %v after cancel, want [5]", m.steps)
	}
	m = newScript(5)
	if _, err := Generate(ctx, m, []int{1}, greedyOpts(10), nil); !errors.Is(err, context.Canceled) || len(m.prefills) != 0 {
		t.Fatalf("already cancelled: %v, %d prefills", err, len(m.prefills))
	}
}

func TestGenerateCallbackError(t *testing.T) {
	stop := errors.New("enough")
	ids, err := Generate(context.Background(), newScript(5, 6, 7), []int{1}, greedyOpts(10), func(id int) error {
		if id == 6 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !slices.Equal(ids, []int{5, 6}) {
		t.Fatalf("callback error at 6: %v, %v", ids, err)
	}
}

func TestGenerateContextLength(t *testing.T) {
	m := newScript(5, 6, 7, 8, 9)
	m.maxLen = 4
	ids, err := Generate(context.Background(), m, []int{1, 2}, greedyOpts(10), nil)
	// positions 0,1 prompt; 2 and 3 hold the tokens 5 and 6; feeding 7 needs position 4.
	if !errors.Is(err, errContextFull) || !slices.Equal(ids, []int{5, 6, 7}) {
		t.Fatalf("context 4: %v, %v", ids, err)
	}
	t.Logf("error: %v", err)
	m = newScript(5)
	m.maxLen = 2
	if _, err := Generate(context.Background(), m, []int{1, 2, 3}, greedyOpts(10), nil); !errors.Is(err, errContextFull) {
		t.Fatalf("prompt longer than the context: %v", err)
	}
}

// Sampling (not greedy) through Generate is reproducible too.
func TestGenerateSampledReproducible(t *testing.T) {
	logits, _ := loadGoldenLogits(t)
	m := &rowModel{z: row(logits, 2)}
	opts := GenerateOptions{Settings: QwenNonThinking(7), MaxNewTokens: 50, StopTokens: []int{}}
	a, err := Generate(context.Background(), m, []int{1}, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(context.Background(), m, []int{1}, opts, nil)
	if !slices.Equal(a, b) || len(a) != 50 {
		t.Fatalf("same seed, different generations:\n%v\n%v", a, b)
	}
}

// rowModel always predicts the same logits.
type rowModel struct{ z []float64 }

func (m *rowModel) Prefill([]int) ([]float64, error) { return m.z, nil }
func (m *rowModel) Step(int) ([]float64, error)      { return m.z, nil }
