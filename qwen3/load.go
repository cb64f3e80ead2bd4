package qwen3

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Option changes how Load works.
type Option func(*loadOptions)

type loadOptions struct {
	threads  int
	noMmap   bool
	prefault bool
	progress func(done, total int64)
}

// WithThreads sets how many cores the engine uses (default: all of them, runtime.NumCPU).
func WithThreads(n int) Option { return func(o *loadOptions) { o.threads = n } }

// WithoutMmap reads the file into memory instead of mapping it.
func WithoutMmap() Option { return func(o *loadOptions) { o.noMmap = true } }

// WithPrefault touches every page of the weights while loading, so that the first token does not
// pay for reading the file, and reports progress (bytes done of total) to fn, which may be nil.
func WithPrefault(fn func(done, total int64)) Option {
	return func(o *loadOptions) { o.prefault, o.progress = true, fn }
}

// Load opens a Qwen3 checkpoint: a GGUF file (llama.cpp's qwen3 layout) or a Hugging Face
// directory (config.json, model.safetensors or shards, tokenizer.json), telling which by itself.
// Weights stay in the file's precision and, unless WithoutMmap, in the mapped file.
func Load(path string, opts ...Option) (*Model, error) {
	o := loadOptions{threads: runtime.NumCPU()}
	for _, opt := range opts {
		opt(&o)
	}
	// Each worker costs a goroutine and ~1 MB of scratch per session; more workers than cores
	// only adds switching.
	o.threads = max(1, min(o.threads, 4*runtime.NumCPU()))
	var fileOpts []gguf.Option
	if o.noMmap {
		fileOpts = append(fileOpts, gguf.WithoutMmap())
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	var m *Model
	if st.IsDir() {
		m, err = loadHF(path, fileOpts)
	} else {
		m, err = loadGGUF(path, fileOpts)
	}
	if err != nil {
		return nil, err
	}
	if o.prefault {
		m.prefault(o.progress)
	}
	m.pool = newPool(o.threads)
	return m, nil
}

// tensorSource is what building the weights needs from either file kind, under Hugging Face names.
type tensorSource interface {
	// matrix returns a 2-D tensor's numpy shape, storage type and raw bytes; ok is false when the
	// kernels cannot read the stored type, and the caller widens it to float32 instead.
	matrix(name string) (shape []int, t DType, raw []byte, ok bool, err error)
	floats(name string) (shape []int, v []float32, err error)
	has(name string) bool
}

func loadGGUF(path string, opts []gguf.Option) (*Model, error) {
	f, err := gguf.Open(path, opts...)
	if err != nil {
		return nil, err
	}
	m, err := buildGGUF(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	m.release = f.Close
	return m, nil
}

func buildGGUF(f *gguf.File) (*Model, error) {
	arch, err := f.String("general.architecture")
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	if arch != "qwen3" {
		return nil, fmt.Errorf("qwen3: general.architecture is %q, this engine runs only qwen3", arch)
	}
	cfg, err := gguf.ConfigFromGGUF(f)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	m, err := build(fromConfig(cfg), ggufSource{f}, cfg.TieWordEmbeddings)
	if err != nil {
		return nil, err
	}
	m.Tokenizer, m.Source = tok, "gguf"
	m.Defaults = ggufDefaults(f, tok)
	return m, nil
}

func loadHF(dir string, opts []gguf.Option) (*Model, error) {
	ck, err := gguf.OpenCheckpoint(dir, opts...)
	if err != nil {
		return nil, err
	}
	m, err := buildHF(dir, ck)
	if err != nil {
		ck.Close()
		return nil, err
	}
	m.release = ck.Close
	return m, nil
}

func buildHF(dir string, ck *gguf.Checkpoint) (*Model, error) {
	cfg := ck.Config
	if cfg.ModelType != "qwen3" && !slices.Contains(cfg.Architectures, "Qwen3ForCausalLM") {
		return nil, fmt.Errorf("qwen3: %s: model_type %q, architectures %v: this engine runs only qwen3", dir, cfg.ModelType, cfg.Architectures)
	}
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	m, err := build(fromConfig(cfg), hfSource{ck}, cfg.TieWordEmbeddings)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, dir)
	}
	m.Tokenizer, m.Source = tok, "safetensors"
	m.Defaults, err = hfDefaults(filepath.Join(dir, "generation_config.json"), tok)
	if err != nil {
		return nil, err
	}
	return m, nil
}

func fromConfig(c gguf.Config) Config {
	return Config{
		Hidden: c.HiddenSize, Intermediate: c.IntermediateSize, Layers: c.NumHiddenLayers,
		Heads: c.NumAttentionHeads, KVHeads: c.NumKeyValueHeads, HeadDim: c.HeadDim,
		Vocab: c.VocabSize, MaxContext: c.MaxPositionEmbeddings, Theta: c.RopeTheta, Eps: c.RMSNormEps,
	}
}

// build collects every weight under its Hugging Face name and checks its shape against the config.
func build(c Config, src tensorSource, tied bool) (*Model, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	m := &Model{Config: c, layers: make([]layer, c.Layers)}
	var err error
	mat := func(name string, rows, cols int) *Matrix {
		if err != nil {
			return nil
		}
		var w *Matrix
		w, err = loadMatrix(src, name, rows, cols)
		return w
	}
	vec := func(name string, n int) []float32 {
		if err != nil {
			return nil
		}
		var shape []int
		var v []float32
		if shape, v, err = src.floats(name); err == nil && (len(shape) != 1 || shape[0] != n) {
			err = fmt.Errorf("qwen3: tensor %q has shape %v, the config needs [%d]", name, shape, n)
		}
		return v
	}
	m.embed = mat("model.embed_tokens.weight", c.Vocab, c.Hidden)
	for i := range m.layers {
		p := fmt.Sprintf("model.layers.%d.", i)
		l := &m.layers[i]
		l.attnNorm = vec(p+"input_layernorm.weight", c.Hidden)
		l.ffnNorm = vec(p+"post_attention_layernorm.weight", c.Hidden)
		l.qNorm = vec(p+"self_attn.q_norm.weight", c.HeadDim)
		l.kNorm = vec(p+"self_attn.k_norm.weight", c.HeadDim)
		l.q = mat(p+"self_attn.q_proj.weight", c.qDim(), c.Hidden)
		l.k = mat(p+"self_attn.k_proj.weight", c.kvDim(), c.Hidden)
		l.v = mat(p+"self_attn.v_proj.weight", c.kvDim(), c.Hidden)
		l.o = mat(p+"self_attn.o_proj.weight", c.Hidden, c.qDim())
		l.gate = mat(p+"mlp.gate_proj.weight", c.Intermediate, c.Hidden)
		l.up = mat(p+"mlp.up_proj.weight", c.Intermediate, c.Hidden)
		l.down = mat(p+"mlp.down_proj.weight", c.Hidden, c.Intermediate)
	}
	m.norm = vec("model.norm.weight", c.Hidden)
	if err != nil {
		return nil, err
	}
	// The LM head: Qwen3-0.6B ties it to the embedding. A GGUF file then has no output.weight; an
	// HF file may still store lm_head.weight (a copy), which is ignored when tie_word_embeddings.
	m.tied = tied || !src.has("lm_head.weight")
	if m.tied {
		m.head = m.embed
	} else if m.head = mat("lm_head.weight", c.Vocab, c.Hidden); err != nil {
		return nil, err
	}
	m.Type = m.layers[0].q.Type
	return m, nil
}

func loadMatrix(src tensorSource, name string, rows, cols int) (*Matrix, error) {
	shape, t, raw, ok, err := src.matrix(name)
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] != rows || shape[1] != cols {
		return nil, fmt.Errorf("qwen3: tensor %q has shape %v, the config needs [%d %d]", name, shape, rows, cols)
	}
	if ok {
		return newMatrix(name, t, rows, cols, raw)
	}
	_, v, err := src.floats(name)
	if err != nil {
		return nil, err
	}
	return matrixFromFloats(rows, cols, v), nil
}

// prefault reads one byte of every page of the weights, reporting progress.
func (m *Model) prefault(progress func(done, total int64)) {
	var mats []*Matrix
	for _, l := range m.layers {
		mats = append(mats, l.q, l.k, l.v, l.o, l.gate, l.up, l.down)
	}
	mats = append(mats, m.embed)
	if !m.tied {
		mats = append(mats, m.head)
	}
	var total, done int64
	for _, w := range mats {
		total += int64(len(w.raw))
	}
	var sum byte
	for _, w := range mats {
		for i := 0; i < len(w.raw); i += 4096 {
			sum += w.raw[i]
		}
		done += int64(len(w.raw))
		if progress != nil {
			progress(done, total)
		}
	}
	runtime.KeepAlive(sum)
}

// --- GGUF ---------------------------------------------------------------------------------------

type ggufSource struct{ f *gguf.File }

func (s ggufSource) info(name string) (gguf.TensorInfo, error) {
	g, ok := gguf.GGUFName(name)
	if !ok {
		return gguf.TensorInfo{}, fmt.Errorf("qwen3: %q has no GGUF name", name)
	}
	t, ok := s.f.Tensor(g)
	if !ok {
		return gguf.TensorInfo{}, fmt.Errorf("qwen3: tensor %q (%s) is missing from the GGUF file", g, name)
	}
	return t, nil
}

func (s ggufSource) has(name string) bool { _, err := s.info(name); return err == nil }

func (s ggufSource) matrix(name string) ([]int, DType, []byte, bool, error) {
	t, err := s.info(name)
	if err != nil {
		return nil, 0, nil, false, err
	}
	dt, ok := dtypeOf(t.Type)
	if !ok {
		return t.Shape(), 0, nil, false, nil
	}
	raw, err := s.f.TensorData(t.Name)
	if err != nil {
		return nil, 0, nil, false, err
	}
	return t.Shape(), dt, raw, true, nil
}

func (s ggufSource) floats(name string) ([]int, []float32, error) {
	t, err := s.info(name)
	if err != nil {
		return nil, nil, err
	}
	v, err := s.f.TensorFloat32(t.Name)
	return t.Shape(), v, err
}

// ggufDefaults reads general.sampling.* (written by recent llama.cpp converters from
// generation_config.json) and the end-of-turn tokens.
func ggufDefaults(f *gguf.File, tok *tokenizer.Tokenizer) Defaults {
	var d Defaults
	if v, err := f.Float32("general.sampling.temp"); err == nil {
		d.Temperature = decimal(v)
	}
	if v, err := f.Int("general.sampling.top_k"); err == nil && v > 0 {
		d.TopK = min(v, tok.VocabSize()) // a larger top_k keeps everything anyway
	}
	if v, err := f.Float32("general.sampling.top_p"); err == nil {
		d.TopP = decimal(v)
	}
	if v, err := f.Float32("general.sampling.min_p"); err == nil {
		d.MinP = decimal(v)
	}
	if v, err := f.Int("tokenizer.ggml.eos_token_id"); err == nil {
		d.Stop = append(d.Stop, v)
	}
	d.Stop = addStops(d.Stop, tok)
	return d
}

// decimal widens a float32 metadata value to the float64 of its shortest decimal form, so that
// temperature 0.6 stored as float32 reads back as 0.6, not 0.6000000238418579.
func decimal(v float32) float64 {
	d, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
	return d
}

// addStops makes sure both of Qwen3's end tokens stop generation: <|im_end|> ends a chat turn,
// <|endoftext|> ends a document.
func addStops(stop []int, tok *tokenizer.Tokenizer) []int {
	for _, s := range []string{"<|im_end|>", "<|endoftext|>"} {
		if id, ok := tok.TokenID(s); ok && !slices.Contains(stop, id) {
			stop = append(stop, id)
		}
	}
	return stop
}

// --- Hugging Face directory ---------------------------------------------------------------------

type hfSource struct{ ck *gguf.Checkpoint }

func (s hfSource) has(name string) bool { _, ok := s.ck.Tensor(name); return ok }

func (s hfSource) matrix(name string) ([]int, DType, []byte, bool, error) {
	t, ok := s.ck.Tensor(name)
	if !ok {
		return nil, 0, nil, false, fmt.Errorf("qwen3: tensor %q is missing from the checkpoint", name)
	}
	dt, ok := dtypeNamed(t.DType)
	if !ok || dt.quantized() { // safetensors stores no GGUF block types
		return t.Shape, 0, nil, false, nil
	}
	raw, err := s.ck.TensorData(name)
	if err != nil {
		return nil, 0, nil, false, err
	}
	return t.Shape, dt, raw, true, nil
}

func (s hfSource) floats(name string) ([]int, []float32, error) {
	t, ok := s.ck.Tensor(name)
	if !ok {
		return nil, nil, fmt.Errorf("qwen3: tensor %q is missing from the checkpoint", name)
	}
	v, err := s.ck.TensorFloat32(name)
	return t.Shape, v, err
}

// hfDefaults reads generation_config.json; a directory without one gets only the stop tokens.
func hfDefaults(path string, tok *tokenizer.Tokenizer) (Defaults, error) {
	var d Defaults
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		d.Stop = addStops(nil, tok)
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("qwen3: %w", err)
	}
	var g struct {
		Temperature *float64        `json:"temperature"`
		TopK        *int            `json:"top_k"`
		TopP        *float64        `json:"top_p"`
		MinP        *float64        `json:"min_p"`
		EOS         json.RawMessage `json:"eos_token_id"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		return d, fmt.Errorf("qwen3: %s: %w", path, err)
	}
	if g.Temperature != nil {
		d.Temperature = *g.Temperature
	}
	if g.TopK != nil {
		d.TopK = *g.TopK
	}
	if g.TopP != nil {
		d.TopP = *g.TopP
	}
	if g.MinP != nil {
		d.MinP = *g.MinP
	}
	if len(g.EOS) > 0 {
		var one int
		var many []int
		switch {
		case json.Unmarshal(g.EOS, &one) == nil:
			d.Stop = []int{one}
		case json.Unmarshal(g.EOS, &many) == nil:
			d.Stop = many
		default:
			return d, fmt.Errorf("qwen3: %s: eos_token_id %s is neither a number nor a list", path, g.EOS)
		}
	}
	d.Stop = addStops(d.Stop, tok)
	return d, nil
}
