package gguf

import "fmt"

// GGMLType is the element type of a tensor in a GGUF file (ggml's enum ggml_type).
//
// Plain types store one value per element. Block-quantized types store groups ("blocks") of
// BlockSize values in TypeSize bytes: a scale or two and small integers.
type GGMLType uint32

// The ggml types this package can dequantize. The numbers are fixed by the file format.
const (
	TypeF32  GGMLType = 0
	TypeF16  GGMLType = 1
	TypeQ4_0 GGMLType = 2
	TypeQ8_0 GGMLType = 8
	TypeQ4_K GGMLType = 12
	TypeQ6_K GGMLType = 14
	TypeF64  GGMLType = 28
	TypeBF16 GGMLType = 30
)

// Plain integer types: GGUF files rarely hold them, but safetensors dtypes map onto them
// (SafetensorsType), so that a tensor's stored type has one name whatever the file.
const (
	TypeI8  GGMLType = 24
	TypeI16 GGMLType = 25
	TypeI32 GGMLType = 26
	TypeI64 GGMLType = 27
)

// typeTraits is what the reader needs to know about a ggml type: its name and its block layout.
type typeTraits struct {
	name      string
	blockSize int64 // values per block (1 for plain types)
	typeSize  int64 // bytes per block
}

// traits lists every ggml type whose layout is known, so a file using, say, Q5_K still opens
// (its tensors can be located and copied) even though this package does not dequantize it.
// The table is a function, not a package variable, to keep the package free of mutable state.
func traits(t GGMLType) (typeTraits, bool) {
	const qk = 256 // values in a K-quant super-block
	switch t {
	case 0:
		return typeTraits{"F32", 1, 4}, true
	case 1:
		return typeTraits{"F16", 1, 2}, true
	case 2:
		return typeTraits{"Q4_0", 32, 18}, true
	case 3:
		return typeTraits{"Q4_1", 32, 20}, true
	case 6:
		return typeTraits{"Q5_0", 32, 22}, true
	case 7:
		return typeTraits{"Q5_1", 32, 24}, true
	case 8:
		return typeTraits{"Q8_0", 32, 34}, true
	case 9:
		return typeTraits{"Q8_1", 32, 36}, true
	case 10:
		return typeTraits{"Q2_K", qk, 84}, true
	case 11:
		return typeTraits{"Q3_K", qk, 110}, true
	case 12:
		return typeTraits{"Q4_K", qk, 144}, true
	case 13:
		return typeTraits{"Q5_K", qk, 176}, true
	case 14:
		return typeTraits{"Q6_K", qk, 210}, true
	case 15:
		return typeTraits{"Q8_K", qk, 292}, true
	case 24:
		return typeTraits{"I8", 1, 1}, true
	case 25:
		return typeTraits{"I16", 1, 2}, true
	case 26:
		return typeTraits{"I32", 1, 4}, true
	case 27:
		return typeTraits{"I64", 1, 8}, true
	case 28:
		return typeTraits{"F64", 1, 8}, true
	case 30:
		return typeTraits{"BF16", 1, 2}, true
	}
	return typeTraits{}, false
}

// String returns ggml's name for the type, e.g. "Q8_0", or "type(99)" for an unknown one.
func (t GGMLType) String() string {
	if tr, ok := traits(t); ok {
		return tr.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Known reports whether the reader knows the block layout of t.
func (t GGMLType) Known() bool { _, ok := traits(t); return ok }

// BlockSize is the number of values in one block (1 for F32, F16, BF16; 32 for Q8_0 and Q4_0;
// 256 for the K-quants). It is 0 for an unknown type.
func (t GGMLType) BlockSize() int64 { tr, _ := traits(t); return tr.blockSize }

// TypeSize is the number of bytes of one block (4 for F32, 34 for Q8_0, 144 for Q4_K, 210 for Q6_K).
// It is 0 for an unknown type.
func (t GGMLType) TypeSize() int64 { tr, _ := traits(t); return tr.typeSize }

// BytesPerWeight is TypeSize/BlockSize: F32 4, F16 and BF16 2, Q8_0 34/32 = 1.0625,
// Q4_0 18/32 = 0.5625, Q4_K 144/256 = 0.5625, Q6_K 210/256 = 0.8203125.
func (t GGMLType) BytesPerWeight() float64 {
	tr, ok := traits(t)
	if !ok {
		return 0
	}
	return float64(tr.typeSize) / float64(tr.blockSize)
}

// CanDequantize reports whether Dequantize supports t.
func (t GGMLType) CanDequantize() bool {
	switch t {
	case TypeF32, TypeF16, TypeBF16, TypeF64, TypeQ8_0, TypeQ4_0, TypeQ4_K, TypeQ6_K:
		return true
	}
	return false
}
