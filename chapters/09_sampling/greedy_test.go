package sampling

import (
	"context"
	"slices"
	"strings"
	"testing"

	kvcache "github.com/qwen3go/qwen3go/chapters/08_kvcache"
	"github.com/qwen3go/qwen3go/reference"
	"github.com/qwen3go/qwen3go/reference/tinymodel"
)

// The KV cache of chapter 08 is exactly the Model that Generate needs.
var _ Model = (*kvcache.Cache)(nil)

type greedyRun struct {
	Prompt       string `json:"prompt"`
	PromptIDs    []int  `json:"prompt_ids"`
	NewIDs       []int  `json:"new_ids"`
	MaxNewTokens int    `json:"max_new_tokens"`
}

// TestGreedyGolden runs greedy Generate on the tiny model through chapter 08's KV cache and
// compares with transformers' generate(do_sample=False, max_new_tokens=40): the token ids must be
// identical (no tolerance: the tiny model's float64 logits are within 1e-4 of transformers'
// float32 ones, chapter 07/08, and none of these argmaxes is that close to a tie).
func TestGreedyGolden(t *testing.T) {
	m := tinymodel.Model(t)
	var runs []greedyRun
	if err := reference.LoadJSON(chapter, "greedy", &runs); err != nil {
		t.Fatal(err)
	}
	if len(runs) < 5 {
		t.Fatalf("greedy.json has %d runs, want 5 (reference/README.md)", len(runs))
	}
	for i, run := range runs {
		if len(run.NewIDs) < 32 || run.MaxNewTokens != len(run.NewIDs) {
			t.Fatalf("run %d: %d new ids for a budget of %d", i, len(run.NewIDs), run.MaxNewTokens)
		}
		cache, err := kvcache.New(m, len(run.PromptIDs)+run.MaxNewTokens)
		if err != nil {
			t.Fatal(err)
		}
		var streamed []int
		got, err := Generate(context.Background(), cache, run.PromptIDs,
			GenerateOptions{Settings: Greedy(), MaxNewTokens: run.MaxNewTokens},
			func(id int) error { streamed = append(streamed, id); return nil })
		if err != nil {
			t.Fatalf("run %d (%q): %v", i, run.Prompt, err)
		}
		if !slices.Equal(got, run.NewIDs) || !slices.Equal(streamed, got) {
			for j := range min(len(got), len(run.NewIDs)) {
				if got[j] != run.NewIDs[j] {
					t.Fatalf("run %d (%q): new token %d is %d, transformers says %d\ngot  %v\nwant %v",
						i, run.Prompt, j, got[j], run.NewIDs[j], got, run.NewIDs)
				}
			}
			t.Fatalf("run %d (%q): got %v (streamed %v), want %v", i, run.Prompt, got, streamed, run.NewIDs)
		}
		if n := cache.Len(); n != len(run.PromptIDs)+run.MaxNewTokens-1 {
			t.Fatalf("run %d: cache holds %d tokens, want prompt + %d (the last token is not fed back)", i, n, run.MaxNewTokens-1)
		}
	}
}

// TestGenerateCacheFull runs the real cache out of room: the cache's error comes back wrapped,
// with the tokens generated before it.
func TestGenerateCacheFull(t *testing.T) {
	m := tinymodel.Model(t)
	prompt := []int{785, 6722, 315, 9625, 374}
	cache, err := kvcache.New(m, len(prompt)+3)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := Generate(context.Background(), cache, prompt, GenerateOptions{Settings: Greedy(), MaxNewTokens: 10}, nil)
	if err == nil || len(ids) != 4 {
		t.Fatalf("cache of 8 for 5 + 10 tokens: ids %v, err %v; want 4 ids and an error", ids, err)
	}
	t.Logf("error: %v", err)
	if !strings.Contains(err.Error(), "kvcache:") || !strings.Contains(err.Error(), "position 8") {
		t.Fatalf("error %q does not carry the cache's error and the position", err)
	}
	cache.Reset()
	if _, err := Generate(context.Background(), cache, slices.Repeat(prompt, 3), GenerateOptions{Settings: Greedy(), MaxNewTokens: 1}, nil); err == nil {
		t.Fatalf("a 15-token prompt in an 8-token cache: no error")
	}
}
