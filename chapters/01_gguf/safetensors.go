package gguf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// MaxSafetensorsHeader is the largest JSON header accepted (100 MB, the limit of the reference
// safetensors implementation).
const MaxSafetensorsHeader = 100_000_000

// STTensor is one entry of a safetensors header.
type STTensor struct {
	Name  string
	DType string // "F32", "F16", "BF16", ...
	Shape []int  // numpy order, slowest first
	// Begin and End are the tensor's byte range [Begin, End) relative to the data buffer, which
	// starts right after the header (at byte 8+header length of the file).
	Begin, End int64
}

// Safetensors is one parsed .safetensors file.
//
// Layout: u64 little-endian header length N, N bytes of JSON, then the data buffer. The JSON maps
// each tensor name to {"dtype", "shape", "data_offsets": [begin, end)}; an optional "__metadata__"
// maps strings to strings. Tensors are row-major and little-endian, packed with no holes.
type Safetensors struct {
	// Path is the file's path as given to OpenSafetensors ("" for ParseSafetensors).
	Path     string
	Metadata map[string]string
	Tensors  []STTensor // sorted by Begin
	// DataOffset is where the data buffer starts in the file: 8 + header length.
	DataOffset int64
	Size       int64

	data    []byte
	release func() error
	index   map[string]int
}

// dtypeSize gives the bytes per element of the safetensors dtypes; F32, F16 and BF16 (and F64)
// can be converted to floats, the others are only located.
func dtypeSize(dt string) (int64, bool) {
	switch dt {
	case "F64", "I64", "U64":
		return 8, true
	case "F32", "I32", "U32":
		return 4, true
	case "F16", "BF16", "I16", "U16":
		return 2, true
	case "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2":
		return 1, true
	}
	return 0, false
}

// OpenSafetensors opens and parses one .safetensors file, memory-mapped like Open.
func OpenSafetensors(path string, opts ...Option) (*Safetensors, error) {
	var o options
	for _, fn := range opts {
		fn(&o)
	}
	b, release, err := load(path, o)
	if err != nil {
		return nil, err
	}
	s, err := ParseSafetensors(b)
	if err != nil {
		_ = release()
		return nil, inFile(err, path)
	}
	s.Path = path
	s.release = release
	return s, nil
}

// Close releases the file's mapping.
func (s *Safetensors) Close() error {
	if s.release == nil {
		return nil
	}
	err := s.release()
	s.release, s.data = nil, nil
	return err
}

type stEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// ParseSafetensors parses a safetensors file held in memory, without copying the data.
//
// It rejects: a header length past the end of the file or above 100 MB; JSON that does not parse;
// unknown dtypes; negative dims; a byte range that does not match dtype size * product(shape);
// and any hole or overlap between tensors, or bytes left over at the end of the buffer.
func ParseSafetensors(b []byte) (*Safetensors, error) {
	size := int64(len(b))
	if size < 8 {
		e := stErr("header length", 0, "needs 8 bytes, the file has %d", size)
		e.Err = ErrTruncated
		return nil, e
	}
	n := binary.LittleEndian.Uint64(b)
	if n > MaxSafetensorsHeader {
		return nil, stErr("header length", 0, "%d bytes exceeds the %d-byte limit", n, MaxSafetensorsHeader)
	}
	if n > uint64(size-8) {
		e := stErr("header length", 0, "%d bytes of JSON would end at byte %d, beyond the file's %d", n, 8+n, size)
		e.Err = ErrTruncated
		return nil, e
	}
	s := &Safetensors{DataOffset: 8 + int64(n), Size: size, data: b}
	header := b[8 : 8+n]

	var raw map[string]json.RawMessage
	if err := json.Unmarshal(header, &raw); err != nil {
		e := stErr("header JSON", 8, "does not parse")
		var se *json.SyntaxError
		if errors.As(err, &se) {
			e.Offset = 8 + max(se.Offset-1, 0) // Offset counts the bytes read, including the offending one
		}
		e.Err = err
		return nil, e
	}
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &s.Metadata); err != nil {
			e := stErr("__metadata__", int64(entryOffset(header, "__metadata__")), "must map strings to strings")
			e.Err = err
			return nil, e
		}
		delete(raw, "__metadata__")
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names) // deterministic error messages
	bufLen := size - s.DataOffset
	for _, name := range names {
		var e stEntry
		dec := json.NewDecoder(bytes.NewReader(raw[name]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			e := stErr(fmt.Sprintf("tensor %q", name), int64(entryOffset(header, name)), "bad header entry")
			e.Err = err
			return nil, e
		}
		t, err := checkEntry(name, e, s.DataOffset, bufLen)
		if err != nil {
			return nil, stErr(fmt.Sprintf("tensor %q", name), int64(entryOffset(header, name)), "%s", err)
		}
		s.Tensors = append(s.Tensors, t)
	}
	// Sort by position, then demand that the ranges tile the buffer exactly.
	slices.SortFunc(s.Tensors, func(a, b STTensor) int {
		if a.Begin != b.Begin {
			return cmp.Compare(a.Begin, b.Begin)
		}
		return cmp.Compare(a.End, b.End)
	})
	var at int64
	prev := "the start of the data buffer"
	for _, t := range s.Tensors {
		switch {
		case t.Begin > at:
			return nil, stErr(fmt.Sprintf("tensor %q", t.Name), int64(entryOffset(header, t.Name)),
				"data starts at byte %d, leaving a hole of %d bytes after %s (ends at byte %d)", s.DataOffset+t.Begin, t.Begin-at, prev, s.DataOffset+at)
		case t.Begin < at:
			return nil, stErr(fmt.Sprintf("tensor %q", t.Name), int64(entryOffset(header, t.Name)),
				"data at bytes %d..%d overlaps %s (ends at byte %d)", s.DataOffset+t.Begin, s.DataOffset+t.End, prev, s.DataOffset+at)
		}
		at, prev = t.End, fmt.Sprintf("tensor %q", t.Name)
	}
	if at != bufLen {
		return nil, stErr("data buffer", s.DataOffset+at, "the tensors end here, but the file has %d more bytes up to byte %d", bufLen-at, size)
	}
	s.index = make(map[string]int, len(s.Tensors))
	for i, t := range s.Tensors {
		s.index[t.Name] = i
	}
	return s, nil
}

// checkEntry validates one header entry against the buffer of bufLen bytes starting at dataOffset.
func checkEntry(name string, e stEntry, dataOffset, bufLen int64) (STTensor, error) {
	es, ok := dtypeSize(e.DType)
	if !ok {
		return STTensor{}, fmt.Errorf("unknown dtype %q", e.DType)
	}
	if len(e.DataOffsets) != 2 {
		return STTensor{}, fmt.Errorf("data_offsets must be [begin, end], found %v", e.DataOffsets)
	}
	begin, end := e.DataOffsets[0], e.DataOffsets[1]
	if begin < 0 || end < begin {
		return STTensor{}, fmt.Errorf("data_offsets [%d, %d] are not an increasing range", begin, end)
	}
	if end > bufLen {
		return STTensor{}, fmt.Errorf("data ends at byte %d, beyond the file's %d", dataOffset+end, dataOffset+bufLen)
	}
	nbytes := uint64(es)
	shape := make([]int, len(e.Shape))
	for i, d := range e.Shape {
		if d < 0 {
			return STTensor{}, fmt.Errorf("shape %v has a negative dimension", e.Shape)
		}
		hi, lo := bits.Mul64(nbytes, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return STTensor{}, fmt.Errorf("shape %v: byte size overflows", e.Shape)
		}
		nbytes, shape[i] = lo, int(d)
	}
	if int64(nbytes) != end-begin {
		return STTensor{}, fmt.Errorf("%s %v needs %d bytes, but data_offsets [%d, %d] (bytes %d..%d of the file) hold %d",
			e.DType, e.Shape, nbytes, begin, end, dataOffset+begin, dataOffset+end, end-begin)
	}
	return STTensor{Name: name, DType: e.DType, Shape: shape, Begin: begin, End: end}, nil
}

// Tensor returns the header entry of a tensor.
func (s *Safetensors) Tensor(name string) (STTensor, bool) {
	i, ok := s.index[name]
	if !ok {
		return STTensor{}, false
	}
	return s.Tensors[i], true
}

// TensorData returns a tensor's raw bytes without copying.
func (s *Safetensors) TensorData(name string) ([]byte, error) {
	t, ok := s.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("safetensors: tensor %q: %w", name, ErrNotFound)
	}
	if s.data == nil {
		return nil, fmt.Errorf("safetensors: tensor %q: file is closed", name)
	}
	return s.data[s.DataOffset+t.Begin : s.DataOffset+t.End : s.DataOffset+t.End], nil
}

// TensorRaw returns a tensor as stored: its shape, its dtype as a ggml type (see SafetensorsType)
// and its bytes, without copying.
func (s *Safetensors) TensorRaw(name string) (RawTensor, error) {
	t, ok := s.Tensor(name)
	if !ok {
		return RawTensor{}, fmt.Errorf("safetensors: tensor %q: %w", name, ErrNotFound)
	}
	typ, ok := SafetensorsType(t.DType)
	if !ok {
		return RawTensor{}, fmt.Errorf("safetensors: tensor %q: dtype %s has no ggml equivalent", name, t.DType)
	}
	raw, err := s.TensorData(name)
	if err != nil {
		return RawTensor{}, err
	}
	return RawTensor{Name: name, Shape: slices.Clone(t.Shape), Type: typ, Data: raw}, nil
}

// TensorFloat32 converts an F32, F16, BF16 or F64 tensor to float32, row-major.
func (s *Safetensors) TensorFloat32(name string) ([]float32, error) {
	r, err := s.TensorRaw(name)
	if err != nil {
		return nil, err
	}
	return r.Float32()
}

// TensorFloat64 is TensorFloat32 widened to float64; F64 tensors are read exactly.
func (s *Safetensors) TensorFloat64(name string) ([]float64, error) {
	r, err := s.TensorRaw(name)
	if err != nil {
		return nil, err
	}
	return r.Float64()
}

// SafetensorsType maps a safetensors dtype to the ggml type with the same element encoding:
// F64, F32, F16, BF16, I8, I16, I32, I64. Unsigned integers, BOOL and the float8 types have none.
func SafetensorsType(dtype string) (GGMLType, bool) {
	switch dtype {
	case "F64":
		return TypeF64, true
	case "F32":
		return TypeF32, true
	case "F16":
		return TypeF16, true
	case "BF16":
		return TypeBF16, true
	case "I8":
		return TypeI8, true
	case "I16":
		return TypeI16, true
	case "I32":
		return TypeI32, true
	case "I64":
		return TypeI64, true
	}
	return 0, false
}

// entryOffset is the file offset of a tensor's key in the JSON header (8 + its index), found by
// searching for the quoted name; 8, the header's start, if the name is written with escapes.
func entryOffset(header []byte, name string) int {
	q, _ := json.Marshal(name)
	if i := bytes.Index(header, q); i >= 0 {
		return 8 + i
	}
	return 8
}
