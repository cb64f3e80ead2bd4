package gguf

import "math/bits"

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// DefaultAlignment is the alignment of the data section and of every tensor's offset when the
// file has no general.alignment key.
const DefaultAlignment = 32

// Smallest possible encodings, used to bound counts before allocating:
// a metadata entry is at least an empty key (8), a type (4) and a one-byte value;
// a tensor info is at least an empty name (8), n_dims (4), type (4) and offset (8).
const (
	minKVSize         = 8 + 4 + 1
	minTensorInfoSize = 8 + 4 + 4 + 8
)

// Header is the fixed start of a GGUF file (24 bytes):
//
//	bytes 0..3   magic "GGUF"
//	bytes 4..7   u32 version (2 or 3)
//	bytes 8..15  u64 tensor_count
//	bytes 16..23 u64 metadata_kv_count
type Header struct {
	Version     uint32
	TensorCount int64
	KVCount     int64
}

// readHeader reads and checks the header. Counts are bounded by what the rest of the file can hold.
func (d *decoder) readHeader() (Header, error) {
	magic, err := d.take(4, "header.magic")
	if err != nil {
		return Header{}, err
	}
	if string(magic) != Magic {
		return Header{}, formatErr("header.magic", 0, "found %q, want %q (not a GGUF file)", magic, Magic)
	}
	v, err := d.u32("header.version")
	if err != nil {
		return Header{}, err
	}
	switch {
	case v == 2 || v == 3:
	case v == 1:
		return Header{}, formatErr("header.version", 4, "version 1 (32-bit counts) is not supported, only 2 and 3")
	case bits.ReverseBytes32(v) == 2 || bits.ReverseBytes32(v) == 3:
		return Header{}, formatErr("header.version", 4, "%#x looks like a big-endian file; only little-endian is supported", v)
	default:
		return Header{}, formatErr("header.version", 4, "unsupported version %d (want 2 or 3)", v)
	}
	h := Header{Version: v}
	// Both counts are checked against the bytes after them, before anything is allocated.
	tc, err := d.u64("header.tensor_count")
	if err != nil {
		return Header{}, err
	}
	kc, err := d.u64("header.metadata_kv_count")
	if err != nil {
		return Header{}, err
	}
	left := uint64(d.remaining())
	if tc > left/minTensorInfoSize {
		return Header{}, formatErr("header.tensor_count", 8, "%d tensors cannot fit in the %d bytes left in the file", tc, left)
	}
	if kc > left/minKVSize {
		return Header{}, formatErr("header.metadata_kv_count", 16, "%d entries cannot fit in the %d bytes left in the file", kc, left)
	}
	h.TensorCount, h.KVCount = int64(tc), int64(kc)
	return h, nil
}
