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

// readHeader reads and checks the 24-byte header: the magic "GGUF", a u32 version (2 or 3;
// version 1 had 32-bit counts; a version whose bytes are reversed is a big-endian file), then the
// u64 tensor_count and u64 metadata_kv_count, each checked against the bytes left in the file (a
// tensor info takes at least minTensorInfoSize bytes, a metadata entry minKVSize) before anything
// is allocated. Errors are *FormatError naming the field and its byte offset (0, 4, 8, 16).
func (d *decoder) readHeader() (Header, error) {
	// exercise: gguf.readHeader — magic, version, then the two u64 counts, each bounded by the bytes left
	// tests: TestReadHeader
	// difficulty: medium, 20 min
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
	// hint: Read the four fields in file order with the decoder's d.take, d.u32 and d.u64, and
	// check each before reading the next: a wrong magic or version means the rest is not a GGUF
	// header at all. The counts come from the file, so they are not trusted.
	// hint: Layout: bytes 0..3 "GGUF", 4..7 u32 version (2 or 3), 8..15 u64 tensor_count, 16..23
	// u64 metadata_kv_count. A count n is possible only if n <= bytesLeft / smallestItem, with
	// smallestItem = minTensorInfoSize (24) for tensors and minKVSize (13) for metadata entries.
	// hint: The shape, each step returning formatErr(field, offset, ...) on failure:
	//	magic, err := d.take(4, "header.magic")   // then compare with Magic
	//	v, err := d.u32("header.version")          // 2 or 3; bits.ReverseBytes32(v) tells big-endian
	//	tc, err := d.u64("header.tensor_count")
	//	kc, err := d.u64("header.metadata_kv_count")
	//	left := uint64(d.remaining())             // then tc > left/minTensorInfoSize is an error
	// mistake: the counts read as u32, as in version 1
	// says: the counts are u64
	//	- tc, err := d.u64("header.tensor_count")
	//	+ tc32, err := d.u32("header.tensor_count")
	//	+ tc := uint64(tc32)
	//
	//	- kc, err := d.u64("header.metadata_kv_count")
	//	+ kc32, err := d.u32("header.metadata_kv_count")
	//	+ kc := uint64(kc32)
	// mistake: the counts trusted: nothing checks them against the bytes left before Parse allocates
	// says: check each count against the bytes left
	//	- if tc > left/minTensorInfoSize {
	//	+ if false {
	//
	//	- if kc > left/minKVSize {
	//	+ if false {
	// mistake: the magic never checked, so any 24 bytes pass for a header
	// says: the magic is not checked
	//	- if string(magic) != Magic {
	//	+ if false {
	// end exercise
}
