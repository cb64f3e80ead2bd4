package gguf

import (
	"encoding/json"
	"errors"
	"fmt"
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
			return nil, fmt.Errorf("safetensors: %s: %w", index, err)
		}
		if len(idx.WeightMap) == 0 {
			return nil, fmt.Errorf("safetensors: %s: empty weight_map", index)
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
				return nil, fmt.Errorf("safetensors: %s: tensor %q: shard %q is not a plain file name", index, name, file)
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
				return nil, fmt.Errorf("safetensors: tensor %q is in both %s and %s", t.Name, other, file)
			}
			c.where[t.Name] = file
		}
	}
	for name, file := range weightMap {
		if c.where[name] != file {
			c.Close()
			return nil, fmt.Errorf("safetensors: %s: tensor %q should be in %s but is not", index, name, file)
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

// OpenModel opens either door: a directory as a Hugging Face checkpoint, a file as GGUF. It returns
// the weights under HF names, the configuration, and a function that releases the files.
func OpenModel(path string, opts ...Option) (TensorSource, Config, func() error, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, Config{}, nil, fmt.Errorf("gguf: %w", err)
	}
	if st.IsDir() {
		c, err := OpenCheckpoint(path, opts...)
		if err != nil {
			return nil, Config{}, nil, err
		}
		return c, c.Config, c.Close, nil
	}
	f, err := Open(path, opts...)
	if err != nil {
		return nil, Config{}, nil, err
	}
	cfg, err := ConfigFromGGUF(f)
	if err != nil {
		f.Close()
		return nil, Config{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return HFView(f), cfg, f.Close, nil
}
