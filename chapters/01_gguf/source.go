package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// TensorSource is the one door through which later chapters and the qwen3 engine get weights,
// whatever the file: names are Hugging Face names, shapes are in numpy order (slowest first),
// values are row-major. A GGUF file (through HFView) and a Hugging Face directory (a *Checkpoint)
// both implement it, and give identical values for the same weights.
type TensorSource interface {
	// TensorNames lists the available tensors, sorted.
	TensorNames() []string
	// TensorShape is the numpy-order shape of a tensor, e.g. [2048 1024] for q_proj of Qwen3-0.6B.
	TensorShape(name string) ([]int, error)
	// TensorRaw returns a tensor as stored: shape, element type and bytes, not decoded and not
	// copied. A fast engine keeps BF16 or Q8_0 weights this way and decodes them in its kernels.
	TensorRaw(name string) (RawTensor, error)
	// TensorFloat32 returns a tensor's values, dequantized, row-major.
	TensorFloat32(name string) ([]float32, error)
	// TensorFloat64 returns the same values widened to float64.
	TensorFloat64(name string) ([]float64, error)
}

// RawTensor is one tensor as its file stores it. Type names the element encoding in ggml's terms
// for both file kinds (a safetensors "BF16" is TypeBF16, see SafetensorsType). Data is a slice of
// the file's bytes (usually memory-mapped): read-only, and invalid once the file is closed.
type RawTensor struct {
	Name  string
	Shape []int // numpy order, slowest first
	Type  GGMLType
	Data  []byte
}

// NumElements is the product of the shape.
func (t RawTensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= int64(d)
	}
	return n
}

// Float32 decodes the tensor to float32 with Dequantize.
func (t RawTensor) Float32() ([]float32, error) {
	out := make([]float32, t.NumElements())
	if err := Dequantize(out, t.Type, t.Data); err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	return out, nil
}

// Float64 decodes the tensor to float64: F64 exactly, every other type through Float32 (exact too,
// since every float32 is a float64).
func (t RawTensor) Float64() ([]float64, error) {
	if t.Type == TypeF64 {
		if int64(len(t.Data)) != 8*t.NumElements() {
			return nil, fmt.Errorf("tensor %q: %d F64 values need %d bytes, got %d", t.Name, t.NumElements(), 8*t.NumElements(), len(t.Data))
		}
		out := make([]float64, t.NumElements())
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:]))
		}
		return out, nil
	}
	x, err := t.Float32()
	if err != nil {
		return nil, err
	}
	return widen(x), nil
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

func (v hfView) TensorRaw(name string) (RawTensor, error) {
	t, err := v.gguf(name)
	if err != nil {
		return RawTensor{}, err
	}
	data, err := v.f.TensorData(t.Name)
	if err != nil {
		return RawTensor{}, err
	}
	return RawTensor{Name: name, Shape: t.Shape(), Type: t.Type, Data: data}, nil
}

func (v hfView) TensorFloat32(name string) ([]float32, error) {
	r, err := v.TensorRaw(name)
	if err != nil {
		return nil, err
	}
	return r.Float32()
}

func (v hfView) TensorFloat64(name string) ([]float64, error) {
	r, err := v.TensorRaw(name)
	if err != nil {
		return nil, err
	}
	return r.Float64()
}
