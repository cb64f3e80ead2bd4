package forward

import (
	"errors"
	"fmt"
	"slices"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"gonum.org/v1/gonum/mat"
)

// Load reads a Qwen3 checkpoint through chapter 01's gguf.OpenModel: path is either a GGUF file or
// a Hugging Face directory (config.json + *.safetensors). Every tensor's shape is checked against
// the configuration before its data is read, and every weight is widened to float64.
//
// The LM head is tied (the embedding matrix, shared, not copied) when the configuration says
// tie_word_embeddings. GGUF files of tied models carry no output.weight, and chapter 01 reads
// exactly that as tie_word_embeddings (llama.cpp falls back to token_embd the same way).
// Qwen3-0.6B is tied; its Hugging Face directory still stores lm_head.weight, which is then
// ignored, as transformers ties it to the embedding at load time. An untied model uses its own
// lm_head.weight, and is an error without one.
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
		return nil, err // a *gguf.FormatError per bad field, each naming it
	}
	names := src.TensorNames()
	if err := checkLayerNames(names, cfg.NumHiddenLayers); err != nil {
		return nil, err
	}
	r := reader{src: src}
	h, v := cfg.HiddenSize, cfg.VocabSize
	embed := r.matrix(gguf.EmbedName, v, h)
	norm := r.vector(gguf.NormName, h)
	var head *mat.Dense // nil: tied
	if !cfg.TieWordEmbeddings {
		head = r.matrix(gguf.LMHeadName, v, h) // an untied model without its head is a broken file
	}
	q, kv := cfg.NumAttentionHeads*cfg.HeadDim, cfg.NumKeyValueHeads*cfg.HeadDim
	layers := make([]Layer, cfg.NumHiddenLayers)
	for i := range layers {
		n, l := gguf.Layer(i), &layers[i]
		l.InputNorm = r.vector(n.InputNorm, h)
		l.Attn.Q = r.matrix(n.Q, q, h)
		l.Attn.K = r.matrix(n.K, kv, h)
		l.Attn.V = r.matrix(n.V, kv, h)
		l.Attn.O = r.matrix(n.O, h, q)
		l.Attn.QNorm = r.vector(n.QNorm, cfg.HeadDim)
		l.Attn.KNorm = r.vector(n.KNorm, cfg.HeadDim)
		l.PostNorm = r.vector(n.PostNorm, h)
		l.MLP.Gate = r.matrix(n.Gate, cfg.IntermediateSize, h)
		l.MLP.Up = r.matrix(n.Up, cfg.IntermediateSize, h)
		l.MLP.Down = r.matrix(n.Down, h, cfg.IntermediateSize)
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
		if i, ok := gguf.LayerOf(n); ok && i >= layers {
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
