package plots

import (
	"fmt"

	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// GoldenAttentionLayer loads chapter 05's golden attention layer, the one its tests check against
// transformers (reference/golden/05_attention): the configuration (hidden 64, 4 query heads, 2
// KV heads of 32), the weights and the input x (7 tokens x 64).
func GoldenAttentionLayer() (attention.Config, *attention.Weights, *mat.Dense, error) {
	const ch = "05_attention"
	var m struct {
		Hidden, Heads int
		HeadDim       int `json:"head_dim"`
		KVHeads       int `json:"kv_heads"`
		Eps, Theta    float64
	}
	if err := reference.LoadJSON(ch, "meta", &m); err != nil {
		return attention.Config{}, nil, nil, fmt.Errorf("plots: golden attention layer: %w", err)
	}
	c := attention.Config{Hidden: m.Hidden, Heads: m.Heads, KVHeads: m.KVHeads, HeadDim: m.HeadDim, Eps: m.Eps, Theta: m.Theta}
	w := &attention.Weights{}
	for _, d := range []struct {
		name string
		dst  **mat.Dense
	}{{"q_proj.npy", &w.Q}, {"k_proj.npy", &w.K}, {"v_proj.npy", &w.V}, {"o_proj.npy", &w.O}} {
		a, err := reference.LoadDense(ch, d.name)
		if err != nil {
			return c, nil, nil, fmt.Errorf("plots: golden attention layer: %w", err)
		}
		*d.dst = a
	}
	for _, d := range []struct {
		name string
		dst  *[]float64
	}{{"q_norm.npy", &w.QNorm}, {"k_norm.npy", &w.KNorm}} {
		a, err := reference.LoadArray(ch, d.name)
		if err != nil {
			return c, nil, nil, fmt.Errorf("plots: golden attention layer: %w", err)
		}
		*d.dst = a.Data
	}
	if err := w.Check(c); err != nil {
		return c, nil, nil, fmt.Errorf("plots: golden attention layer: %w", err)
	}
	x, err := reference.LoadDense(ch, "x.npy")
	if err != nil {
		return c, nil, nil, fmt.Errorf("plots: golden attention layer: %w", err)
	}
	return c, w, x, nil
}
