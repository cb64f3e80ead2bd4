package forward

import (
	"fmt"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	"gonum.org/v1/gonum/mat"
)

// Model is a whole Qwen3 decoder in float64, every weight in Hugging Face orientation [out][in].
// Build one with Load (from a file) or NewModel (from matrices); the fields are exported so that
// learners can inspect and, in tests, swap pieces, but a Model is not modified by its methods and
// is safe for concurrent use.
type Model struct {
	Config gguf.Config // sizes, eps, theta (validated)

	Embedding *mat.Dense // model.embed_tokens.weight: vocab x hidden; row id is token id's vector
	Layers    []Layer    // num_hidden_layers decoder layers, in order
	Norm      []float64  // model.norm.weight: the final RMSNorm, hidden values
	LMHead    *mat.Dense // lm_head.weight: vocab x hidden; the very same matrix as Embedding when Tied
	Tied      bool       // the LM head is the embedding matrix (Qwen3-0.6B, and every GGUF without output.weight)

	rot *rope.Table // cos/sin for positions 0 .. max_position_embeddings-1, shared by all layers
}

// Layer is one decoder layer's weights:
//
//	h   = x + Attention(RMSNorm(x, InputNorm))
//	out = h + MLP(RMSNorm(h, PostNorm))
type Layer struct {
	InputNorm []float64         // input_layernorm.weight: hidden values
	Attn      attention.Weights // self_attn.{q,k,v,o}_proj and q_norm, k_norm (chapter 05)
	PostNorm  []float64         // post_attention_layernorm.weight: hidden values
	MLP       mlp.Weights       // mlp.{gate,up,down}_proj (chapter 06)
}

// AttentionConfig is the chapter 05 view of the configuration: the shape of every attention layer.
func AttentionConfig(c gguf.Config) attention.Config {
	return attention.Config{
		Hidden: c.HiddenSize, Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads,
		HeadDim: c.HeadDim, Eps: c.RMSNormEps, Theta: c.RopeTheta,
	}
}

// Attention returns the shape of the model's attention layers (chapter 05's Config).
func (m *Model) Attention() attention.Config { return AttentionConfig(m.Config) }

// RoPE returns the rotary table shared by all layers, for positions 0 .. MaxPositionEmbeddings-1.
func (m *Model) RoPE() *rope.Table { return m.rot }

// MaxPositions is the context length: the largest number of tokens one sequence may hold
// (max_position_embeddings, 40960 for Qwen3-0.6B), at most maxTablePositions.
func (m *Model) MaxPositions() int { return min(m.Config.MaxPositionEmbeddings, maxTablePositions) }

// maxTablePositions bounds the precomputed RoPE table (cos and sin, 64 float64 each per position
// for head_dim 128: 1 KB a position, 128 MB at this bound), whatever context a file declares.
// Qwen3-0.6B needs 40,960.
const maxTablePositions = 1 << 17

// NewModel checks every weight against cfg and assembles a Model. head may be nil or embed itself
// for a tied LM head. It builds the RoPE table for cfg.MaxPositionEmbeddings positions. A shape
// that does not fit cfg is an error naming the weight, the expected and the actual shape.
func NewModel(cfg gguf.Config, embed *mat.Dense, layers []Layer, norm []float64, head *mat.Dense) (*Model, error) {
	m, err := newModel(cfg, embed, layers, norm, head)
	if err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	return m, nil
}

func newModel(cfg gguf.Config, embed *mat.Dense, layers []Layer, norm []float64, head *mat.Dense) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err // a *gguf.FormatError per bad field, each naming it
	}
	if len(layers) != cfg.NumHiddenLayers {
		return nil, fmt.Errorf("%d layers, config has num_hidden_layers %d", len(layers), cfg.NumHiddenLayers)
	}
	if err := checkMatrix(gguf.EmbedName, embed, cfg.VocabSize, cfg.HiddenSize); err != nil {
		return nil, err
	}
	if err := checkVector(gguf.NormName, norm, cfg.HiddenSize); err != nil {
		return nil, err
	}
	tied := head == nil || head == embed
	if tied {
		head = embed
	} else if err := checkMatrix(gguf.LMHeadName, head, cfg.VocabSize, cfg.HiddenSize); err != nil {
		return nil, err
	}
	ac := AttentionConfig(cfg)
	for i := range layers {
		l, n := &layers[i], gguf.Layer(i)
		if err := checkVector(n.InputNorm, l.InputNorm, cfg.HiddenSize); err != nil {
			return nil, err
		}
		if err := checkVector(n.PostNorm, l.PostNorm, cfg.HiddenSize); err != nil {
			return nil, err
		}
		if err := l.Attn.Check(ac); err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
		if err := l.MLP.Check(cfg.HiddenSize, cfg.IntermediateSize); err != nil {
			return nil, fmt.Errorf("layer %d: %w", i, err)
		}
	}
	return &Model{
		Config: cfg, Embedding: embed, Layers: layers, Norm: norm, LMHead: head, Tied: tied,
		rot: ac.RoPE(min(cfg.MaxPositionEmbeddings, maxTablePositions)),
	}, nil
}

func checkMatrix(name string, a *mat.Dense, rows, cols int) error {
	if a == nil {
		return fmt.Errorf("%s is missing", name)
	}
	if r, c := a.Dims(); r != rows || c != cols {
		return fmt.Errorf("tensor %q has shape [%d %d], config wants [%d %d]", name, r, c, rows, cols)
	}
	return nil
}

func checkVector(name string, v []float64, n int) error {
	if len(v) != n {
		return fmt.Errorf("tensor %q has shape [%d], config wants [%d]", name, len(v), n)
	}
	return nil
}
