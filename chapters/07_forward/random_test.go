package forward

import (
	"math"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"gonum.org/v1/gonum/mat"
)

func randomConfig() gguf.Config {
	return gguf.Config{HiddenSize: 8, IntermediateSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2, NumKeyValueHeads: 1,
		HeadDim: 4, VocabSize: 5, MaxPositionEmbeddings: 16, RopeTheta: 1e6, RMSNormEps: 1e-6}
}

// TestRandom: the same seed gives the same model, another seed another one, the weights have the
// promised scale (variance 1/fan-in: the embedding's 5x8 entries have variance 1/8, measured
// within a factor 2 on 40 draws), the model runs, and bad or huge configurations are errors.
func TestRandom(t *testing.T) {
	a, err := Random(randomConfig(), 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Random(randomConfig(), 1)
	c, _ := Random(randomConfig(), 2)
	if !mat.Equal(a.Embedding, b.Embedding) || !mat.Equal(a.Layers[1].MLP.Down, b.Layers[1].MLP.Down) {
		t.Error("two models of the same seed differ")
	}
	if mat.Equal(a.Embedding, c.Embedding) {
		t.Error("seeds 1 and 2 give the same embedding")
	}
	var ss float64
	for _, v := range a.Embedding.RawMatrix().Data {
		ss += v * v
	}
	if v := ss / 40; v < 1.0/16 || v > 1.0/4 {
		t.Errorf("embedding variance %.3g, want about 1/8 (1/fan-in)", v)
	}
	logits, err := a.Forward([]int{1, 3, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range logits.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("logits %v", logits.RawMatrix().Data)
		}
	}
	if !a.Tied || a.LMHead != a.Embedding {
		t.Error("the random model's head is not tied to its embedding")
	}
	bad := randomConfig()
	bad.NumKeyValueHeads = 3
	if _, err := Random(bad, 1); err == nil || !strings.Contains(err.Error(), "num_key_value_heads") {
		t.Errorf("3 KV heads for 2 query heads: error %v", err)
	}
	if _, err := Random(gguf.Qwen3_0_6B(), 1); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a random Qwen3-0.6B: error %v, want one saying it is too large", err)
	}
}
