package batching

import (
	"context"
	"errors"
	"strings"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference/tinymodel"
)

func wantErr(t *testing.T, what string, err error, contains string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), contains) {
		t.Errorf("%s: error %v, want one containing %q", what, err, contains)
	}
}

func TestPadErrors(t *testing.T) {
	_, err := Pad(nil, 0, Left)
	wantErr(t, "no prompts", err, "no prompts")
	_, err = Pad([][]int{{1, 2}, {}}, 0, Left)
	wantErr(t, "empty prompt", err, "prompt 1 is empty")
	_, err = Pad([][]int{{1}}, 0, Side(7))
	wantErr(t, "bad side", err, "unknown padding side Side(7)")
	b, err := Pad([][]int{{1, 2}, {3, 4}}, 9, Left)
	if err != nil || b.Width() != 2 || b.IDs[1][0] != 3 || !b.Real[1][0] {
		t.Errorf("equal lengths: %+v, %v (want no padding)", b, err)
	}
}

func TestCacheErrors(t *testing.T) {
	m := tinymodel.Model(t)
	_, err := New(nil, 4)
	wantErr(t, "nil model", err, "nil model")
	_, err = New(m, 0)
	wantErr(t, "length 0", err, "cache length 0 outside 1..40960")

	c, _ := New(m, 4)
	_, err = c.Step([]int{1})
	wantErr(t, "step first", err, "Step before Prefill")
	_, err = c.Prefill(&Batch{})
	wantErr(t, "empty batch", err, "empty batch")
	wide, _ := Pad([][]int{{1, 2, 3, 4, 5}}, 0, Left)
	_, err = c.Prefill(wide)
	wantErr(t, "too wide", err, "5 columns wide exceeds the cache's 4")
	ragged := &Batch{IDs: [][]int{{1, 2}, {3}}, Real: [][]bool{{true, true}, {true}}}
	_, err = c.Prefill(ragged)
	wantErr(t, "ragged", err, "sequence 1 has 1 ids and 1 flags, the batch is 2 wide")
	bad, _ := Pad([][]int{{1, 2}, {3, 151936}}, 0, Left)
	_, err = c.Prefill(bad)
	wantErr(t, "id = vocab", err, "sequence 1, column 1: token 151936 is outside the vocabulary 0..151935")
	if c.Len() != 0 || c.Width() != 0 || c.WeightPasses() != 0 {
		t.Fatalf("a refused prefill changed the cache: %d sequences, width %d, %d passes", c.Len(), c.Width(), c.WeightPasses())
	}

	ok, _ := Pad([][]int{{1, 2}, {3}}, 0, Left)
	if _, err := c.Prefill(ok); err != nil {
		t.Fatal(err)
	}
	_, err = c.Prefill(ok)
	wantErr(t, "second prefill", err, "already holds a batch")
	width, next, passes := c.Width(), c.Next(1), c.WeightPasses()
	_, err = c.Step([]int{1})
	wantErr(t, "too few ids", err, "1 ids for 2 sequences")
	_, err = c.Step([]int{1, -1})
	wantErr(t, "negative id", err, "sequence 1, column 2: token -1 is outside the vocabulary")
	if c.Width() != width || c.Next(1) != next || c.WeightPasses() != passes || len(c.seqs[1].real) != width {
		t.Fatalf("a refused step changed the cache: width %d -> %d, next %d -> %d", width, c.Width(), next, c.Next(1))
	}
	for i := 0; i < 2; i++ {
		if _, err := c.Step([]int{5, 6}); err != nil {
			t.Fatalf("step %d of a 4-column cache after 2: %v", i, err)
		}
	}
	_, err = c.Step([]int{5, 6})
	wantErr(t, "full", err, "a step after 4 columns exceeds the cache's 4")
	c.Remove(0)
	c.Remove(0)
	_, err = c.Step(nil)
	wantErr(t, "empty batch step", err, "every sequence has left the batch")
}

func TestGenerateErrors(t *testing.T) {
	m := tinymodel.Model(t)
	greedy := func(n int) Options {
		return Options{GenerateOptions: sampling.GenerateOptions{Settings: sampling.Greedy(), MaxNewTokens: n}, Pad: PadToken}
	}
	ctx := context.Background()
	_, err := Generate(ctx, nil, [][]int{{1}}, greedy(2), nil)
	wantErr(t, "nil model", err, "nil model")
	_, err = Generate(ctx, m, [][]int{{1}}, greedy(0), nil)
	wantErr(t, "budget 0", err, "max new tokens 0 must be > 0")
	_, err = Generate(ctx, m, nil, greedy(2), nil)
	wantErr(t, "no prompts", err, "no prompts")
	bad := greedy(2)
	bad.Settings.TopP = 0
	_, err = Generate(ctx, m, [][]int{{1}}, bad, nil)
	wantErr(t, "top_p 0", err, "top_p 0")

	cfg := m.Config
	cfg.MaxPositionEmbeddings = 6
	short, err := forward.NewModel(cfg, m.Embedding, m.Layers, m.Norm, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Generate(ctx, short, [][]int{{1, 2, 3, 4}, {5}}, greedy(4), nil)
	wantErr(t, "context", err, "4 columns of prompt and 4 new tokens exceed the context of 6 positions")
	if _, err := Generate(ctx, short, [][]int{{1, 2, 3, 4}, {5}}, greedy(3), nil); err != nil {
		t.Errorf("4 + 3 new tokens in 6 positions (the last is not fed back): %v", err)
	}

	stop := errors.New("enough")
	calls := 0
	ids, err := Generate(ctx, m, [][]int{{785, 6722}, {9707}}, greedy(5), func(seq, id int) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(ids[0])+len(ids[1]) != 3 {
		t.Errorf("callback error on the 3rd token: ids %v, err %v", ids, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Generate(cancelled, m, [][]int{{1}}, greedy(2), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}
