package qwen3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// LoadOption changes how Load works. The zero configuration (no options) is the engine's
// default for everything.
type LoadOption func(*loadOptions)

type loadOptions struct {
	threads  int
	noMmap   bool
	noHuge   bool
	prefault bool
	progress func(done, total int64)
	kv       KVType
	exact    bool
}

// WithThreads sets how many goroutines split each matrix pass, the caller's included: 0 (the
// default) means runtime.GOMAXPROCS(0), the cores the Go runtime may use (since Go 1.25 it
// follows a container's CPU limit). More than four times that is cut to four times; a negative
// count makes Load fail.
func WithThreads(n int) LoadOption { return func(o *loadOptions) { o.threads = n } }

// WithoutMmap reads the file into the Go heap instead of mapping it (and so not into huge pages,
// see WithoutHugePages).
func WithoutMmap() LoadOption { return func(o *loadOptions) { o.noMmap = true } }

// WithoutHugePages keeps a GGUF file's weights in the mapped file (4 KB pages of the page cache,
// shared with other processes mapping it) instead of reading them into transparent huge pages (2
// MB on x86-64), which Load does by default on Linux when the kernel offers them and the file fits
// in half the memory available to the process. Huge pages make decoding faster (fewer TLB misses,
// prefetching over longer runs of physical memory) and cost the read of the whole file when
// loading and a private copy of it in memory.
func WithoutHugePages() LoadOption { return func(o *loadOptions) { o.noHuge = true } }

// WithPrefault touches every page of the weights while loading, so that the first token does not
// pay for reading the file, and reports progress (bytes done of total) to fn, which may be nil.
func WithPrefault(fn func(done, total int64)) LoadOption {
	return func(o *loadOptions) { o.prefault, o.progress = true, fn }
}

// WithKVCache sets the element type of the model's KV caches: KVAuto (the default: float32 for a
// cache of up to DefaultMaxContext tokens, float16 for a longer one and for Batch.NewCache's),
// KVFloat32 for every cache, or KVFloat16 for every cache (half the memory, for a rounding of
// each key and value to 11 significant bits; see the package documentation). Load fails for a
// KVType that is none of them.
func WithKVCache(t KVType) LoadOption { return func(o *loadOptions) { o.kv = t } }

// WithExactActivations keeps the inputs of the block-quantized matrices (Q8_0, Q4_0, Q4_K,
// Q6_K) in float32 instead of rounding them to int16 blocks for integer kernels, when decoding and
// in prompts: the engine then matches chapter 07 on the same (dequantized) weights within the
// float32 tolerance, at a cost in speed. Models without such matrices are not affected.
func WithExactActivations() LoadOption { return func(o *loadOptions) { o.exact = true } }

// Load opens a Qwen3 checkpoint: a GGUF file (llama.cpp's qwen3 layout) or a Hugging Face
// directory (config.json, model.safetensors or shards, tokenizer.json), telling which by itself.
// Weights stay in the file's precision. A GGUF file's are read into transparent huge pages where
// Linux offers them (WithoutHugePages: not), otherwise they stay in the mapped file (WithoutMmap:
// read into the Go heap); a Hugging Face directory's stay in its mapped files. A cancelled ctx
// stops the load between steps (the reading of the file into huge pages 64 MB at a time, the
// prefault, the tensors) and returns ctx's error, with everything opened so far released.
func Load(ctx context.Context, path string, opts ...LoadOption) (*Model, error) {
	o, err := newLoadOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
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
		m, err = loadHF(ctx, path, fileOpts)
	case gguf.KindGGUF:
		m, err = loadGGUF(ctx, path, fileOpts, !o.noMmap && !o.noHuge, o.progress)
	default:
		return nil, fmt.Errorf("qwen3: %s: %w (-model %s)", path, gguf.ErrSafetensorsFile, filepath.Dir(path))
	}
	if err != nil {
		return nil, err
	}
	if o.prefault && !m.huge { // weights read into huge pages are in memory already
		err = m.prefault(ctx, o.progress)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if m.release != nil {
			m.release()
		}
		return nil, err
	}
	m.start(o)
	return m, nil
}

// LoadGGUFBytes opens a GGUF file held in memory, such as a checkpoint embedded in a program with
// go:embed (the qwen3 command's built-in model); name is what errors call it. The weights are used
// where they are, not copied (F32 and 16-bit tensors at an odd address excepted), so data must not
// change while the Model is open. The options that say how a file is read (WithoutMmap,
// WithoutHugePages, WithPrefault) do not apply; a cancelled ctx stops it as it stops Load.
func LoadGGUFBytes(ctx context.Context, name string, data []byte, opts ...LoadOption) (*Model, error) {
	o, err := newLoadOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := gguf.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %s: %w", name, err)
	}
	f.Path = name
	m, err := buildGGUF(ctx, f)
	if err != nil {
		return nil, inPath(err, name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.start(o)
	return m, nil
}

// newLoadOptions applies opts to the defaults and checks them.
func newLoadOptions(opts []LoadOption) (loadOptions, error) {
	var o loadOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.threads < 0 {
		return o, fmt.Errorf("qwen3: WithThreads(%d): the count of threads must be 0 (all cores) or more", o.threads)
	}
	most := runtime.GOMAXPROCS(0)
	if o.threads == 0 {
		o.threads = most
	}
	// Each worker costs a goroutine and ~1 MB of scratch; more workers than cores only adds switching.
	o.threads = min(o.threads, 4*most)
	if err := o.kv.check(); err != nil {
		return o, err
	}
	return o, nil
}

// start applies the options that act after loading, and gives the model its worker pool and
// its engine.
func (m *Model) start(o loadOptions) {
	m.kv, m.exact = o.kv, o.exact
	m.pool = newPool(o.threads)
	m.eng = newEngine(m)
}

// loadGGUF opens a GGUF file: read into huge pages when huge is set and readHuge can (progress
// then follows the read), otherwise through chapter 01's Open (a mapping, or WithoutMmap's read).
func loadGGUF(ctx context.Context, path string, opts []gguf.Option, huge bool, progress func(done, total int64)) (*Model, error) {
	if huge {
		data, release, ok, err := readHuge(ctx, path, progress)
		if err != nil {
			return nil, err
		}
		if ok {
			f, err := gguf.Parse(data)
			if err != nil {
				// Open parses the same bytes and names the file in its error
				release()
				return loadGGUF(ctx, path, opts, false, progress)
			}
			f.Path = path
			m, err := buildGGUF(ctx, f)
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
	m, err := buildGGUF(ctx, f)
	if err != nil {
		f.Close()
		return nil, inPath(err, path)
	}
	m.release = f.Close
	return m, nil
}

func buildGGUF(ctx context.Context, f *gguf.File) (*Model, error) {
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
	m, err := build(ctx, cfg, gguf.HFView(f))
	if err != nil {
		return nil, err
	}
	m.tok, m.source = tok, "gguf"
	m.defaults = ggufDefaults(f, tok)
	return m, nil
}

func loadHF(ctx context.Context, dir string, opts []gguf.Option) (*Model, error) {
	ck, err := gguf.OpenCheckpoint(dir, opts...)
	if err != nil {
		return nil, err
	}
	m, err := buildHF(ctx, dir, ck)
	if err != nil {
		ck.Close()
		return nil, err
	}
	m.release = ck.Close
	return m, nil
}

func buildHF(ctx context.Context, dir string, ck *gguf.Checkpoint) (*Model, error) {
	cfg := ck.Config
	if cfg.ModelType != "qwen3" && !slices.Contains(cfg.Architectures, "Qwen3ForCausalLM") {
		return nil, fmt.Errorf("qwen3: %s: model_type %q, architectures %v: this engine runs only qwen3", dir, cfg.ModelType, cfg.Architectures)
	}
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", err)
	}
	m, err := build(ctx, cfg, ck)
	if err != nil {
		return nil, inPath(err, dir)
	}
	m.tok, m.source = tok, "safetensors"
	m.defaults, err = hfDefaults(filepath.Join(dir, "generation_config.json"), tok)
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
func build(ctx context.Context, cfg gguf.Config, src gguf.TensorSource) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := sizesOf(cfg)
	if err := checkAttention(c); err != nil {
		return nil, err
	}
	m := &Model{config: cfg, sizes: c, layers: make([]layer, c.Layers)}
	var err error
	mat := func(name string, rows, cols int) *matrix {
		if err == nil {
			err = ctx.Err() // a matrix widened to F32 takes a while
		}
		if err != nil {
			return nil
		}
		var w *matrix
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
	m.wtype = m.layers[0].q.Type
	return m, nil
}

// loadMatrix reads a 2-D weight as stored when the kernels read its type, widened to F32 otherwise.
func loadMatrix(src gguf.TensorSource, name string, rows, cols int) (*matrix, error) {
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
	return matrixFromFloats(name, rows, cols, v), nil
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

// prefault reads one byte of every page of the weights, reporting progress, until ctx is done.
func (m *Model) prefault(ctx context.Context, progress func(done, total int64)) error {
	var mats []*matrix
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
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := 0; i < len(w.raw); i += 4096 {
			sum += w.raw[i]
		}
		done += int64(len(w.raw))
		if progress != nil {
			progress(done, total)
		}
	}
	runtime.KeepAlive(sum)
	return nil
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
