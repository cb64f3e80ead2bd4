package qwen3

import (
	"context"
	"slices"
	"strings"
	"testing"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
)

// keep is a copy of a Step, its slices cloned.
func keep(s Step) Step {
	s.Logits = slices.Clone(s.Logits)
	s.Candidates = slices.Clone(s.Candidates)
	s.Probs = slices.Clone(s.Probs)
	return s
}

// TestOnStepIsWhatWasSampled: OnStep sees one Step per decode step, the stop token's included;
// its IDs are the reply's tokens; its Probs are chapter 09's Distribution of the whole
// vocabulary's logits (the candidates' entries, the others 0) and chapter 09's Sampler on the
// whole vocabulary, seeded alike, draws its IDs: the distribution a Step shows is the one the
// token was drawn from. Settings with top-k (the picker's shortcut: Candidates), without (the
// whole vocabulary) and greedy.
func TestOnStepIsWhatWasSampled(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	const prompt = "func main() {"
	promptLen := len(m.Tokenizer().Encode(prompt))
	for _, c := range []struct {
		name string
		s    sampling.Settings
	}{
		{"top-k", sampling.Settings{Temperature: 0.8, TopK: 20, TopP: 0.9, MinP: 0.02, Seed: 7}},
		{"no top-k", sampling.Settings{Temperature: 1.1, TopK: 0, TopP: 0.8, MinP: 0, Seed: 8}},
		{"greedy", sampling.Greedy()},
	} {
		t.Run(c.name, func(t *testing.T) {
			var steps []Step
			var ids []int
			opts := ReplyOptions{Sampling: SamplingFrom(c.s), MaxNewTokens: 12, OnStep: func(s Step) { steps = append(steps, keep(s)) }}
			ctx := context.Background()
			cache, err := m.NewCache(64)
			if err != nil {
				t.Fatal(err)
			}
			defer cache.Close()
			_, st, err := m.continueCache(ctx, cache, m.Tokenizer().Encode(prompt), opts, func(id int) error {
				if id >= 0 {
					ids = append(ids, id)
				}
				return nil
			}, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := len(ids)
			if st.Finish == FinishStop {
				want++ // the stop token is drawn too
			}
			if len(steps) != want {
				t.Fatalf("%d steps for %d new tokens (finish %s): want one per token drawn", len(steps), len(ids), st.Finish)
			}
			ref, err := sampling.NewSampler(c.s)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range steps {
				if s.Index != i || s.Position != promptLen+i || s.Seq != 0 || s.Settings != c.s {
					t.Fatalf("step %d: Index %d, Position %d, Seq %d, Settings %+v; want %d, %d, 0, %+v", i, s.Index, s.Position, s.Seq, s.Settings, i, promptLen+i, c.s)
				}
				if i < len(ids) && (s.ID != ids[i] || s.Stop) {
					t.Fatalf("step %d: ID %d (stop %v), the reply's token %d", i, s.ID, s.Stop, ids[i])
				}
				if i == len(ids) && !s.Stop {
					t.Fatalf("step %d: the reply ended with a stop token, the step says Stop false", i)
				}
				if s.Time <= 0 {
					t.Errorf("step %d: Time %v", i, s.Time)
				}
				z := make([]float64, len(s.Logits))
				for j, v := range s.Logits {
					z[j] = float64(v)
				}
				full := sampling.Distribution(z, c.s)
				got := make([]float64, len(z))
				switch {
				case s.Candidates == nil && len(s.Probs) == len(z):
					copy(got, s.Probs)
				case s.Candidates != nil && len(s.Candidates) == len(s.Probs):
					for k, id := range s.Candidates {
						got[id] = s.Probs[k]
					}
				default:
					t.Fatalf("step %d: %d candidates, %d probabilities", i, len(s.Candidates), len(s.Probs))
				}
				if (c.name == "no top-k") != (s.Candidates == nil) {
					t.Fatalf("step %d: Candidates nil is %v for %s", i, s.Candidates == nil, c.name)
				}
				// Zero probabilities add nothing to a float sum, so the candidates' distribution
				// is chapter 09's on the whole vocabulary to the bit.
				for j := range z {
					if got[j] != full[j] {
						t.Fatalf("step %d: Probs gives id %d %g, chapter 09's Distribution of the logits %g", i, j, got[j], full[j])
					}
				}
				if !(got[s.ID] > 0) {
					t.Fatalf("step %d: the drawn id %d has probability %g", i, s.ID, got[s.ID])
				}
				draw, err := ref.Sample(z)
				if err != nil {
					t.Fatal(err)
				}
				if draw != s.ID {
					t.Fatalf("step %d: ID %d, chapter 09's sampler (seed %d) on the same logits draws %d", i, s.ID, c.s.Seed, draw)
				}
			}
		})
	}
}

// TestOnStepBatchAndChat: in GenerateBatch each sequence's steps carry its index; in a Chat the
// positions of the second turn follow the conversation in the cache.
func TestOnStepBatchAndChat(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	ctx := context.Background()
	greedy := SamplingFrom(sampling.Greedy())
	count := map[int]int{}
	texts, _, err := m.GenerateBatch(ctx, []string{"package main", "func f() {"}, ReplyOptions{Sampling: greedy, MaxNewTokens: 5,
		OnStep: func(s Step) {
			if s.Index != count[s.Seq] {
				t.Errorf("sequence %d: step Index %d after %d steps", s.Seq, s.Index, count[s.Seq])
			}
			count[s.Seq]++
		}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(count) != 2 || count[0] < 1 || count[1] < 1 {
		t.Fatalf("steps per sequence %v for texts %q", count, texts)
	}
	var positions []int
	chat, err := m.NewChat(ChatOptions{Reply: ReplyOptions{Sampling: greedy, MaxNewTokens: 3, OnStep: func(s Step) { positions = append(positions, s.Position) }}})
	if err != nil {
		t.Fatal(err)
	}
	defer chat.Close()
	for turn := range 2 {
		positions = positions[:0]
		if _, err := chat.Send(ctx, strings.Repeat("x", turn+1), nil); err != nil {
			t.Fatal(err)
		}
		used, _ := chat.Context()
		// The reply's last token is not fed back, so the cache holds the positions before it.
		if len(positions) == 0 || positions[len(positions)-1] != used {
			t.Fatalf("turn %d: positions %v, the cache holds %d tokens", turn, positions, used)
		}
		if p := positions[0]; turn == 1 && p <= 3 {
			t.Fatalf("turn 1 starts at position %d: the first turn's tokens are before it", p)
		}
	}
	// A nil OnStep changes nothing: the same greedy text with and without.
	plain, _, err := m.Generate(ctx, "func main() {", ReplyOptions{Sampling: greedy, MaxNewTokens: 8}, nil)
	if err != nil {
		t.Fatal(err)
	}
	traced, _, err := m.Generate(ctx, "func main() {", ReplyOptions{Sampling: greedy, MaxNewTokens: 8, OnStep: func(Step) {}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plain != traced {
		t.Fatalf("greedy text %q with OnStep, %q without", traced, plain)
	}
}
