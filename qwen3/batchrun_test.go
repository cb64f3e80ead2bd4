package qwen3

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// relDiff is max |got − want| over the largest |want|: an error on the scale of the logits.
func relDiff(got, want []float32) float64 {
	var top float64
	for _, w := range want {
		top = max(top, float64(abs32(w)))
	}
	return maxAbsDiff(got, want) / top
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// runTolerance bounds a decoding token's logits in a mixed pass against Step's, relative to the
// largest, for the float types: the pass takes the prompt's tiles, which add the same products
// as Step's dots in another order. Measured (this test, every kernel level): 1.6e-6 for the
// tiny model, up to 3.1e-5 for the random Q4_K_M with exact activations and a float16 cache
// (generic kernels); the bound is 6x that. The block-quantized types round each tile's inputs to int16 blocks as a
// prompt does, and Step and the tiles each stay within actTol of chapter 07 (quant_test.go):
// measured 8.3e-5 (the tiny model as Q8_0) to 3.9e-4 (the random Q4_K_M, whose logits are
// flat) against Step, held to actTol, Step's own contract, 5x the largest.
const runTolerance = 1.9e-4

// TestBatchRunMatchesPrefillAndStep: one Run that carries a prompt chunk of one cache beside one
// decoding token of each of the others gives the chunk's cache Prefill's logits and cache, bit
// for bit, and the decoding caches Step's logits within runTolerance; afterwards every cache
// steps on as if it had been run alone. The chunk sits first, in the middle and last, so that
// the attention items of every segment are found wherever it is.
func TestBatchRunMatchesPrefillAndStep(t *testing.T) {
	base := loadTiny(t, reference.TinyGGUF())
	prompts := [][]int{{785, 6722, 315, 9625, 374}, {13048}, {750, 912, 2877, 11, 293, 982, 262, 470}, {9707, 11, 1879}}
	chunk := []int{11, 198, 220, 13, 264, 785, 6722}
	type model struct {
		name string
		m    *Model
	}
	models := []model{{"tiny BF16", base}, {"tiny Q8_0", convert(t, base, Q8_0)}, {"random Q4_K_M", q4KMModel(t)},
		{"random Q4_K_M exact F16 cache", variant(q4KMModel(t), KVFloat16, true)}}
	for _, dt := range []DType{F32, Q8_0} {
		m, _ := randomModel(t, 13, func(string, int) DType { return dt })
		models = append(models, model{"random " + dt.String(), m})
	}
	var worst, worstQ float64
	eachLevel(t, func(t *testing.T) {
		for _, tc := range models {
			tol, worst := runTolerance, &worst
			if tc.m.roundsActs() {
				tol, worst = actTol, &worstQ
			}
			for _, at := range []int{0, 2, 3} { // which cache takes the chunk
				t.Run(fmt.Sprintf("%s/chunk_at_%d", tc.name, at), func(t *testing.T) {
					v := tc.m.Config().VocabSize
					mod := func(ids []int) []int {
						out := slices.Clone(ids)
						for j := range out {
							out[j] %= v
						}
						return out
					}
					alone, together := make([]*Cache, len(prompts)), make([]*Cache, len(prompts))
					for i, p := range prompts {
						for _, ss := range [][]*Cache{alone, together} {
							s, err := tc.m.NewCache(64)
							if err != nil {
								t.Fatal(err)
							}
							t.Cleanup(func() { s.Close() })
							if _, err := s.Prefill(context.Background(), mod(p)); err != nil {
								t.Fatal(err)
							}
							ss[i] = s
						}
					}
					b, err := tc.m.NewBatch(len(prompts))
					if err != nil {
						t.Fatal(err)
					}
					ids := make([][]int, len(prompts))
					for i := range ids {
						ids[i] = mod([]int{198 + i})
					}
					ids[at] = mod(chunk)
					got, err := b.Run(together, ids)
					if err != nil {
						t.Fatal(err)
					}
					for i, s := range alone {
						var want []float32
						if i == at {
							want, err = s.Prefill(context.Background(), ids[i])
						} else {
							want, err = s.Step(ids[i][0])
						}
						if err != nil {
							t.Fatal(err)
						}
						switch d := relDiff(got[i], want); {
						case i == at && !slices.Equal(got[i], want):
							t.Fatalf("cache %d's chunk of %d tokens: logits differ from Prefill's (max %.3g of the largest); they should be identical", i, len(ids[i]), d)
						case d > tol:
							t.Fatalf("cache %d's decoding token: logits %.3g of the largest away from Step's (tolerance %g)", i, d, tol)
						default:
							*worst = max(*worst, d)
						}
						if !slices.Equal(together[i].Tokens(), s.Tokens()) {
							t.Fatalf("cache %d holds %v, alone %v", i, together[i].Tokens(), s.Tokens())
						}
					}
					for step := range 2 { // the caches go on: the chunk's exactly, the others within tolerance
						ids := make([]int, len(prompts))
						for i := range ids {
							ids[i] = (264 + step + i) % v
						}
						got, wants := stepBoth(t, b, together, alone, ids)
						for i := range alone {
							want := wants[i]
							d := relDiff(got[i], want)
							if i == at && !slices.Equal(got[i], want) {
								t.Fatalf("step %d after the run, cache %d (the chunk's): logits differ from a cache prefilled alone (max %.3g); its keys and values should be Prefill's", step, i, d)
							}
							if d > tol {
								t.Fatalf("step %d after the run, cache %d: logits %.3g of the largest away (tolerance %g)", step, i, d, tol)
							}
							*worst = max(*worst, d)
						}
					}
				})
			}
		}
	})
	t.Logf("largest difference from running alone, of the largest logit: float types %.3g, block-quantized %.3g", worst, worstQ)
}

// TestBatchRunOfSingleTokensIsStep: a Run of one token per cache is a Batch's Step, bits and all.
func TestBatchRunOfSingleTokensIsStep(t *testing.T) {
	m := q4KMModel(t)
	var run, step []*Cache
	for i := range 5 {
		for _, ss := range []*[]*Cache{&run, &step} {
			s, err := m.NewCache(32)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Prefill(context.Background(), []int{7 + i, 9, 11 * i}); err != nil {
				t.Fatal(err)
			}
			*ss = append(*ss, s)
		}
	}
	b1, _ := m.NewBatch(5)
	b2, _ := m.NewBatch(5)
	ids := []int{3, 1, 4, 1, 5}
	got, err := b1.Run(run, [][]int{{3}, {1}, {4}, {1}, {5}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := b2.Step(step, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("cache %d: Run's logits differ from Step's (max %.3g)", i, maxAbsDiff(got[i], want[i]))
		}
	}
}

// TestBatchRunErrors: every misuse of Run is an error that names it, and leaves the caches as
// they were.
func TestBatchRunErrors(t *testing.T) {
	m := q4KMModel(t)
	newCache := func(maxLen int) *Cache {
		s, err := m.NewCache(maxLen)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Prefill(context.Background(), []int{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, full := newCache(200), newCache(4)
	b, _ := m.NewBatch(2)
	long := make([]int, 129)
	for _, tc := range []struct {
		caches []*Cache
		ids    [][]int
		says   string
	}{
		{[]*Cache{a}, [][]int{{1}, {2}}, "1 caches with 2 lists of ids"},
		{[]*Cache{a}, [][]int{{}}, "cache 0 has no ids to run"},
		{[]*Cache{a}, [][]int{long}, "129 tokens in one pass (at most 128)"},
		{[]*Cache{a, full}, [][]int{{1}, {2, 3}}, "cache 1"},
		{[]*Cache{a, a}, [][]int{{1}, {2}}, "cache 1 appears twice"},
		{[]*Cache{a, nil}, [][]int{{1}, {2}}, "cache 1 is nil"},
		{[]*Cache{a, full, a}, [][]int{{1}, {2}, {3}}, "3 caches (the batch takes 1..2)"},
		{[]*Cache{a}, [][]int{{1, -4}}, "cache 0"},
	} {
		_, err := b.Run(tc.caches, tc.ids)
		if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "qwen3: batch run: ") {
			t.Errorf("Run(%d caches, %v): %v, want an error saying %q", len(tc.caches), tc.ids, err, tc.says)
		}
	}
	if a.Len() != 3 || full.Len() != 3 {
		t.Errorf("after the errors the caches hold %d and %d tokens, want 3 and 3", a.Len(), full.Len())
	}
}
