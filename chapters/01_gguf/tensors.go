package gguf

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// MaxDims is the largest number of dimensions a ggml tensor can have.
const MaxDims = 4

// TensorInfo is one entry of the tensor table: where a tensor's bytes are and how to read them.
type TensorInfo struct {
	Name string
	// Dims are ggml's ne[0], ne[1], ...: the FASTEST-varying dimension first. A weight matrix
	// with 2048 rows of 1024 values (numpy shape [2048, 1024]) has Dims [1024, 2048].
	Dims []uint64
	Type GGMLType
	// Offset is where the tensor's bytes start, relative to the start of the data section.
	Offset uint64
	// InfoOffset is the byte of the file where this tensor-info record starts (for messages).
	InfoOffset int64
}

// Shape returns the dimensions in numpy / PyTorch / Hugging Face order, slowest first:
// Dims reversed. For blk.0.attn_q.weight of Qwen3-0.6B, Dims is [1024 2048] and Shape is [2048 1024].
func (t TensorInfo) Shape() []int {
	s := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		s[len(t.Dims)-1-i] = int(d)
	}
	return s
}

// NumElements is the product of the dims (1 for a tensor with no dims).
func (t TensorInfo) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= int64(d)
	}
	return n
}

// NumBytes is the size of the tensor's data: NumElements / BlockSize * TypeSize.
func (t TensorInfo) NumBytes() int64 {
	bs := t.Type.BlockSize()
	if bs == 0 {
		return 0
	}
	return t.NumElements() / bs * t.Type.TypeSize()
}

// readTensorInfo reads one record: string name, u32 n_dims, u64 dims[n_dims], u32 type, u64 offset.
// It checks everything a single record can get wrong: too many dims, a dims product that
// overflows, an unknown type, and a first dimension that is not a whole number of blocks.
func (d *decoder) readTensorInfo(i int64) (TensorInfo, error) {
	start := d.off
	name, err := d.str(fmt.Sprintf("tensor_info[%d].name", i))
	if err != nil {
		return TensorInfo{}, err
	}
	field := fmt.Sprintf("tensor %q", name)
	nd, err := d.u32(field + " n_dims")
	if err != nil {
		return TensorInfo{}, err
	}
	if nd > MaxDims {
		return TensorInfo{}, formatErr(field+" n_dims", d.off-4, "%d dimensions, at most %d allowed", nd, MaxDims)
	}
	t := TensorInfo{Name: name, Dims: make([]uint64, nd), InfoOffset: start}
	n := uint64(1)
	for j := range t.Dims {
		at := d.off
		if t.Dims[j], err = d.u64(fmt.Sprintf("%s dims[%d]", field, j)); err != nil {
			return TensorInfo{}, err
		}
		hi, lo := bits.Mul64(n, t.Dims[j])
		if hi != 0 || lo > math.MaxInt64 {
			return TensorInfo{}, formatErr(fmt.Sprintf("%s dims[%d]", field, j), at, "the product of dims %v overflows 63 bits", t.Dims[:j+1])
		}
		n = lo
	}
	at := d.off
	typ, err := d.u32(field + " type")
	if err != nil {
		return TensorInfo{}, err
	}
	t.Type = GGMLType(typ)
	tr, ok := traits(t.Type)
	if !ok {
		return TensorInfo{}, formatErr(field+" type", at, "unknown ggml type %d", typ)
	}
	// Blocks never straddle rows: the row length ne0 must be a whole number of blocks.
	// (A tensor with no dims is one value, which is not a whole block of a block type.)
	if nd == 0 && tr.blockSize > 1 {
		return TensorInfo{}, formatErr(field, start, "a %s tensor needs at least one dimension", tr.name)
	}
	if nd > 0 && t.Dims[0]%uint64(tr.blockSize) != 0 {
		return TensorInfo{}, formatErr(field, start, "first dimension %d is not a multiple of the %s block size %d",
			t.Dims[0], tr.name, tr.blockSize)
	}
	if hi, lo := bits.Mul64(n/uint64(tr.blockSize), uint64(tr.typeSize)); hi != 0 || lo > math.MaxInt64 {
		return TensorInfo{}, formatErr(field, start, "byte size of %d %s values overflows", n, tr.name)
	}
	if t.Offset, err = d.u64(field + " offset"); err != nil {
		return TensorInfo{}, err
	}
	return t, nil
}

// checkLayout verifies that every tensor's bytes are aligned, lie inside the file and do not
// overlap another tensor's. dataOffset is where the data section starts, size the file size.
func checkLayout(tensors []TensorInfo, dataOffset, size int64, alignment uint64) error {
	type span struct {
		begin, end, info int64
		name             string
	}
	spans := make([]span, 0, len(tensors))
	for _, t := range tensors {
		if t.Offset%alignment != 0 {
			return formatErr(fmt.Sprintf("tensor %q", t.Name), t.InfoOffset, "offset %d is not a multiple of the alignment %d",
				t.Offset, alignment)
		}
		if t.Offset > uint64(size) {
			return formatErr(fmt.Sprintf("tensor %q", t.Name), t.InfoOffset, "data starts at byte %d+%d, beyond the file's %d",
				dataOffset, t.Offset, size)
		}
		begin := dataOffset + int64(t.Offset)
		nb := t.NumBytes()
		if begin > size || nb > size-begin {
			return formatErr(fmt.Sprintf("tensor %q", t.Name), t.InfoOffset, "data ends at byte %d, beyond the file's %d", begin+nb, size)
		}
		spans = append(spans, span{begin, begin + nb, t.InfoOffset, t.Name})
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.begin != b.begin {
			return cmp.Compare(a.begin, b.begin)
		}
		return cmp.Compare(a.end, b.end)
	})
	for i := 1; i < len(spans); i++ {
		p, q := spans[i-1], spans[i]
		if q.begin < p.end {
			return formatErr(fmt.Sprintf("tensor %q", q.name), q.info, "data at bytes %d..%d overlaps tensor %q (bytes %d..%d)",
				q.begin, q.end, p.name, p.begin, p.end)
		}
	}
	return nil
}
