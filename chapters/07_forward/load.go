package forward

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"gonum.org/v1/gonum/mat"
)

// Load reads a Qwen3 checkpoint through chapter 01's gguf.OpenModel: path is either a GGUF file or
// a Hugging Face directory (config.json + *.safetensors). Every tensor's shape is checked against
// the configuration before its data is read, and every weight is widened to float64.
//
// The LM head is tied (the embedding matrix, shared, not copied) when the configuration says
// tie_word_embeddings or when the file has no lm_head.weight: GGUF files of tied models carry no
// output.weight, and llama.cpp falls back to token_embd the same way. Qwen3-0.6B is tied; a
// Hugging Face directory may still store lm_head.weight, which is then ignored, as transformers
// ties it to the embedding at load time.
func Load(path string) (*Model, error) {
	src, cfg, closeFn, err := gguf.OpenModel(path)
	if err != nil {
		return nil, fmt.Errorf("forward: open %s: %w", path, err)
	}
	m, err := fromSource(src, cfg)
	if cerr := closeFn(); err == nil && cerr != nil {
		return nil, fmt.Errorf("forward: close %s: %w", path, cerr)
	}
	if err != nil {
		return nil, fmt.Errorf("forward: %s: %w", path, err)
	}
	return m, nil
}

// FromSource builds a Model from any chapter 01 TensorSource (Hugging Face names) and its
// configuration. See Load for the tied LM head.
func FromSource(src gguf.TensorSource, cfg gguf.Config) (*Model, error) {
	m, err := fromSource(src, cfg)
	if err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	return m, nil
}

func fromSource(src gguf.TensorSource, cfg gguf.Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	names := src.TensorNames()
	if err := checkLayerNames(names, cfg.NumHiddenLayers); err != nil {
		return nil, err
	}
	r := reader{src: src}
	h, v := cfg.HiddenSize, cfg.VocabSize
	embed := r.matrix("model.embed_tokens.weight", v, h)
	norm := r.vector("model.norm.weight", h)
	var head *mat.Dense // nil: tied
	if !cfg.TieWordEmbeddings && slices.Contains(names, "lm_head.weight") {
		head = r.matrix("lm_head.weight", v, h)
	}
	q, kv := cfg.NumAttentionHeads*cfg.HeadDim, cfg.NumKeyValueHeads*cfg.HeadDim
	layers := make([]Layer, cfg.NumHiddenLayers)
	for i := range layers {
		p := "model.layers." + strconv.Itoa(i) + "."
		l := &layers[i]
		l.InputNorm = r.vector(p+"input_layernorm.weight", h)
		l.Attn.Q = r.matrix(p+"self_attn.q_proj.weight", q, h)
		l.Attn.K = r.matrix(p+"self_attn.k_proj.weight", kv, h)
		l.Attn.V = r.matrix(p+"self_attn.v_proj.weight", kv, h)
		l.Attn.O = r.matrix(p+"self_attn.o_proj.weight", h, q)
		l.Attn.QNorm = r.vector(p+"self_attn.q_norm.weight", cfg.HeadDim)
		l.Attn.KNorm = r.vector(p+"self_attn.k_norm.weight", cfg.HeadDim)
		l.PostNorm = r.vector(p+"post_attention_layernorm.weight", h)
		l.MLP.Gate = r.matrix(p+"mlp.gate_proj.weight", cfg.IntermediateSize, h)
		l.MLP.Up = r.matrix(p+"mlp.up_proj.weight", cfg.IntermediateSize, h)
		l.MLP.Down = r.matrix(p+"mlp.down_proj.weight", h, cfg.IntermediateSize)
	}
	if r.err != nil {
		return nil, r.err
	}
	return newModel(cfg, embed, layers, norm, head)
}

// checkLayerNames rejects tensors of layers the configuration does not have: a file whose
// metadata says 3 layers but holds blk.5 is inconsistent, and silently ignoring weights hides it.
func checkLayerNames(names []string, layers int) error {
	for _, n := range names {
		rest, ok := strings.CutPrefix(n, "model.layers.")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		if i, err := strconv.Atoi(num); err == nil && i >= layers {
			return fmt.Errorf("tensor %q belongs to layer %d, but the config has num_hidden_layers %d", n, i, layers)
		}
	}
	return nil
}

// reader reads tensors and remembers the first error, so that FromSource reads like the list of
// weights it is.
type reader struct {
	src gguf.TensorSource
	err error
}

// values checks name's shape against want (numpy order) and only then reads its data, so that a
// wrong file fails before any large allocation.
func (r *reader) values(name string, want ...int) []float64 {
	if r.err != nil {
		return nil
	}
	shape, err := r.src.TensorShape(name)
	if err != nil {
		if errors.Is(err, gguf.ErrNotFound) {
			r.err = fmt.Errorf("tensor %q is missing: %w", name, err)
		} else {
			r.err = fmt.Errorf("tensor %q: %w", name, err)
		}
		return nil
	}
	if !slices.Equal(shape, want) {
		r.err = fmt.Errorf("tensor %q has shape %v, config wants %v", name, shape, want)
		return nil
	}
	data, err := r.src.TensorFloat64(name)
	if err != nil {
		r.err = fmt.Errorf("tensor %q: %w", name, err)
		return nil
	}
	n := 1
	for _, d := range want {
		n *= d
	}
	if len(data) != n {
		r.err = fmt.Errorf("tensor %q: read %d values, shape %v holds %d", name, len(data), want, n)
		return nil
	}
	return data
}

func (r *reader) matrix(name string, rows, cols int) *mat.Dense {
	data := r.values(name, rows, cols)
	if data == nil {
		return nil
	}
	return mat.NewDense(rows, cols, data)
}

func (r *reader) vector(name string, n int) []float64 { return r.values(name, n) }
