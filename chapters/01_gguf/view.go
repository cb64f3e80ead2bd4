package gguf

import (
	"fmt"
	"unsafe"
)

// littleEndianHost reports whether this machine stores integers little-endian, as GGUF files do.
func littleEndianHost() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// Float32View returns an F32 tensor's values as a []float32 that aliases the file's bytes: no copy
// and no allocation. It is what alignment buys: the data section and every tensor offset are
// multiples of the alignment, and a mapping starts on a page boundary, so the first float is
// 4-byte aligned. It fails for other types, on big-endian machines, and if the bytes happen not to
// be aligned (possible with WithoutMmap or Parse on an arbitrary slice). The slice is read-only
// (writing to a read-only mapping crashes the program) and invalid after Close.
func (f *File) Float32View(name string) ([]float32, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("gguf: tensor %q: %w", name, ErrNotFound)
	}
	if t.Type != TypeF32 {
		return nil, fmt.Errorf("gguf: tensor %q: Float32View needs F32 data, the tensor is %v", name, t.Type)
	}
	if !littleEndianHost() {
		return nil, fmt.Errorf("gguf: tensor %q: Float32View needs a little-endian machine", name)
	}
	raw, err := f.TensorData(name)
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return []float32{}, nil
	}
	if uintptr(unsafe.Pointer(&raw[0]))%4 != 0 {
		return nil, fmt.Errorf("gguf: tensor %q: data at byte %d is not 4-byte aligned in memory", name, f.DataOffset+int64(t.Offset))
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), len(raw)/4), nil
}
