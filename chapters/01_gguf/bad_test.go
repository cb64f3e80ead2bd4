package gguf

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Every test here feeds Parse a broken file and checks, with errors.As, that the error is a
// *FormatError naming the field and the byte offset. None of them may panic, hang or allocate
// more than the file's size.

// TestTruncatedEverywhere cuts a valid file at every byte (which includes every section boundary:
// inside the header, after each metadata entry, after each tensor info, inside the data) and
// checks that each prefix is rejected with an error that names a byte offset.
func TestTruncatedEverywhere(t *testing.T) {
	w, _ := sampleFile(t)
	b := w.build()
	parsesOrStop(t, "the whole sample file", b)
	for n := range len(b) {
		_, err := Parse(b[:n])
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("prefix of %d/%d bytes: error %v is not a *FormatError", n, len(b), err)
		}
		if fe.Offset < 0 || fe.Offset > int64(len(b)) || fe.Field == "" {
			t.Fatalf("prefix of %d bytes: field %q at byte %d is not a place in the file", n, fe.Field, fe.Offset)
		}
	}
	// At the section boundaries, the error says the file is truncated (or that a count cannot fit
	// in what is left, or that a tensor's data lies beyond the end).
	few := &capped{t: t, limit: 3}
	for _, n := range w.bounds[:len(w.bounds)-1] {
		_, err := Parse(b[:n])
		var fe *FormatError
		if !errors.As(err, &fe) || !errors.Is(err, ErrTruncated) && !strings.Contains(fe.Msg, "cannot fit") && !strings.Contains(fe.Msg, "beyond the file") {
			few.Errorf("cut at boundary %d: error %v does not say the file is truncated", n, err)
		}
	}
	few.done()
}

// header builds the 24-byte header with the given counts.
func header(version uint32, tensors, kvs uint64) []byte {
	b := []byte(Magic)
	b = putU32(b, version)
	b = putU64(b, tensors)
	return putU64(b, kvs)
}

func TestBadHeader(t *testing.T) {
	parsesOrStop(t, "an empty file (the header alone: version 3, no tensors, no metadata)", header(3, 0, 0))
	for _, c := range []struct {
		name  string
		b     []byte
		field string
		at    int64
		msg   []string
	}{
		{"wrong magic", append([]byte("GGML"), header(3, 0, 0)[4:]...), "header.magic", 0, []string{`found "GGML"`}},
		{"version 1", header(1, 0, 0), "header.version", 4, []string{"version 1"}},
		{"version 4", header(4, 0, 0), "header.version", 4, []string{"unsupported version 4"}},
		{"big-endian", header(3<<24, 0, 0), "header.version", 4, []string{"big-endian"}},
		{"2^63 tensors", header(3, 1<<63, 0), "header.tensor_count", 8, []string{"9223372036854775808 tensors cannot fit"}},
		{"2^64-1 kvs", header(3, 0, math.MaxUint64), "header.metadata_kv_count", 16, []string{"cannot fit"}},
		{"truncated count", header(3, 0, 0)[:20], "header.metadata_kv_count", 16, []string{"needs 8 bytes", "ends at byte 20"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b)
			wantFormatErr(t, err, c.field, c.at, c.msg...)
		})
	}
	_, err := Parse(header(3, 0, 0)[:20])
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("a cut header: %v does not wrap ErrTruncated", err)
	}
}

// kvFile is a header announcing one metadata entry followed by raw entry bytes (plus padding so
// the kv count itself is plausible).
func kvFile(entry []byte, pad ...byte) []byte {
	return append(append(header(3, 0, 1), entry...), pad...)
}

func TestBadMetadata(t *testing.T) {
	good := &testFile{kvs: []KV{{Key: "k", Value: Value{Type: TypeUint32, V: uint32(7)}}}}
	parsesOrStop(t, "a file with one UINT32 metadata entry", good.build())
	key := putStr(nil, "k")
	for _, c := range []struct {
		name  string
		b     []byte
		field string
		at    int64
		msg   []string
	}{
		{"2^40-byte key", kvFile(putU64(nil, 1<<40), 0, 0, 0, 0, 0, 0, 0, 0), "metadata[0].key length", 24, []string{"1099511627776 items", "cannot fit"}},
		{"2^40-byte string", kvFile(putU64(putU32(key, 8), 1<<40)), `metadata "k" length`, 37, []string{"1099511627776 items"}},
		{"unknown value type", kvFile(putU32(key, 13)), `metadata "k" type`, 33, []string{"unknown value type 13"}},
		{"bad bool", kvFile(append(putU32(key, 7), 2)), `metadata "k"`, 37, []string{"BOOL must be 0 or 1"}},
		{"huge array", kvFile(putU64(putU32(putU32(key, 9), 4), 1<<62)), `metadata "k" array length`, 41, []string{"cannot fit"}},
		{"unknown elem type", kvFile(putU64(putU32(putU32(key, 9), 77), 0)), `metadata "k"`, 37, []string{"unknown array element type 77"}},
		{"bad bool in array", kvFile(append(putU64(putU32(putU32(key, 9), 7), 2), 1, 5)), `metadata "k"`, 37, []string{"element 1: BOOL must be 0 or 1"}},
		{"truncated u32", kvFile(append(putU32(key, 4), 1, 2)), `metadata "k"`, 37, []string{"needs 4 bytes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b)
			wantFormatErr(t, err, c.field, c.at, c.msg...)
		})
	}

	// Arrays nested deeper than maxArrayDepth.
	var b []byte
	b = putU32(key, 9)
	for range maxArrayDepth + 1 {
		b = putU64(putU32(b, 9), 1)
	}
	b = append(b, make([]byte, 64)...)
	_, err := Parse(kvFile(b))
	wantFormatErr(t, err, `metadata "k"[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]`, anyOffset, "nested more than 16 deep")

	// Duplicate keys and a bad alignment.
	dup := &testFile{kvs: []KV{{Key: "a", Value: Value{Type: TypeUint8, V: uint8(1)}}, {Key: "a", Value: Value{Type: TypeUint8, V: uint8(2)}}}}
	_, err = Parse(dup.build())
	wantFormatErr(t, err, `metadata "a"`, 38, "duplicate key (first at byte 24)")
	for _, v := range []Value{{Type: TypeUint32, V: uint32(0)}, {Type: TypeUint32, V: uint32(48)}, {Type: TypeUint64, V: uint64(32)}} {
		bad := &testFile{kvs: []KV{{Key: "general.alignment", Value: v}}}
		_, err = Parse(bad.build())
		wantFormatErr(t, err, `metadata "general.alignment"`, 24, "must be a UINT32 power of two")
	}
}

// tensorFile builds a file with the given tensors (data laid out by the writer) and returns it.
func tensorFile(tensors ...testTensor) []byte {
	w := &testFile{tensors: tensors}
	return w.build()
}

func TestBadTensors(t *testing.T) {
	ok := func(name string) testTensor {
		return testTensor{name: name, dims: []uint64{8}, typ: TypeF32, data: make([]byte, 32)}
	}
	five := ok("five")
	five.dims = []uint64{1, 1, 1, 1, 8}
	unknown := ok("unk")
	unknown.typ = 99
	overflow := ok("ovf")
	overflow.dims = []uint64{1 << 32, 1 << 32}
	overflow2 := ok("ovf2")
	overflow2.dims = []uint64{1 << 62, 2} // 2^63 elements: the product itself overflows int64
	bytesOverflow := ok("ovf3")
	bytesOverflow.dims = []uint64{1 << 31, 1 << 31} // 2^62 elements * 4 bytes overflows
	misaligned := ok("mis")
	misaligned.offset = u(4)
	pastEOF := ok("past")
	pastEOF.offset = u(1 << 20)
	partly := ok("partly")
	partly.dims = []uint64{16}
	parsesOrStop(t, "a file with one 8-value F32 tensor", tensorFile(ok("a")))
	partBlock := testTensor{name: "q", dims: []uint64{33}, typ: TypeQ8_0, data: make([]byte, 34)}
	noDims := testTensor{name: "q", dims: nil, typ: TypeQ8_0, data: make([]byte, 34)} // found by FuzzGGUF

	for _, c := range []struct {
		name  string
		b     []byte
		field string
		at    int64
		msg   []string
	}{
		{"more than 4 dims", tensorFile(five), `tensor "five" n_dims`, 36, []string{"5 dimensions, at most 4"}},
		{"unknown ggml type", tensorFile(unknown), `tensor "unk" type`, 47, []string{"unknown ggml type 99"}},
		{"dims product overflows", tensorFile(overflow), `tensor "ovf" dims[1]`, 47, []string{"overflows 63 bits"}},
		{"dims product 2^63", tensorFile(overflow2), `tensor "ovf2" dims[1]`, 48, []string{"overflows"}},
		{"byte size overflows", tensorFile(bytesOverflow), `tensor "ovf3"`, 24, []string{"byte size", "overflows"}},
		{"misaligned offset", tensorFile(misaligned), `tensor "mis"`, 24, []string{"offset 4 is not a multiple of the alignment 32"}},
		{"data past EOF", tensorFile(pastEOF), `tensor "past"`, 24, []string{"beyond the file's 96"}},
		{"data partly past EOF", tensorFile(partly), `tensor "partly"`, 24, []string{"data ends at byte 128, beyond the file's 96"}},
		{"partial block", tensorFile(partBlock), `tensor "q"`, 24, []string{"first dimension 33 is not a multiple of the Q8_0 block size 32"}},
		{"block type without dims", tensorFile(noDims), `tensor "q"`, 24, []string{"a Q8_0 tensor needs at least one dimension"}},
		{"duplicate name", tensorFile(ok("a"), ok("a")), `tensor "a"`, 57, []string{"duplicate name (first at byte 24)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b)
			wantFormatErr(t, err, c.field, c.at, c.msg...)
		})
	}

	// Overlap: the second tensor claims offset 0 as well.
	a, b := ok("a"), ok("b")
	b.offset = u(0)
	_, err := Parse(tensorFile(a, b))
	wantFormatErr(t, err, `tensor "b"`, 57, `data at bytes 96..128 overlaps tensor "a" (bytes 96..128)`)
	// Partial overlap: a 16-value tensor at 0 and an 8-value tensor at 32.
	big := ok("big")
	big.dims, big.data = []uint64{16}, make([]byte, 64)
	small := ok("small")
	small.offset = u(32)
	_, err = Parse(tensorFile(big, small))
	wantFormatErr(t, err, `tensor "small"`, anyOffset, `overlaps tensor "big"`)

	// The data section must start inside the file.
	full := tensorFile(ok("a"))
	_, err = Parse(full[:60])
	wantFormatErr(t, err, "data section", 64, "beyond the file's 60 bytes")
}

// TestCountsBoundAllocation: a header claiming many tensors in a small file fails at once with
// the count error, not with an attempt to allocate.
func TestCountsBoundAllocation(t *testing.T) {
	b := header(3, 10, 0)
	b = append(b, make([]byte, 10*minTensorInfoSize-1)...)
	_, err := Parse(b)
	wantFormatErr(t, err, "header.tensor_count", 8, "10 tensors cannot fit in the 239 bytes")
	allocs := testing.AllocsPerRun(10, func() { _, _ = Parse(header(3, 1<<40, 1<<40)) })
	if allocs > 20 {
		t.Errorf("rejecting absurd counts took %v allocations", allocs)
	}
}
