package gguf

import (
	"encoding/binary"
	"math"
)

// This file is a small GGUF writer used only by the tests: it builds files with every value type,
// and with deliberate mistakes for the corruption tests.

type testTensor struct {
	name   string
	dims   []uint64
	typ    GGMLType
	data   []byte
	offset *uint64 // if set, written instead of the computed offset
}

type testFile struct {
	version   uint32
	alignment uint64 // layout alignment; 0 means DefaultAlignment
	kvs       []KV
	tensors   []testTensor
	// boundaries collected by build: end of header, of each KV, of each tensor info, data start
	bounds []int
}

func putU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func putU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
func putStr(b []byte, s string) []byte { return append(putU64(b, uint64(len(s))), s...) }

// encodeValue appends v without its type tag.
func encodeValue(b []byte, v Value) []byte {
	switch x := v.V.(type) {
	case uint8:
		return append(b, x)
	case int8:
		return append(b, byte(x))
	case uint16:
		return binary.LittleEndian.AppendUint16(b, x)
	case int16:
		return binary.LittleEndian.AppendUint16(b, uint16(x))
	case uint32:
		return putU32(b, x)
	case int32:
		return putU32(b, uint32(x))
	case float32:
		return putU32(b, math.Float32bits(x))
	case bool:
		if x {
			return append(b, 1)
		}
		return append(b, 0)
	case string:
		return putStr(b, x)
	case uint64:
		return putU64(b, x)
	case int64:
		return putU64(b, uint64(x))
	case float64:
		return putU64(b, math.Float64bits(x))
	}
	// arrays
	b = putU32(b, uint32(v.Elem))
	b = putU64(b, uint64(v.Len()))
	switch a := v.V.(type) {
	case []Value:
		for _, e := range a {
			b = encodeValue(b, e)
		}
	default:
		_ = eachAny(a, func(e any) { b = encodeValue(b, Value{V: e}) })
	}
	return b
}

func (w *testFile) build() []byte {
	version := w.version
	if version == 0 {
		version = 3
	}
	align := w.alignment
	if align == 0 {
		align = DefaultAlignment
	}
	b := []byte(Magic)
	b = putU32(b, version)
	b = putU64(b, uint64(len(w.tensors)))
	b = putU64(b, uint64(len(w.kvs)))
	w.bounds = []int{4, 8, 16, len(b)}
	for _, kv := range w.kvs {
		b = putStr(b, kv.Key)
		b = putU32(b, uint32(kv.Value.Type))
		b = encodeValue(b, kv.Value)
		w.bounds = append(w.bounds, len(b))
	}
	var off uint64
	offsets := make([]uint64, len(w.tensors))
	for i, t := range w.tensors {
		offsets[i] = off
		off += uint64(len(t.data))
		off = (off + align - 1) / align * align
	}
	for i, t := range w.tensors {
		b = putStr(b, t.name)
		b = putU32(b, uint32(len(t.dims)))
		for _, d := range t.dims {
			b = putU64(b, d)
		}
		b = putU32(b, uint32(t.typ))
		o := offsets[i]
		if t.offset != nil {
			o = *t.offset
		}
		b = putU64(b, o)
		w.bounds = append(w.bounds, len(b))
	}
	if len(w.tensors) == 0 {
		return b
	}
	for uint64(len(b))%align != 0 {
		b = append(b, 0)
	}
	dataStart := len(b)
	w.bounds = append(w.bounds, dataStart)
	for i, t := range w.tensors {
		for len(b) < dataStart+int(offsets[i]) {
			b = append(b, 0)
		}
		b = append(b, t.data...)
		w.bounds = append(w.bounds, len(b))
	}
	return b
}

// f32Bytes encodes float32 values little-endian.
func f32Bytes(x ...float32) []byte {
	var b []byte
	for _, v := range x {
		b = putU32(b, math.Float32bits(v))
	}
	return b
}

func u(v uint64) *uint64 { return &v }
