package forward

import (
	"fmt"
	"math"
	"math/rand/v2"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	"gonum.org/v1/gonum/mat"
)

// Random builds a model of configuration cfg with random weights, the same for the same seed on
// every machine: every matrix entry drawn from a normal distribution of variance 1/fan-in (the
// number of inputs a row sums over, so that a layer keeps its input's scale), every norm weight
// 1, the head tied. It is for examples and tests that need a model small enough to follow by hand
// (a vocabulary of 5, hidden 8) and must not depend on a checkpoint. Its text means nothing.
// cfg must pass Validate, and the model must be small: at most 1<<24 weights.
func Random(cfg gguf.Config, seed uint64) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	if n := gguf.CountParams(cfg).Total(); n > 1<<24 {
		return nil, fmt.Errorf("forward: a random model of %d weights is too large (at most %d)", n, 1<<24)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	random := func(rows, cols int) *mat.Dense {
		d := make([]float64, rows*cols)
		for i := range d {
			d[i] = rng.NormFloat64() / math.Sqrt(float64(cols))
		}
		return mat.NewDense(rows, cols, d)
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		for i := range o {
			o[i] = 1
		}
		return o
	}
	h, q, kv := cfg.HiddenSize, cfg.NumAttentionHeads*cfg.HeadDim, cfg.NumKeyValueHeads*cfg.HeadDim
	embed := random(cfg.VocabSize, h)
	layers := make([]Layer, cfg.NumHiddenLayers)
	for i := range layers {
		layers[i] = Layer{
			InputNorm: ones(h), PostNorm: ones(h),
			Attn: attention.Weights{Q: random(q, h), K: random(kv, h), V: random(kv, h), O: random(h, q),
				QNorm: ones(cfg.HeadDim), KNorm: ones(cfg.HeadDim)},
			MLP: mlp.Weights{Gate: random(cfg.IntermediateSize, h), Up: random(cfg.IntermediateSize, h),
				Down: random(h, cfg.IntermediateSize)},
		}
	}
	cfg.TieWordEmbeddings = true
	return NewModel(cfg, embed, layers, ones(h), nil)
}
