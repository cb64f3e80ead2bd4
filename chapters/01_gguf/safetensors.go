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
		return nil, fmt.Errorf("%s: %w", path, err)
	}
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
		return nil, fmt.Errorf("safetensors: header length at byte 0: needs 8 bytes, file has %d: %w", size, ErrTruncated)
	}
	n := binary.LittleEndian.Uint64(b)
	if n > MaxSafetensorsHeader {
		return nil, fmt.Errorf("safetensors: header length at byte 0: %d bytes exceeds the %d-byte limit", n, MaxSafetensorsHeader)
	}
	if n > uint64(size-8) {
		return nil, fmt.Errorf("safetensors: header length at byte 0: %d bytes of JSON would end at byte %d, beyond the file's %d: %w",
			n, 8+n, size, ErrTruncated)
	}
	s := &Safetensors{DataOffset: 8 + int64(n), Size: size, data: b}
	header := b[8 : 8+n]

	var raw map[string]json.RawMessage
	if err := json.Unmarshal(header, &raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, including the offending one.
			return nil, fmt.Errorf("safetensors: header JSON at byte %d: %w", 8+max(se.Offset-1, 0), err)
		}
		return nil, fmt.Errorf("safetensors: header JSON at byte 8: %w", err)
	}
	if m, ok := raw["__metadata__"]; ok {
		if err := json.Unmarshal(m, &s.Metadata); err != nil {
			return nil, fmt.Errorf("safetensors: header JSON __metadata__: must map strings to strings: %w", err)
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
			return nil, fmt.Errorf("safetensors: tensor %q: bad header entry at byte %d: %w", name, entryOffset(header, name), err)
		}
		t, err := checkEntry(name, e, s.DataOffset, bufLen)
		if err != nil {
			return nil, fmt.Errorf("%w (entry at header byte %d)", err, entryOffset(header, name))
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
			return nil, fmt.Errorf("safetensors: tensor %q: data starts at byte %d, leaving a hole of %d bytes after %s (ends at byte %d)",
				t.Name, s.DataOffset+t.Begin, t.Begin-at, prev, s.DataOffset+at)
		case t.Begin < at:
			return nil, fmt.Errorf("safetensors: tensor %q: data at bytes %d..%d overlaps %s (ends at byte %d)",
				t.Name, s.DataOffset+t.Begin, s.DataOffset+t.End, prev, s.DataOffset+at)
		}
		at, prev = t.End, fmt.Sprintf("tensor %q", t.Name)
	}
	if at != bufLen {
		return nil, fmt.Errorf("safetensors: data buffer: tensors end at byte %d but the file has %d more bytes up to byte %d",
			s.DataOffset+at, bufLen-at, size)
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
		return STTensor{}, fmt.Errorf("safetensors: tensor %q: unknown dtype %q", name, e.DType)
	}
	if len(e.DataOffsets) != 2 {
		return STTensor{}, fmt.Errorf("safetensors: tensor %q: data_offsets must be [begin, end], found %v", name, e.DataOffsets)
	}
	begin, end := e.DataOffsets[0], e.DataOffsets[1]
	if begin < 0 || end < begin {
		return STTensor{}, fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] are not an increasing range", name, begin, end)
	}
	if end > bufLen {
		return STTensor{}, fmt.Errorf("safetensors: tensor %q: data ends at byte %d, beyond the file's %d", name, dataOffset+end, dataOffset+bufLen)
	}
	nbytes := uint64(es)
	shape := make([]int, len(e.Shape))
	for i, d := range e.Shape {
		if d < 0 {
			return STTensor{}, fmt.Errorf("safetensors: tensor %q: shape %v has a negative dimension", name, e.Shape)
		}
		hi, lo := bits.Mul64(nbytes, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return STTensor{}, fmt.Errorf("safetensors: tensor %q: shape %v: byte size overflows", name, e.Shape)
		}
		nbytes, shape[i] = lo, int(d)
	}
	if int64(nbytes) != end-begin {
		return STTensor{}, fmt.Errorf("safetensors: tensor %q: %s %v needs %d bytes, but data_offsets [%d, %d] (bytes %d..%d of the file) hold %d",
			name, e.DType, e.Shape, nbytes, begin, end, dataOffset+begin, dataOffset+end, end-begin)
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

// TensorFloat32 converts an F32, F16, BF16 or F64 tensor to float32, row-major.
func (s *Safetensors) TensorFloat32(name string) ([]float32, error) {
	t, ok := s.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("safetensors: tensor %q: %w", name, ErrNotFound)
	}
	raw, err := s.TensorData(name)
	if err != nil {
		return nil, err
	}
	var typ GGMLType
	switch t.DType {
	case "F32":
		typ = TypeF32
	case "F16":
		typ = TypeF16
	case "BF16":
		typ = TypeBF16
	case "F64":
		out := make([]float32, len(raw)/8)
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
		}
		return out, nil
	default:
		return nil, fmt.Errorf("safetensors: tensor %q: dtype %s is not a float type", name, t.DType)
	}
	es, _ := dtypeSize(t.DType)
	out := make([]float32, int64(len(raw))/es)
	if err := Dequantize(out, typ, raw); err != nil {
		return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
	}
	return out, nil
}

// TensorFloat64 is TensorFloat32 widened to float64; F64 tensors are read exactly.
func (s *Safetensors) TensorFloat64(name string) ([]float64, error) {
	if t, ok := s.Tensor(name); ok && t.DType == "F64" {
		raw, err := s.TensorData(name)
		if err != nil {
			return nil, err
		}
		out := make([]float64, len(raw)/8)
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
		}
		return out, nil
	}
	x, err := s.TensorFloat32(name)
	if err != nil {
		return nil, err
	}
	return widen(x), nil
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
