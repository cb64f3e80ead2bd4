package qwen3

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// The float16 KV cache (WithKVCache(KVFloat16)) rounds every key and value to 11 significant bits, half
// a unit in the last place being 2^-12 = 2.4e-4 of the value: the scores q·k and the value sums
// move by about that much of their size, and the logits follow. Its tolerances, relative to the
// largest logit, are measured on the build machine (AMD EPYC, AVX2 and generic kernels alike):
//
//   - the tiny model (trained on Go), as of 2026-11-27 (R3): 2.0e-3 decoding, 3.4e-5 for a
//     prefill's last position (Q8_0 weights: 8.5e-4 and 1.4e-4); kvF16TinyTol is 1.5 times the
//     largest (the model before it, R0, measured 2.8e-4 decoding; the random tiny model before
//     that, with more peaked attention, 2.2e-3);
//   - the random model over a 300-token context: 4.5e-4; kvF16Tol is 4.5 times that.
//
// Both are 100 to 2000 times the float32 cache's error (floatTol), and of the order of int16
// activations' (actTol): a learner who wants chapter 07's numbers keeps the F32 cache.
const (
	kvF16TinyTol = 3e-3
	kvF16Tol     = 2e-3
)

// longContextError runs a 300-token context through every attention path — prompt chunks of 128
// tokens (six query rows per item, keys in many blocks of 64, the online softmax rescaling as the
// maximum grows), then decoding at depth 290..299 (two query rows per item: in steps of 64 keys
// with a float32 cache at head_dim 64, in one step with a float16 one, see stepKeys) — and returns the
// largest difference from chapter 07's plain softmax over all positions, relative to the largest
// logit.
func longContextError(t *testing.T, m *Model, cfg gguf.Config, want func(pos, c int) float64) float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 5))
	ids := make([]int, 300)
	for i := range ids {
		ids[i] = r.IntN(cfg.VocabSize)
	}
	s, err := m.NewCache(len(ids))
	if err != nil {
		t.Fatal(err)
	}
	var worst, scale float64
	check := func(pos int, logits []float32) {
		for c, v := range logits {
			worst = math.Max(worst, math.Abs(float64(v)-want(pos, c)))
			scale = math.Max(scale, math.Abs(want(pos, c)))
		}
	}
	const prompt = 290
	logits, err := s.Prefill(t.Context(), ids[:prompt])
	if err != nil {
		t.Fatal(err)
	}
	check(prompt-1, logits)
	for i := prompt; i < len(ids); i++ {
		if logits, err = s.Step(ids[i]); err != nil {
			t.Fatal(err)
		}
		check(i, logits)
	}
	return worst / scale
}

// chapter07Logits returns chapter 07's logits for longContextError's 300 ids on m's weights.
func chapter07Logits(t *testing.T, m *Model, cfg gguf.Config) func(pos, c int) float64 {
	t.Helper()
	ref, err := forward.FromSource(newModelSource(m), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 5))
	ids := make([]int, 300)
	for i := range ids {
		ids[i] = r.IntN(cfg.VocabSize)
	}
	want, err := ref.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	return want.At
}

// TestLongContextMatchesChapter07: the float32 cache within DESIGN.md's float32 tolerance, and the
// float16 cache within its own (kvF16Tol), at every kernel level.
func TestLongContextMatchesChapter07(t *testing.T) {
	m, cfg := randomModel(t, 21, func(string, int) DType { return F32 })
	want := chapter07Logits(t, m, cfg)
	for _, kv := range []KVType{KVFloat32, KVFloat16} {
		mk := variant(m, kv, false)
		tol := floatTol
		if kv == KVFloat16 {
			tol = kvF16Tol
		}
		t.Run(kv.String()+" cache", func(t *testing.T) {
			eachLevel(t, func(t *testing.T) {
				e := longContextError(t, mk, cfg, want)
				if e > tol {
					t.Errorf("%v cache: logits differ from chapter 07 by %.3g of the largest (tolerance %g)", kv, e, tol)
				}
				t.Logf("%v cache: %.2g relative", kv, e)
			})
		})
	}
}

// TestF16CacheTiny: the tiny model, as stored and as Q8_0, with a float16 cache, decoding token by
// token and prefilling, against chapter 07 on the same weights (kvF16TinyTol).
func TestF16CacheTiny(t *testing.T) {
	base := loadTiny(t, reference.TinyGGUF())
	cfg, err := gguf.ReadConfig(reference.TinyHFDir() + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{785, 6722, 315, 9625, 374, 12095, 13, 576, 6722, 315}
	for _, dt := range []DType{base.WeightType(), Q8_0} {
		m := variant(convert(t, base, dt), KVFloat16, false)
		ref, err := forward.FromSource(newModelSource(m), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(dt.String(), func(t *testing.T) {
			eachLevel(t, func(t *testing.T) {
				steps, prefill := maxRelDiff(t, m, ids, ref)
				if steps > kvF16TinyTol || prefill > kvF16TinyTol {
					t.Errorf("F16 cache: logits differ from chapter 07 by %.3g (decoding), %.3g (prefill) of the largest (tolerance %g)", steps, prefill, kvF16TinyTol)
				}
				t.Logf("F16 cache, %v weights: relative error decoding %.2g, prefill %.2g", dt, steps, prefill)
			})
		})
	}
}

// TestAttentionNeedsLanes: a head_dim the attention tiles cannot cover is refused with an error
// when the model is built.
func TestAttentionNeedsLanes(t *testing.T) {
	m, cfg := randomModel(t, 1, func(string, int) DType { return F32 })
	cfg.HeadDim = 24
	if _, err := build(t.Context(), cfg, newModelSource(m)); err == nil || !strings.Contains(err.Error(), "head_dim 24") {
		t.Errorf("head_dim 24: %v, want an error naming it", err)
	}
}
