package gguf

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// The tests of this file check the two places every other test goes through: the 24-byte header
// and where the data section starts. go test runs files in name order, so they run first, and a
// mistake in either is named here before the rest of the chapter fails because of it.

// readHeaderOf runs readHeader on b and returns the header, the error and how many bytes it read.
func readHeaderOf(b []byte) (Header, error, int64) {
	d := &decoder{b: b}
	h, err := d.readHeader()
	return h, err, d.off
}

// TestReadHeader reads hand-made headers: a good one of each version, then headers a reader must
// refuse, each for its own reason, before the caller allocates anything.
func TestReadHeader(t *testing.T) {
	// Version 3 and 2, 2 tensors and 5 entries, with room for them: 2*24 + 5*13 = 113 bytes.
	for _, v := range []uint32{3, 2} {
		b := append(header(v, 2, 5), make([]byte, 2*minTensorInfoSize+5*minKVSize)...)
		h, err, read := readHeaderOf(b)
		switch {
		case err != nil:
			t.Fatalf("a good version %d header (2 tensors, 5 entries, 113 bytes after it): %v", v, err)
		case read == 16 && h.TensorCount == 2 && h.KVCount == 0:
			t.Fatalf("the header read 16 bytes, not 24, and found %d tensors and %d entries: the counts are u64 (8 bytes each) since version 2; version 1 had u32 counts", h.TensorCount, h.KVCount)
		case read != 24:
			t.Fatalf("readHeader read %d bytes, want the 24 of the header: 4 magic, 4 version, 8 + 8 counts", read)
		case h.Version != v || h.TensorCount != 2 || h.KVCount != 5:
			t.Fatalf("header = %+v, want {Version:%d TensorCount:2 KVCount:5}: bytes 4..7 are the u32 version, 8..15 and 16..23 the u64 counts, little-endian", h, v)
		}
	}
	// The counts just fit: 13-byte entries fill the file exactly.
	if _, err, _ := readHeaderOf(append(header(3, 0, 4), make([]byte, 4*minKVSize)...)); err != nil {
		t.Fatalf("4 metadata entries in the 52 bytes after the header (13 each, the smallest entry) were refused: %v", err)
	}
	if _, err, _ := readHeaderOf(append(header(3, 2, 0), make([]byte, 2*minTensorInfoSize)...)); err != nil {
		t.Fatalf("2 tensors in the 48 bytes after the header (24 each, the smallest tensor info) were refused: %v", err)
	}

	for _, c := range []struct {
		name, fix string
		b         []byte
		field     string
		at        int64
	}{
		{"magic GGML", "the magic is not checked: the file must start with \"GGUF\"",
			append([]byte("GGML"), header(3, 0, 0)[4:]...), "header.magic", 0},
		{"version 4", "versions other than 2 and 3 are refused",
			header(4, 0, 0), "header.version", 4},
		{"2^63 tensors in 24 bytes", "the counts come from the file: check each count against the bytes left (a tensor info takes at least 24 bytes) before anything is allocated",
			header(3, 1<<63, 0), "header.tensor_count", 8},
		{"3 tensors in 48 bytes", "check each count against the bytes left: 3 tensor infos take at least 72 bytes",
			append(header(3, 3, 0), make([]byte, 48)...), "header.tensor_count", 8},
		{"2^64-1 entries", "check each count against the bytes left (a metadata entry takes at least 13 bytes)",
			header(3, 0, math.MaxUint64), "header.metadata_kv_count", 16},
		{"5 entries in 52 bytes", "check each count against the bytes left: 5 metadata entries take at least 65 bytes",
			append(header(3, 0, 5), make([]byte, 52)...), "header.metadata_kv_count", 16},
	} {
		h, err, _ := readHeaderOf(c.b)
		if err == nil {
			t.Fatalf("%s: readHeader accepted it (%+v): %s", c.name, h, c.fix)
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Field != c.field || fe.Offset != c.at {
			t.Fatalf("%s: error %v; want a *FormatError for %s at byte %d (formatErr(field, offset, ...))", c.name, err, c.field, c.at)
		}
	}
}

// TestDataOffset: the data section starts at the end of the tensor table rounded up to the file's
// alignment (general.alignment, 32 by default), an end already on a multiple staying where it is.
// Each wrong answer is compared with the classic mistakes, and the message names the one it is.
func TestDataOffset(t *testing.T) {
	for _, c := range []struct{ alignment, end, want int64 }{
		{64, 100, 128}, {64, 128, 128}, {64, 129, 192}, {32, 100, 128}, {32, 70, 96}, {32, 96, 96}, {256, 24, 256},
	} {
		f := &File{Alignment: uint64(c.alignment)}
		got := f.dataOffset(c.end)
		if got == c.want {
			continue
		}
		up := func(a int64) int64 { return (c.end + a - 1) / a * a }
		var why string
		switch {
		case got == c.end:
			why = "that is the end of the tensor table itself, not rounded up to the alignment: the data starts at the next multiple of it"
		case got == up(DefaultAlignment):
			why = fmt.Sprintf("that is rounded up to 32, DefaultAlignment, but general.alignment is %d here: use f.Alignment", c.alignment)
		case got == c.end/c.alignment*c.alignment:
			why = "that is rounded down, inside the tensor table: round up"
		case got == c.end+c.alignment-c.end%c.alignment:
			why = "one alignment too far: an end already on a multiple of the alignment stays where it is"
		case got%c.alignment != 0:
			why = "that is not a multiple of the alignment"
		default:
			why = "want the smallest multiple of the alignment that is at least the end of the table"
		}
		t.Fatalf("tensor table ending at byte %d, general.alignment %d: data offset %d, want %d: %s",
			c.end, c.alignment, got, c.want, why)
	}

	// The same through Parse: a file with general.alignment 64 finds its tensor's bytes.
	w := &testFile{alignment: 64, kvs: []KV{{Key: "general.alignment", Value: Value{Type: TypeUint32, V: uint32(64)}}},
		tensors: []testTensor{{name: "x", dims: []uint64{2}, typ: TypeF32, data: f32Bytes(1.5, -2)}}}
	f, err := Parse(w.build())
	if err != nil {
		t.Fatalf("a file with general.alignment 64 and one tensor: %v", err)
	}
	if got, err := f.TensorFloat32("x"); err != nil || len(got) != 2 || got[0] != 1.5 || got[1] != -2 {
		t.Fatalf("tensor x of a file with general.alignment 64 reads as %v (%v), want [1.5 -2]: data offset %d", got, err, f.DataOffset)
	}
}

// TestUint32 checks the accessor of the exercise: a UINT32 value comes back; a key of another type
// or a missing key is an error the caller can inspect, never a panic or a silent 0.
func TestUint32(t *testing.T) {
	w, _ := sampleFile(t)
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f.Uint32("qwen3.block_count"); err != nil || v != 28 {
		t.Fatalf("Uint32(qwen3.block_count) = %v, %v; want 28, nil", v, err)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Uint32 of the UINT64 entry t.u64 panicked (%v): check that it holds a UINT32 before the type assertion, "+
					"and return a *FormatError naming the key and both types (f.lookup does both)", r)
			}
		}()
		v, err := f.Uint32("t.u64")
		if err == nil {
			t.Fatalf("Uint32 of the UINT64 entry t.u64 = %d and no error: check that it holds a UINT32, and say what it holds", v)
		}
		wantFormatErr(t, err, `metadata "t.u64"`, anyOffset, "is UINT64, want UINT32")
	}()
	v, err := f.Uint32("nope")
	if err == nil {
		t.Fatalf("Uint32 of a missing key = %d and no error: a caller cannot tell 0 from nothing; return an error wrapping ErrNotFound", v)
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("Uint32 of a missing key: error %v does not wrap ErrNotFound", err)
	}
}
