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
	"strings"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Option changes how Load works.
type Option func(*loadOptions)

type loadOptions struct {
	threads  int
	noMmap   bool
	noHuge   bool
	prefault bool
	progress func(done, total int64)
	kv       DType
	exact    bool
}

// WithThreads sets how many cores the engine uses (default: all of them, runtime.NumCPU).
func WithThreads(n int) Option { return func(o *loadOptions) { o.threads = n } }

// WithoutMmap reads the file into the Go heap instead of mapping it (and so not into huge pages,
// see WithoutHugePages).
func WithoutMmap() Option { return func(o *loadOptions) { o.noMmap = true } }

// WithoutHugePages keeps a GGUF file's weights in the mapped file (4 KB pages of the page cache,
// shared with other processes mapping it) instead of reading them into transparent huge pages (2
// MB on x86-64), which Load does by default on Linux when the kernel offers them and the file fits
// in half the memory available to the process. Huge pages make decoding faster (fewer TLB misses,
// prefetching over longer runs of physical memory; see the package documentation) and cost the
// read of the whole file when loading and a private copy of it in memory.
func WithoutHugePages() Option { return func(o *loadOptions) { o.noHuge = true } }

// WithPrefault touches every page of the weights while loading, so that the first token does not
// pay for reading the file, and reports progress (bytes done of total) to fn, which may be nil.
func WithPrefault(fn func(done, total int64)) Option {
	return func(o *loadOptions) { o.prefault, o.progress = true, fn }
}

// WithKVCache sets the element type of every session's KV cache: F32 (the default: attention
// sees the keys and values exactly as computed) or F16 (llama.cpp's default: half the memory, and
// half the bytes attention reads per token deep in a context, for a rounding of each key and
// value to 11 significant bits). The attention kernels read a float16 cache directly, widening
// each value as they load it. See the package documentation for the error and the speed.
func WithKVCache(t DType) Option { return func(o *loadOptions) { o.kv = t } }

// ParseKVCache reads a KV cache type by the name a command line gives it: "f32" or "f16", in any
// case.
func ParseKVCache(name string) (DType, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "f32":
		return F32, nil
	case "f16":
		return F16, nil
	}
	return 0, fmt.Errorf("qwen3: KV cache type %q: the engine keeps its cache in f32 or f16", name)
}

// WithExactActivations keeps the inputs of the block-quantized matrices (Q8_0, Q4_0, Q4_K,
// Q6_K) in float32 instead of rounding them to int16 blocks for integer kernels, when decoding and
// in prompts: the engine then matches chapter 07 on the same (dequantized) weights within the
// float32 tolerance, at a cost in speed (see the package documentation). Models without such
// matrices are not affected.
func WithExactActivations() Option { return func(o *loadOptions) { o.exact = true } }

// Load opens a Qwen3 checkpoint: a GGUF file (llama.cpp's qwen3 layout) or a Hugging Face
// directory (config.json, model.safetensors or shards, tokenizer.json), telling which by itself.
// Weights stay in the file's precision. A GGUF file's are read into transparent huge pages where
// Linux offers them (WithoutHugePages: not), otherwise they stay in the mapped file (WithoutMmap:
// read into the Go heap); a Hugging Face directory's stay in its mapped files.
func Load(path string, opts ...Option) (*Model, error) {
	o, err := newLoadOptions(opts)
	if err != nil {
		return nil, err
	}
	var fileOpts []gguf.Option
	if o.noMmap {
		fileOpts = append(fileOpts, gguf.WithoutMmap())
	}
	kind, err := gguf.DetectKind(path)
	if err != nil {
		return nil, err
	}
	var m *Model
	switch kind {
	case gguf.KindHFDir:
		m, err = loadHF(path, fileOpts)
	case gguf.KindGGUF:
		m, err = loadGGUF(path, fileOpts, !o.noMmap && !o.noHuge, o.progress)
	default:
		return nil, fmt.Errorf("qwen3: %s: %w (-model %s)", path, gguf.ErrSafetensorsFile, filepath.Dir(path))
	}
	if err != nil {
		return nil, err
	}
	if o.prefault && !m.huge { // weights read into huge pages are in memory already
		m.prefault(o.progress)
	}
	m.start(o)
	return m, nil
}

// LoadGGUFBytes opens a GGUF file held in memory, such as a checkpoint embedded in a program with
// go:embed (the qwen3 command's built-in model); name is what errors call it. The weights are used
// where they are, not copied (F32 and 16-bit tensors at an odd address excepted), so data must not
// change while the Model is open. The options that say how a file is read (WithoutMmap,
// WithoutHugePages, WithPrefault) do not apply.
func LoadGGUFBytes(name string, data []byte, opts ...Option) (*Model, error) {
	o, err := newLoadOptions(opts)
	if err != nil {
		return nil, err
	}
	f, err := gguf.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %s: %w", name, err)
	}
	f.Path = name
	m, err := buildGGUF(f)
	if err != nil {
		return nil, inPath(err, name)
	}
	m.start(o)
	return m, nil
}

// newLoadOptions applies opts to the defaults and checks them.
func newLoadOptions(opts []Option) (loadOptions, error) {
	o := loadOptions{threads: runtime.NumCPU()}
	for _, opt := range opts {
		opt(&o)
	}
	// Each worker costs a goroutine and ~1 MB of scratch per session; more workers than cores
	// only adds switching.
	o.threads = max(1, min(o.threads, 4*runtime.NumCPU()))
	if o.kv != F32 && o.kv != F16 {
		return o, fmt.Errorf("qwen3: a KV cache of %v: the engine keeps its cache in F32 or F16", o.kv)
	}
	return o, nil
}

// start applies the options that act after loading and starts the worker pool.
func (m *Model) start(o loadOptions) {
	m.kv, m.exact = o.kv, o.exact
	m.pool = newPool(o.threads)
}

// loadGGUF opens a GGUF file: read into huge pages when huge is set and readHuge can (progress
// then follows the read), otherwise through chapter 01's Open (a mapping, or WithoutMmap's read).
func loadGGUF(path string, opts []gguf.Option, huge bool, progress func(done, total int64)) (*Model, error) {
	if huge {
		data, release, ok, err := readHuge(path, progress)
		if err != nil {
			return nil, err
		}
		if ok {
			f, err := gguf.Parse(data)
			if err != nil {
				// Open parses the same bytes and names the file in its error
				release()
				return loadGGUF(path, opts, false, progress)
			}
			f.Path = path
			m, err := buildGGUF(f)
			if err != nil {
				release()
				return nil, inPath(err, path)
			}
			m.release, m.huge = release, true
			return m, nil
		}
	}
	f, err := gguf.Open(path, opts...)
	if err != nil {
		return nil, err
	}
	m, err := buildGGUF(f)
	if err != nil {
		f.Close()
		return nil, inPath(err, path)
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
		return nil, err
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	m, err := build(cfg, gguf.HFView(f))
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
	m, err := build(cfg, ck)
	if err != nil {
		return nil, inPath(err, dir)
	}
	m.Tokenizer, m.Source = tok, "safetensors"
	m.Defaults, err = hfDefaults(filepath.Join(dir, "generation_config.json"), tok)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// inPath adds the model's path to an error that does not name its file yet.
func inPath(err error, path string) error {
	if fe := (*gguf.FormatError)(nil); errors.As(err, &fe) && fe.File != "" {
		return err
	}
	return fmt.Errorf("%w (in %s)", err, path)
}

// build collects every weight under its Hugging Face name through chapter 01's TensorSource, the
// same door chapter 07 uses, and checks its shape against the config.
func build(cfg gguf.Config, src gguf.TensorSource) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := sizesOf(cfg)
	m := &Model{Config: cfg, sizes: c, layers: make([]layer, c.Layers)}
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
		var v []float32
		v, err = loadVector(src, name, n)
		return v
	}
	m.embed = mat(gguf.EmbedName, c.Vocab, c.Hidden)
	for i := range m.layers {
		n, l := gguf.Layer(i), &m.layers[i]
		l.attnNorm = vec(n.InputNorm, c.Hidden)
		l.ffnNorm = vec(n.PostNorm, c.Hidden)
		l.qNorm = vec(n.QNorm, c.HeadDim)
		l.kNorm = vec(n.KNorm, c.HeadDim)
		l.q = mat(n.Q, c.qDim(), c.Hidden)
		l.k = mat(n.K, c.kvDim(), c.Hidden)
		l.v = mat(n.V, c.kvDim(), c.Hidden)
		l.o = mat(n.O, c.Hidden, c.qDim())
		l.gate = mat(n.Gate, c.Intermediate, c.Hidden)
		l.up = mat(n.Up, c.Intermediate, c.Hidden)
		l.down = mat(n.Down, c.Hidden, c.Intermediate)
	}
	m.norm = vec(gguf.NormName, c.Hidden)
	// The LM head: Qwen3-0.6B ties it to the embedding. A GGUF file then has no output.weight
	// (which chapter 01 reads as tie_word_embeddings); an HF file may still store lm_head.weight
	// (a copy), which is ignored, as transformers does.
	m.tied = cfg.TieWordEmbeddings
	if m.tied {
		m.head = m.embed
	} else {
		m.head = mat(gguf.LMHeadName, c.Vocab, c.Hidden)
	}
	if err != nil {
		return nil, err
	}
	m.Type = m.layers[0].q.Type
	return m, nil
}

// loadMatrix reads a 2-D weight as stored when the kernels read its type, widened to F32 otherwise.
func loadMatrix(src gguf.TensorSource, name string, rows, cols int) (*Matrix, error) {
	r, err := src.TensorRaw(name)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	if len(r.Shape) != 2 || r.Shape[0] != rows || r.Shape[1] != cols {
		return nil, fmt.Errorf("qwen3: tensor %q has shape %v, the config needs [%d %d]", name, r.Shape, rows, cols)
	}
	if t, ok := dtypeOf(r.Type); ok { // the storage types the kernels read: matrix.go's table
		return newMatrix(name, t, rows, cols, r.Data)
	}
	v, err := r.Float32()
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return matrixFromFloats(rows, cols, v), nil
}

// loadVector reads a 1-D weight (a norm) as float32.
func loadVector(src gguf.TensorSource, name string, n int) ([]float32, error) {
	r, err := src.TensorRaw(name)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	if len(r.Shape) != 1 || r.Shape[0] != n {
		return nil, fmt.Errorf("qwen3: tensor %q has shape %v, the config needs [%d]", name, r.Shape, n)
	}
	v, err := r.Float32()
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	return v, nil
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

// --- sampling defaults ------------------------------------------------------------------------

// ggufDefaults reads general.sampling.* (written by recent llama.cpp converters from
// generation_config.json) and the end-of-turn tokens.
func ggufDefaults(f *gguf.File, tok *tokenizer.Tokenizer) Defaults {
	var d Defaults
	if v, err := f.Decimal("general.sampling.temp"); err == nil {
		d.Temperature = v
	}
	if v, err := f.Int("general.sampling.top_k"); err == nil && v > 0 {
		d.TopK = min(v, tok.VocabSize()) // a larger top_k keeps everything anyway
	}
	if v, err := f.Decimal("general.sampling.top_p"); err == nil {
		d.TopP = v
	}
	if v, err := f.Decimal("general.sampling.min_p"); err == nil {
		d.MinP = v
	}
	if v, err := f.Int("tokenizer.ggml.eos_token_id"); err == nil {
		d.Stop = append(d.Stop, v)
	}
	d.Stop = addStops(d.Stop, tok)
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
