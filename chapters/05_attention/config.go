package attention

import (
	"errors"
	"fmt"

	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"gonum.org/v1/gonum/mat"
)

// Config is the shape of one attention layer. For Qwen3-0.6B: Hidden 1024, Heads 16, KVHeads 8,
// HeadDim 128 (not Hidden/Heads: queries are 2048 wide), Eps 1e-6, Theta 1e6.
type Config struct {
	Hidden  int     // width of the residual stream (hidden_size)
	Heads   int     // query heads (num_attention_heads)
	KVHeads int     // key/value heads (num_key_value_heads); Heads must be a multiple of it
	HeadDim int     // width of one head (head_dim)
	Eps     float64 // QK-norm epsilon (rms_norm_eps)
	Theta   float64 // RoPE base (rope_theta)
}

// Validate reports the first field of c that cannot describe an attention layer.
func (c Config) Validate() error {
	switch {
	case c.Hidden <= 0:
		return fmt.Errorf("attention: hidden size %d must be positive", c.Hidden)
	case c.Heads <= 0:
		return fmt.Errorf("attention: head count %d must be positive", c.Heads)
	case c.KVHeads <= 0 || c.Heads%c.KVHeads != 0:
		return fmt.Errorf("attention: %d key/value heads must be positive and divide %d query heads", c.KVHeads, c.Heads)
	case c.HeadDim <= 0 || c.HeadDim%2 != 0:
		return fmt.Errorf("attention: head_dim %d must be positive and even (RoPE turns pairs)", c.HeadDim)
	case !(c.Eps >= 0):
		return fmt.Errorf("attention: eps %v must be non-negative", c.Eps)
	case !(c.Theta > 0):
		return fmt.Errorf("attention: rope theta %v must be positive", c.Theta)
	}
	return nil
}

// Group returns Heads/KVHeads, the number of query heads that share one key/value head.
func (c Config) Group() int { return c.Heads / c.KVHeads }

// RoPE builds the rotary table for this layer's head_dim and theta, for positions 0 .. maxPos-1.
// One table serves every layer of a model.
func (c Config) RoPE(maxPos int) *rope.Table { return rope.NewTable(c.HeadDim, maxPos, c.Theta) }

// Weights are one layer's attention parameters in Hugging Face orientation [out][in]:
// a projection is y = x * W^T.
type Weights struct {
	Q *mat.Dense // q_proj: (Heads*HeadDim) x Hidden
	K *mat.Dense // k_proj: (KVHeads*HeadDim) x Hidden
	V *mat.Dense // v_proj: (KVHeads*HeadDim) x Hidden
	O *mat.Dense // o_proj: Hidden x (Heads*HeadDim)

	QNorm []float64 // q_norm: HeadDim values, shared by all query heads
	KNorm []float64 // k_norm: HeadDim values, shared by all key heads
}

// Check reports the first weight whose shape does not match c (weights come from files, so a
// wrong shape is an input error, not a programmer error).
func (w *Weights) Check(c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	for _, m := range []struct {
		name       string
		a          *mat.Dense
		rows, cols int
	}{
		{"q_proj", w.Q, q, c.Hidden},
		{"k_proj", w.K, kv, c.Hidden},
		{"v_proj", w.V, kv, c.Hidden},
		{"o_proj", w.O, c.Hidden, q},
	} {
		if m.a == nil {
			return fmt.Errorf("attention: %s is missing", m.name)
		}
		if r, cc := m.a.Dims(); r != m.rows || cc != m.cols {
			return fmt.Errorf("attention: %s is %dx%d, want %dx%d", m.name, r, cc, m.rows, m.cols)
		}
	}
	if len(w.QNorm) != c.HeadDim {
		return fmt.Errorf("attention: q_norm has %d values, want head_dim %d", len(w.QNorm), c.HeadDim)
	}
	if len(w.KNorm) != c.HeadDim {
		return fmt.Errorf("attention: k_norm has %d values, want head_dim %d", len(w.KNorm), c.HeadDim)
	}
	return nil
}

var errNilTable = errors.New("attention: nil RoPE table")
