package qwen3

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// batchGolden is chapter 10's golden run (reference/golden/10_batching/batch.json): five prompts
// of 1 to 12 tokens, transformers' greedy batched generate() with left padding, and each prompt
// generated alone, with two extra stop ids so that three sequences stop early.
type batchGolden struct {
	MaxNewTokens int   `json:"max_new_tokens"`
	StopTokens   []int `json:"stop_tokens"`
	Prompts      []struct {
		Text  string `json:"text"`
		IDs   []int  `json:"ids"`
		Alone []int  `json:"alone_new_ids"`
	} `json:"prompts"`
	Left struct {
		NewIDs [][]int `json:"new_ids"`
	} `json:"left"`
}

func loadBatchGolden(t *testing.T) *batchGolden {
	t.Helper()
	var g batchGolden
	if err := reference.LoadJSON("10_batching", "batch", &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Prompts) != len(g.Left.NewIDs) || len(g.Prompts) < 3 {
		t.Fatalf("batch.json: %d prompts, %d batched rows", len(g.Prompts), len(g.Left.NewIDs))
	}
	return &g
}

// untilStop is ids up to (not including) the first stop id: what a reply emits.
func untilStop(ids, stop []int) []int {
	for i, id := range ids {
		if slices.Contains(stop, id) {
			return ids[:i]
		}
	}
	return ids
}

// TestGenerateBatchGolden: the engine's batched greedy generation gives, for every sequence, the
// ids transformers' batched generate() gave and the ids of the prompt generated alone; sequences
// that draw a stop id leave the batch while the others go on; each sequence's text reaches its
// own callback.
func TestGenerateBatchGolden(t *testing.T) {
	g := loadBatchGolden(t)
	for door, path := range tinyPaths() {
		t.Run(door, func(t *testing.T) {
			m := loadTiny(t, path)
			var prompts []string
			for i, p := range g.Prompts {
				if got := m.Tokenizer().Encode(p.Text); !slices.Equal(got, p.IDs) {
					t.Fatalf("prompt %d %q encodes as %v, the golden ids are %v", i, p.Text, got, p.IDs)
				}
				prompts = append(prompts, p.Text)
			}
			streamed := make([]strings.Builder, len(prompts))
			opts := ReplyOptions{Sampling: Sampling{Temperature: new(0.0)}, MaxNewTokens: g.MaxNewTokens, Stop: g.StopTokens}
			texts, stats, err := m.GenerateBatch(context.Background(), prompts, opts, func(seq int, piece string) error {
				streamed[seq].WriteString(piece)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			stopped := 0
			for i, p := range g.Prompts {
				want := untilStop(g.Left.NewIDs[i], g.StopTokens)
				if alone := untilStop(p.Alone, g.StopTokens); !slices.Equal(want, alone) {
					t.Fatalf("golden data: prompt %d batched %v but alone %v", i, want, alone)
				}
				wantText, err := m.Tokenizer().Decode(want, false)
				if err != nil {
					t.Fatal(err)
				}
				wantFinish := FinishLength
				if len(want) < g.MaxNewTokens {
					wantFinish = FinishStop
					stopped++
				}
				if texts[i] != wantText || stats[i].NewTokens != len(want) || stats[i].Finish != wantFinish {
					t.Errorf("sequence %d: %d tokens (%s) %q; transformers: %d tokens (%s) %q",
						i, stats[i].NewTokens, stats[i].Finish, texts[i], len(want), wantFinish, wantText)
				}
				if streamed[i].String() != texts[i] {
					t.Errorf("sequence %d: its callback got %q, the reply is %q", i, streamed[i].String(), texts[i])
				}
			}
			if stopped == 0 || stopped == len(g.Prompts) {
				t.Errorf("golden data: %d of %d sequences stop early; the test needs some of each", stopped, len(g.Prompts))
			}
		})
	}
}

// TestBatchStepMatchesStep: stepping sessions together leaves the same caches and gives the same
// logits as stepping each alone, for 1 to 9 sessions of different lengths and every weight type,
// bit for bit: a batch step multiplies each block of weights with every token's input (the
// batched kernels take eight, four or two tokens at a time), with Step's int16 inputs and, lane
// by lane, Step's float operations.
func TestBatchStepMatchesStep(t *testing.T) {
	base := loadTiny(t, reference.TinyGGUF())
	prompts := [][]int{{785, 6722, 315, 9625, 374}, {13048}, {750, 912, 2877, 11, 293, 982, 262, 470}, {9707, 11, 1879}, {12522, 5193},
		{40, 1079}, {3838, 374, 279}, {1986}, {2132, 1052, 264, 882}}
	next := []int{11, 198, 220, 13, 264}
	type model struct {
		name  string
		m     *Model
		sizes []int
	}
	// The tiny model's 64-value rows never reach the batched assembly (it takes whole groups of
	// eight 32-value blocks) and its 151,936-row head is slow under the race detector: two sizes.
	// The random models' rows are 256 values: 2, 5 and 9 sessions reach the kernels for two, four
	// (and one left over) and eight (and one left over) tokens.
	models := []model{{"tiny BF16", base, []int{1, 3}}, {"tiny Q8_0", convert(t, base, Q8_0), []int{3}},
		{"random Q4_K_M", q4KMModel(t), []int{2, 5, 9}}}
	exactF16 := variant(q4KMModel(t), KVFloat16, true) // exact activations and a float16 cache: the float rows and F16 tiles
	models = append(models, model{"random Q4_K_M exact F16 cache", exactF16, []int{2, 5, 9}})
	for _, dt := range []DType{F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K} {
		m, _ := randomModel(t, 13, func(string, int) DType { return dt })
		models = append(models, model{"random " + dt.String(), m, []int{2, 5, 9}})
	}
	for _, tc := range models {
		for _, n := range tc.sizes {
			t.Run(fmt.Sprintf("%s/%d_sessions", tc.name, n), func(t *testing.T) {
				alone, together := make([]*Cache, n), make([]*Cache, n)
				for i := range n {
					for _, ss := range []*[]*Cache{&alone, &together} {
						s, err := tc.m.NewCache(64)
						if err != nil {
							t.Fatal(err)
						}
						ids := slices.Clone(prompts[i])
						for j := range ids {
							ids[j] %= tc.m.Config().VocabSize
						}
						if _, err := s.Prefill(context.Background(), ids); err != nil {
							t.Fatal(err)
						}
						(*ss)[i] = s
					}
				}
				b, err := tc.m.NewBatch(n)
				if err != nil {
					t.Fatal(err)
				}
				for step := range 4 {
					ids := make([]int, n)
					for i := range ids {
						ids[i] = next[(i+step)%len(next)] % tc.m.Config().VocabSize
					}
					got, wants := stepBoth(t, b, together, alone, ids)
					for i, s := range alone {
						want := wants[i]
						if !slices.Equal(got[i], want) {
							t.Fatalf("step %d, session %d: batched logits differ from Step's (max %.3g); they should be identical", step, i, maxAbsDiff(got[i], want))
						}
						if !slices.Equal(together[i].Tokens(), s.Tokens()) {
							t.Fatalf("step %d, session %d holds %v, alone %v", step, i, together[i].Tokens(), s.Tokens())
						}
					}
				}
			})
		}
	}
}

// stepBoth steps ids through the caches together (one Batch step) and through each of alone
// (Cache.Step), and returns both sets of logits.
func stepBoth(t *testing.T, b *Batch, together, alone []*Cache, ids []int) (got, want [][]float32) {
	t.Helper()
	got, err := b.Step(together, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range alone {
		w, err := s.Step(ids[i])
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, w)
	}
	return got, want
}

// maxAbsDiff is max |got - want|, for the failure message.
func maxAbsDiff(got, want []float32) float64 {
	var d float64
	for i := range want {
		d = max(d, math.Abs(float64(got[i]-want[i])))
	}
	return d
}

// q4KMModel is a random model (quant_test.go's shapes: rows of 256 values, as K-quants need)
// with llama-quantize's Q4_K_M mix of Q4_K and Q6_K.
func q4KMModel(t *testing.T) *Model {
	m, _ := randomModel(t, 11, q4KM)
	return m
}

// TestBatchStepAllocatesNothing: a batch step reuses the batch's buffers, as Step does, for the
// float and the block-quantized types, and batch sizes that leave a token to the one-token
// kernels (5).
func TestBatchStepAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race sync.Pool drops buffers on purpose, so the batched kernels' pooled scratch is allocated again; the plain test run checks this")
	}
	base := loadTiny(t, reference.TinyGGUF())
	q8, _ := randomModel(t, 17, func(string, int) DType { return Q8_0 })
	for _, tc := range []struct {
		m *Model
		n int
	}{{base, 2}, {base, 5}, {q8, 4}, {q8, 5}, {q4KMModel(t), 9}} {
		m, n := tc.m, tc.n
		ss := make([]*Cache, n)
		ids := make([]int, n)
		for i := range ss {
			s, err := m.NewCache(512)
			if err != nil {
				t.Fatal(err)
			}
			v := m.Config().VocabSize
			if _, err := s.Prefill(context.Background(), []int{785 % v, (6722 + i) % v}); err != nil {
				t.Fatal(err)
			}
			ss[i], ids[i] = s, 374%v
		}
		b, err := m.NewBatch(n)
		if err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(50, func() {
			if _, err := b.Step(ss, ids); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("a batch step of %d sessions allocates %v times", n, allocs)
		}
	}
}

// TestBatchErrors: every misuse is an error that says what is wrong, never a panic.
func TestBatchErrors(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	other := convert(t, m, BF16)
	newSession := func(m *Model, maxLen int, ids ...int) *Cache {
		s, err := m.NewCache(maxLen)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Prefill(context.Background(), ids); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, size := range []int{0, -1, 129} {
		if _, err := m.NewBatch(size); err == nil || !strings.Contains(err.Error(), "batch size") {
			t.Errorf("NewBatch(%d): %v", size, err)
		}
	}
	b, err := m.NewBatch(2)
	if err != nil {
		t.Fatal(err)
	}
	a, c := newSession(m, 16, 1, 2), newSession(m, 16, 3)
	full := newSession(m, 2, 1, 2)
	for _, tc := range []struct {
		name     string
		sessions []*Cache
		ids      []int
		want     string
	}{
		{"none", nil, nil, "1..2"},
		{"too many", []*Cache{a, c, newSession(m, 4, 5)}, []int{1, 2, 3}, "1..2"},
		{"ids", []*Cache{a, c}, []int{1}, "with 1 ids"},
		{"nil", []*Cache{a, nil}, []int{1, 2}, "cache 1 is nil"},
		{"twice", []*Cache{a, a}, []int{1, 2}, "cache 1 appears twice"},
		{"other model", []*Cache{a, newSession(other, 4, 1)}, []int{1, 2}, "another model"},
		{"full", []*Cache{a, full}, []int{1, 2}, "context is full"},
		{"vocabulary", []*Cache{a, c}, []int{1, 151936}, "outside the vocabulary"},
	} {
		_, err := b.Step(tc.sessions, tc.ids)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := b.Step([]*Cache{a, full}, []int{1, 2}); !errors.Is(err, ErrContextFull) {
		t.Errorf("a full session: %v does not wrap ErrContextFull", err)
	}
	if a.Len() != 2 || c.Len() != 1 {
		t.Errorf("failed steps changed the sessions: lengths %d and %d", a.Len(), c.Len())
	}

	greedy := ReplyOptions{Sampling: Sampling{Temperature: new(0.0)}, MaxNewTokens: 4, MaxContext: 8}
	for _, tc := range []struct {
		name    string
		prompts []string
		want    string
	}{
		{"no prompts", nil, "no prompts"},
		{"empty prompt", []string{"Hi", ""}, "prompt 1 is empty"},
		{"too long", []string{"Hi", strings.Repeat("word ", 20)}, "prompt 1 is 21 tokens"},
	} {
		if _, _, err := m.GenerateBatch(context.Background(), tc.prompts, greedy, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GenerateBatch, %s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestGenerateBatchStopsEachSequence: a callback error ends its own sequence only, the context's
// end ends a sequence with FinishContext, and a cancel ends them all with what was generated.
func TestGenerateBatchStopsEachSequence(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	prompts := []string{"The capital of France is", "Once upon a time", "Hi"}
	greedy := ReplyOptions{Sampling: Sampling{Temperature: new(0.0)}, MaxNewTokens: 12, Stop: []int{}, MaxContext: 12}
	stopMe := errors.New("enough")
	texts, stats, err := m.GenerateBatch(context.Background(), prompts, greedy, func(seq int, piece string) error {
		if seq == 1 {
			return stopMe
		}
		return nil
	})
	if !errors.Is(err, stopMe) || !strings.Contains(err.Error(), "sequence 1") {
		t.Errorf("the callback's error: %v", err)
	}
	// 12 positions: prompt 0 has 5 tokens, so it can take 7 new ones (the last one is not fed back, so 8);
	// prompt 2 has 1, so its budget of 12 ends first.
	if stats[1].Finish != FinishError || stats[1].NewTokens != 1 {
		t.Errorf("sequence 1 (its callback failed): %+v", stats[1])
	}
	if stats[0].Finish != FinishContext || stats[0].NewTokens != 8 || texts[0] == "" {
		t.Errorf("sequence 0 (5-token prompt, 12-token context): %+v %q", stats[0], texts[0])
	}
	if stats[2].Finish != FinishLength || stats[2].NewTokens != 12 {
		t.Errorf("sequence 2 (1-token prompt, budget 12): %+v", stats[2])
	}

	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	texts, stats, err = m.GenerateBatch(ctx, prompts, ReplyOptions{Sampling: greedy.Sampling, MaxNewTokens: 100, Stop: []int{}}, func(seq int, piece string) error {
		if n++; n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for i, st := range stats {
		if st.Finish != FinishCancel || st.NewTokens == 0 || st.NewTokens > 3 || texts[i] == "" {
			t.Errorf("cancelled, sequence %d: %+v %q", i, st, texts[i])
		}
	}
}

// TestSessionsConcurrent: one Model serves several goroutines, each with its own Session; every
// reply is the one its prompt gets alone. Run with -race (CI does) to check the sharing itself.
func TestSessionsConcurrent(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	g := loadBatchGolden(t)
	opts := ReplyOptions{Sampling: Sampling{Temperature: new(0.0)}, MaxNewTokens: g.MaxNewTokens, Stop: g.StopTokens}
	var wg sync.WaitGroup
	for round := range 2 {
		for i, p := range g.Prompts {
			wg.Go(func() {
				text, st, err := m.Generate(context.Background(), p.Text, opts, nil)
				if err != nil {
					t.Error(err)
					return
				}
				want := untilStop(p.Alone, g.StopTokens)
				wantText, _ := m.Tokenizer().Decode(want, false)
				if text != wantText || st.NewTokens != len(want) {
					t.Errorf("round %d, prompt %d: %d tokens %q; alone (transformers): %d tokens %q", round, i, st.NewTokens, text, len(want), wantText)
				}
			})
		}
	}
	wg.Wait()
}
