package gguf

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Every test here feeds Parse a broken file and checks that the error names the field and the
// byte offset. None of them may panic, hang or allocate more than the file's size.

// TestTruncatedEverywhere cuts a valid file at every byte (which includes every section boundary:
// inside the header, after each metadata entry, after each tensor info, inside the data) and
// checks that each prefix is rejected with an error that names a byte offset.
func TestTruncatedEverywhere(t *testing.T) {
	w, _ := sampleFile(t)
	b := w.build()
	for n := range len(b) {
		_, err := Parse(b[:n])
		if err == nil {
			t.Fatalf("prefix of %d/%d bytes parsed without error", n, len(b))
		}
		if !containsAll(err.Error(), "gguf: ", "byte") {
			t.Fatalf("prefix of %d bytes: error %q names no byte offset", n, err)
		}
	}
	// At the section boundaries, the error says the file is truncated.
	for _, n := range w.bounds[:len(w.bounds)-1] {
		_, err := Parse(b[:n])
		if !errors.Is(err, ErrTruncated) && !containsAll(fmt.Sprint(err), "cannot fit") && !containsAll(fmt.Sprint(err), "beyond the file") {
			t.Errorf("cut at boundary %d: error %v does not say the file is truncated", n, err)
		}
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// header builds the 24-byte header with the given counts.
func header(version uint32, tensors, kvs uint64) []byte {
	b := []byte(Magic)
	b = putU32(b, version)
	b = putU64(b, tensors)
	return putU64(b, kvs)
}

func TestBadHeader(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want []string
	}{
		{"wrong magic", append([]byte("GGML"), header(3, 0, 0)[4:]...), []string{"header.magic at byte 0", `found "GGML"`}},
		{"version 1", header(1, 0, 0), []string{"header.version at byte 4", "version 1"}},
		{"version 4", header(4, 0, 0), []string{"header.version at byte 4", "unsupported version 4"}},
		{"big-endian", header(3<<24, 0, 0), []string{"header.version at byte 4", "big-endian"}},
		{"2^63 tensors", header(3, 1<<63, 0), []string{"header.tensor_count at byte 8", "9223372036854775808 tensors cannot fit"}},
		{"2^64-1 kvs", header(3, 0, math.MaxUint64), []string{"header.metadata_kv_count at byte 16", "cannot fit"}},
		{"truncated count", header(3, 0, 0)[:20], []string{"header.metadata_kv_count at byte 16", "needs 8 bytes", "ends at byte 20"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b)
			assertErr(t, err, c.want...)
		})
	}
}

// kvFile is a header announcing one metadata entry followed by raw entry bytes (plus padding so
// the kv count itself is plausible).
func kvFile(entry []byte, pad ...byte) []byte {
	return append(append(header(3, 0, 1), entry...), pad...)
}

func TestBadMetadata(t *testing.T) {
	key := putStr(nil, "k")
	for _, c := range []struct {
		name string
		b    []byte
		want []string
	}{
		{"2^40-byte key", kvFile(putU64(nil, 1<<40), 0, 0, 0, 0, 0, 0, 0, 0), []string{"metadata[0].key length at byte 24", "1099511627776 items", "cannot fit"}},
		{"2^40-byte string", kvFile(putU64(putU32(key, 8), 1<<40)), []string{`metadata "k" length at byte 37`, "1099511627776 items"}},
		{"unknown value type", kvFile(putU32(key, 13)), []string{`metadata "k" type at byte 33`, "unknown value type 13"}},
		{"bad bool", kvFile(append(putU32(key, 7), 2)), []string{`metadata "k" at byte 37`, "BOOL must be 0 or 1"}},
		{"huge array", kvFile(putU64(putU32(putU32(key, 9), 4), 1<<62)), []string{`metadata "k" array length at byte 41`, "cannot fit"}},
		{"unknown elem type", kvFile(putU64(putU32(putU32(key, 9), 77), 0)), []string{`metadata "k" at byte 37`, "unknown array element type 77"}},
		{"bad bool in array", kvFile(append(putU64(putU32(putU32(key, 9), 7), 2), 1, 5)), []string{`metadata "k" at byte 37`, "element 1: BOOL must be 0 or 1"}},
		{"truncated u32", kvFile(append(putU32(key, 4), 1, 2)), []string{`metadata "k" at byte 37`, "needs 4 bytes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b)
			assertErr(t, err, c.want...)
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
	assertErr(t, err, "nested more than 16 deep")

	// Duplicate keys and a bad alignment.
	dup := &testFile{kvs: []KV{{Key: "a", Value: Value{Type: TypeUint8, V: uint8(1)}}, {Key: "a", Value: Value{Type: TypeUint8, V: uint8(2)}}}}
	_, err = Parse(dup.build())
	assertErr(t, err, `metadata "a" at byte 38: duplicate key (first at byte 24)`)
	for _, v := range []Value{{Type: TypeUint32, V: uint32(0)}, {Type: TypeUint32, V: uint32(48)}, {Type: TypeUint64, V: uint64(32)}} {
		bad := &testFile{kvs: []KV{{Key: "general.alignment", Value: v}}}
		_, err = Parse(bad.build())
		assertErr(t, err, `metadata "general.alignment" at byte 24: must be a UINT32 power of two`)
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
	partBlock := testTensor{name: "q", dims: []uint64{33}, typ: TypeQ8_0, data: make([]byte, 34)}
	noDims := testTensor{name: "q", dims: nil, typ: TypeQ8_0, data: make([]byte, 34)} // found by FuzzGGUF

	for _, c := range []struct {
		name string
		b    []byte
		want []string
	}{
		{"more than 4 dims", tensorFile(five), []string{`tensor "five" n_dims at byte 36`, "5 dimensions, at most 4"}},
		{"unknown ggml type", tensorFile(unknown), []string{`tensor "unk" type at byte 47`, "unknown ggml type 99"}},
		{"dims product overflows", tensorFile(overflow), []string{`tensor "ovf" dims[1] at byte 47`, "overflows 63 bits"}},
		{"dims product 2^63", tensorFile(overflow2), []string{`tensor "ovf2" dims[1] at byte 48`, "overflows"}},
		{"byte size overflows", tensorFile(bytesOverflow), []string{`tensor "ovf3" at byte 24`, "byte size", "overflows"}},
		{"misaligned offset", tensorFile(misaligned), []string{`tensor "mis" (info at byte 24)`, "offset 4 is not a multiple of the alignment 32"}},
		{"data past EOF", tensorFile(pastEOF), []string{`tensor "past" (info at byte 24)`, "beyond the file's 96"}},
		{"data partly past EOF", tensorFile(partly), []string{`tensor "partly": data ends at byte 128, beyond the file's 96`}},
		{"partial block", tensorFile(partBlock), []string{`tensor "q" at byte 24`, "first dimension 33 is not a multiple of the Q8_0 block size 32"}},
		{"block type without dims", tensorFile(noDims), []string{`tensor "q" at byte 24: a Q8_0 tensor needs at least one dimension`}},
		{"duplicate name", tensorFile(ok("a"), ok("a")), []string{`tensor "a" (info at byte 57): duplicate name (first at byte 24)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.b)
			assertErr(t, err, c.want...)
		})
	}

	// Overlap: the second tensor claims offset 0 as well.
	a, b := ok("a"), ok("b")
	b.offset = u(0)
	_, err := Parse(tensorFile(a, b))
	assertErr(t, err, `tensor "b" (bytes 96..128) overlaps tensor "a" (bytes 96..128)`)
	// Partial overlap: a 16-value tensor at 0 and an 8-value tensor at 32.
	big := ok("big")
	big.dims, big.data = []uint64{16}, make([]byte, 64)
	small := ok("small")
	small.offset = u(32)
	_, err = Parse(tensorFile(big, small))
	assertErr(t, err, "overlaps", `"big"`, `"small"`)

	// The data section must start inside the file.
	full := tensorFile(ok("a"))
	_, err = Parse(full[:60])
	assertErr(t, err, "data section starts at byte 64", "beyond the file's 60")
}

// TestCountsBoundAllocation: a header claiming many tensors in a small file fails at once with
// the count error, not with an attempt to allocate.
func TestCountsBoundAllocation(t *testing.T) {
	b := header(3, 10, 0)
	b = append(b, make([]byte, 10*minTensorInfoSize-1)...)
	_, err := Parse(b)
	assertErr(t, err, "header.tensor_count at byte 8: 10 tensors cannot fit in the 239 bytes")
	allocs := testing.AllocsPerRun(10, func() { _, _ = Parse(header(3, 1<<40, 1<<40)) })
	if allocs > 20 {
		t.Errorf("rejecting absurd counts took %v allocations", allocs)
	}
}
