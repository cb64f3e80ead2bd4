package gguf

import (
	"fmt"
	"slices"
)

// TensorSource is the one door through which later chapters get weights, whatever the file:
// names are Hugging Face names, shapes are in numpy order (slowest first), values are row-major.
// A GGUF file (through HFView) and a Hugging Face directory (a *Checkpoint) both implement it, and
// give identical values for the same weights.
type TensorSource interface {
	// TensorNames lists the available tensors, sorted.
	TensorNames() []string
	// TensorShape is the numpy-order shape of a tensor, e.g. [2048 1024] for q_proj of Qwen3-0.6B.
	TensorShape(name string) ([]int, error)
	// TensorFloat32 returns a tensor's values, dequantized, row-major.
	TensorFloat32(name string) ([]float32, error)
	// TensorFloat64 returns the same values widened to float64.
	TensorFloat64(name string) ([]float64, error)
}

// HFView presents a GGUF file under Hugging Face names. Tensors without an HF name are left out.
// Note that a GGUF file usually has no output.weight (the LM head is tied to the embedding), so
// the view has no lm_head.weight either; use model.embed_tokens.weight then.
func HFView(f *File) TensorSource { return hfView{f} }

type hfView struct{ f *File }

func (v hfView) TensorNames() []string {
	var names []string
	for _, t := range v.f.Tensors {
		if hf, ok := HFName(t.Name); ok {
			names = append(names, hf)
		}
	}
	slices.Sort(names)
	return names
}

func (v hfView) gguf(name string) (TensorInfo, error) {
	g, ok := GGUFName(name)
	if !ok {
		return TensorInfo{}, fmt.Errorf("gguf: %q is not a Qwen3 tensor name: %w", name, ErrNotFound)
	}
	t, ok := v.f.Tensor(g)
	if !ok {
		return TensorInfo{}, fmt.Errorf("gguf: tensor %q (GGUF %q): %w", name, g, ErrNotFound)
	}
	return t, nil
}

func (v hfView) TensorShape(name string) ([]int, error) {
	t, err := v.gguf(name)
	if err != nil {
		return nil, err
	}
	return t.Shape(), nil
}

func (v hfView) TensorFloat32(name string) ([]float32, error) {
	t, err := v.gguf(name)
	if err != nil {
		return nil, err
	}
	return v.f.TensorFloat32(t.Name)
}

func (v hfView) TensorFloat64(name string) ([]float64, error) {
	t, err := v.gguf(name)
	if err != nil {
		return nil, err
	}
	return v.f.TensorFloat64(t.Name)
}
