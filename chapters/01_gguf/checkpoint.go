package gguf

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Checkpoint is a Hugging Face model directory: config.json plus either one model.safetensors or
// several shards listed in model.safetensors.index.json ({"weight_map": {tensor name: file name}}).
// It implements TensorSource with the HF names.
type Checkpoint struct {
	Dir    string
	Config Config
	shards map[string]*Safetensors // by file name
	where  map[string]string       // tensor name -> file name
}

// OpenCheckpoint opens a Hugging Face directory. Every shard is parsed and validated (and mapped);
// a tensor listed in the index must be in the shard the index names, and no tensor may appear in
// two shards.
func OpenCheckpoint(dir string, opts ...Option) (*Checkpoint, error) {
	cfg, err := ReadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Dir: dir, Config: cfg, shards: map[string]*Safetensors{}, where: map[string]string{}}
	index := filepath.Join(dir, "model.safetensors.index.json")
	var weightMap map[string]string
	switch b, err := os.ReadFile(index); {
	case err == nil:
		var idx struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if err := json.Unmarshal(b, &idx); err != nil {
			return nil, &FormatError{Format: "safetensors index", File: index, Field: "JSON", Offset: -1, Msg: "does not parse", Err: err}
		}
		if len(idx.WeightMap) == 0 {
			return nil, &FormatError{Format: "safetensors index", File: index, Field: "weight_map", Offset: keyOffset(b, "weight_map"), Msg: "is empty"}
		}
		weightMap = idx.WeightMap
	case errors.Is(err, fs.ErrNotExist):
		// Single file.
	default:
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	files := []string{"model.safetensors"}
	if weightMap != nil {
		files = files[:0]
		for name, file := range weightMap {
			if file != filepath.Base(file) || file == "." || file == ".." || strings.ContainsAny(file, `/\`) {
				return nil, &FormatError{Format: "safetensors index", File: index, Field: fmt.Sprintf("weight_map[%q]", name),
					Offset: -1, Msg: fmt.Sprintf("shard %q is not a plain file name", file)}
			}
			if !slices.Contains(files, file) {
				files = append(files, file)
			}
		}
		slices.Sort(files)
	}
	for _, file := range files {
		s, err := OpenSafetensors(filepath.Join(dir, file), opts...)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.shards[file] = s
		for _, t := range s.Tensors {
			if other, dup := c.where[t.Name]; dup {
				c.Close()
				return nil, &FormatError{Format: "safetensors", File: filepath.Join(dir, file), Field: fmt.Sprintf("tensor %q", t.Name),
					Offset: -1, Msg: fmt.Sprintf("is also in %s", other)}
			}
			c.where[t.Name] = file
		}
	}
	for name, file := range weightMap {
		if c.where[name] != file {
			c.Close()
			return nil, &FormatError{Format: "safetensors index", File: index, Field: fmt.Sprintf("weight_map[%q]", name),
				Offset: -1, Msg: fmt.Sprintf("says the tensor is in %s, but it is not", file)}
		}
	}
	return c, nil
}

// Close releases every shard.
func (c *Checkpoint) Close() error {
	var errs []error
	for _, s := range c.shards {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// TensorNames lists the tensors of all shards, sorted.
func (c *Checkpoint) TensorNames() []string {
	names := make([]string, 0, len(c.where))
	for n := range c.where {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (c *Checkpoint) shard(name string) (*Safetensors, error) {
	file, ok := c.where[name]
	if !ok {
		return nil, fmt.Errorf("safetensors: tensor %q: %w", name, ErrNotFound)
	}
	return c.shards[file], nil
}

// Tensor returns the header entry of a tensor.
func (c *Checkpoint) Tensor(name string) (STTensor, bool) {
	s, err := c.shard(name)
	if err != nil {
		return STTensor{}, false
	}
	return s.Tensor(name)
}

// TensorShape is the tensor's shape as stored (numpy order).
func (c *Checkpoint) TensorShape(name string) ([]int, error) {
	t, ok := c.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("safetensors: tensor %q: %w", name, ErrNotFound)
	}
	return slices.Clone(t.Shape), nil
}

// TensorData returns a tensor's raw bytes from whichever shard holds it, without copying.
func (c *Checkpoint) TensorData(name string) ([]byte, error) {
	s, err := c.shard(name)
	if err != nil {
		return nil, err
	}
	return s.TensorData(name)
}

// TensorRaw returns a tensor as stored (see Safetensors.TensorRaw).
func (c *Checkpoint) TensorRaw(name string) (RawTensor, error) {
	s, err := c.shard(name)
	if err != nil {
		return RawTensor{}, err
	}
	return s.TensorRaw(name)
}

// TensorFloat32 returns the tensor's values as float32.
func (c *Checkpoint) TensorFloat32(name string) ([]float32, error) {
	s, err := c.shard(name)
	if err != nil {
		return nil, err
	}
	return s.TensorFloat32(name)
}

// TensorFloat64 returns the tensor's values as float64.
func (c *Checkpoint) TensorFloat64(name string) ([]float64, error) {
	s, err := c.shard(name)
	if err != nil {
		return nil, err
	}
	return s.TensorFloat64(name)
}

// Kind is what a model path holds.
type Kind int

// The three kinds of model path.
const (
	KindGGUF        Kind = iota + 1 // a GGUF file: weights, configuration and tokenizer in one
	KindSafetensors                 // a .safetensors file: weights only
	KindHFDir                       // a Hugging Face directory: config.json, *.safetensors, tokenizer.json
)

func (k Kind) String() string {
	switch k {
	case KindGGUF:
		return "GGUF file"
	case KindSafetensors:
		return "safetensors file"
	case KindHFDir:
		return "Hugging Face directory"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// DetectKind tells the kind of path by looking at it: a directory, a file starting with "GGUF", or
// a file starting with a plausible safetensors header (a little-endian length, then '{').
func DetectKind(path string) (Kind, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("gguf: %w", err)
	}
	if st.IsDir() {
		return KindHFDir, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("gguf: %w", err)
	}
	defer f.Close()
	var head [9]byte
	n, _ := io.ReadFull(f, head[:])
	switch {
	case n >= 4 && string(head[:4]) == Magic:
		return KindGGUF, nil
	case n == 9 && head[8] == '{' && binary.LittleEndian.Uint64(head[:]) <= uint64(st.Size()-8):
		return KindSafetensors, nil
	}
	e := formatErr("header.magic", 0, "found %q: neither a GGUF file (\"GGUF\") nor a safetensors file (a header length, then '{')", head[:min(n, 4)])
	e.File = path
	return 0, e
}

// ErrSafetensorsFile is returned, wrapped, for a lone .safetensors file where a whole model is
// needed: it holds the weights but not the configuration or the tokenizer.
var ErrSafetensorsFile = errors.New("a safetensors file holds only the weights: pass the directory that holds it with config.json and tokenizer.json")

// OpenModel opens either door: a Hugging Face directory or a GGUF file. It returns the weights under
// HF names, the configuration, and a function that releases the files. A lone .safetensors file is
// refused with ErrSafetensorsFile, naming its directory.
func OpenModel(path string, opts ...Option) (TensorSource, Config, func() error, error) {
	kind, err := DetectKind(path)
	if err != nil {
		return nil, Config{}, nil, err
	}
	switch kind {
	case KindHFDir:
		c, err := OpenCheckpoint(path, opts...)
		if err != nil {
			return nil, Config{}, nil, err
		}
		return c, c.Config, c.Close, nil
	case KindSafetensors:
		return nil, Config{}, nil, fmt.Errorf("gguf: %s: %w (here: %s)", path, ErrSafetensorsFile, filepath.Dir(path))
	}
	f, err := Open(path, opts...)
	if err != nil {
		return nil, Config{}, nil, err
	}
	cfg, err := ConfigFromGGUF(f)
	if err != nil {
		f.Close()
		return nil, Config{}, nil, err
	}
	return HFView(f), cfg, f.Close, nil
}
