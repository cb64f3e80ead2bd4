package gguf

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"
)

// sampleKVs has every value type, arrays of each, and a nested array.
func sampleKVs() []KV {
	kv := func(k string, t ValueType, v any) KV { return KV{Key: k, Value: Value{Type: t, V: v}} }
	arr := func(k string, e ValueType, v any) KV { return KV{Key: k, Value: Value{Type: TypeArray, Elem: e, V: v}} }
	return []KV{
		kv("general.architecture", TypeString, "qwen3"),
		kv("general.alignment", TypeUint32, uint32(64)),
		kv("t.u8", TypeUint8, uint8(200)),
		kv("t.i8", TypeInt8, int8(-100)),
		kv("t.u16", TypeUint16, uint16(60000)),
		kv("t.i16", TypeInt16, int16(-30000)),
		kv("qwen3.block_count", TypeUint32, uint32(28)),
		kv("t.i32", TypeInt32, int32(-2000000000)),
		kv("qwen3.rope.freq_base", TypeFloat32, float32(1e6)),
		kv("t.bool", TypeBool, true),
		kv("t.u64", TypeUint64, uint64(1)<<62),
		kv("t.i64", TypeInt64, int64(-1)<<62),
		kv("t.f64", TypeFloat64, math.Pi),
		kv("t.empty", TypeString, ""),
		arr("tokenizer.ggml.tokens", TypeString, []string{"a", "Ġthe", "<|im_end|>", ""}),
		arr("tokenizer.ggml.token_type", TypeInt32, []int32{1, 1, 3, 5}),
		arr("t.au8", TypeUint8, []uint8{1, 2, 255}),
		arr("t.ai8", TypeInt8, []int8{-1, 2}),
		arr("t.au16", TypeUint16, []uint16{1, 65535}),
		arr("t.ai16", TypeInt16, []int16{-1, 7}),
		arr("t.au32", TypeUint32, []uint32{4000000000}),
		arr("t.af32", TypeFloat32, []float32{0.5, -1}),
		arr("t.abool", TypeBool, []bool{true, false}),
		arr("t.au64", TypeUint64, []uint64{1 << 63}),
		arr("t.ai64", TypeInt64, []int64{-5}),
		arr("t.af64", TypeFloat64, []float64{1e-300}),
		arr("t.nested", TypeArray, []Value{
			{Type: TypeArray, Elem: TypeInt32, V: []int32{1, 2, 3}},
			{Type: TypeArray, Elem: TypeString, V: []string{"x"}},
			{Type: TypeArray, Elem: TypeArray, V: []Value{{Type: TypeArray, Elem: TypeUint8, V: []uint8{9}}}},
		}),
		arr("t.emptyarr", TypeFloat32, []float32{}),
	}
}

// sampleFile builds a v3 file with every value type and one tensor of every dequantizable type.
func sampleFile(t *testing.T) (*testFile, map[string][]float32) {
	want := map[string][]float32{}
	w := &testFile{alignment: 64, kvs: sampleKVs()}
	add := func(name string, dims []uint64, typ GGMLType, data []byte, vals []float32) {
		w.tensors = append(w.tensors, testTensor{name: name, dims: dims, typ: typ, data: data})
		want[name] = vals
	}
	f32 := []float32{1, -2, 3.5, 0, 1e-3, 7}
	add("f32", []uint64{3, 2}, TypeF32, f32Bytes(f32...), f32)
	add("f16", []uint64{2}, TypeF16, []byte{0x00, 0x3c, 0x00, 0xc0}, []float32{1, -2})
	add("bf16", []uint64{2, 1, 1, 1}, TypeBF16, []byte{0x80, 0x3f, 0x49, 0x40}, []float32{1, 3.140625})
	var q8 [32]int8
	for i := range q8 {
		q8[i] = int8(i - 16)
	}
	v8 := make([]float32, 32)
	for i := range v8 {
		v8[i] = float32(i-16) * 0.5
	}
	add("q8_0", []uint64{32, 1}, TypeQ8_0, packQ8_0(f16Bits(t, 0.5), q8), v8)
	var q4 [32]uint8
	v4 := make([]float32, 32)
	for i := range q4 {
		q4[i] = uint8(i % 16)
		v4[i] = float32(int(q4[i])-8) * 2
	}
	add("q4_0", []uint64{32}, TypeQ4_0, packQ4_0(f16Bits(t, 2), q4), v4)
	var sc, m [8]uint8
	var qk [256]uint8
	vk := make([]float32, 256)
	for i := range 8 {
		sc[i], m[i] = uint8(i*9), uint8(63-i*5)
	}
	for i := range qk {
		qk[i] = uint8(i*7) % 16
		vk[i] = 0.25*float32(sc[i/32])*float32(qk[i]) - 0.125*float32(m[i/32])
	}
	add("q4_k", []uint64{256}, TypeQ4_K, packQ4K(f16Bits(t, 0.25), f16Bits(t, 0.125), sc, m, qk), vk)
	var s6 [16]int8
	var q6 [256]uint8
	v6 := make([]float32, 256)
	for i := range s6 {
		s6[i] = int8(i*17 - 120)
	}
	for i := range q6 {
		q6[i] = uint8(i*13) % 64
		v6[i] = 0.5 * float32(s6[i/16]) * float32(int(q6[i])-32)
	}
	add("q6_k", []uint64{256, 1}, TypeQ6_K, packQ6K(f16Bits(t, 0.5), s6, q6), v6)
	return w, want
}

func TestParseSample(t *testing.T) {
	w, want := sampleFile(t)
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 64 || f.DataOffset%64 != 0 {
		t.Errorf("version %d alignment %d data offset %d", f.Version, f.Alignment, f.DataOffset)
	}
	kvs := sampleKVs()
	if len(f.Metadata) != len(kvs) {
		t.Fatalf("%d metadata entries, want %d", len(f.Metadata), len(kvs))
	}
	for i, kv := range kvs {
		got := f.Metadata[i]
		if got.Key != kv.Key || !reflect.DeepEqual(got.Value, kv.Value) {
			t.Errorf("metadata[%d] = %q %#v, want %q %#v", i, got.Key, got.Value, kv.Key, kv.Value)
		}
	}
	for _, ti := range f.Tensors {
		got, err := f.TensorFloat32(ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[ti.Name]) {
			t.Errorf("tensor %s = %v, want %v", ti.Name, got, want[ti.Name])
		}
		g64, err := f.TensorFloat64(ti.Name)
		if err != nil || len(g64) != len(got) || (len(got) > 0 && g64[len(g64)-1] != float64(got[len(got)-1])) {
			t.Errorf("TensorFloat64(%s) = %v, %v", ti.Name, g64, err)
		}
	}
	if ti, _ := f.Tensor("f32"); !reflect.DeepEqual(ti.Shape(), []int{2, 3}) || ti.NumElements() != 6 || ti.NumBytes() != 24 {
		t.Errorf("f32 shape %v elements %d bytes %d, want [2 3] 6 24", ti.Shape(), ti.NumElements(), ti.NumBytes())
	}
	if ti, _ := f.Tensor("bf16"); !reflect.DeepEqual(ti.Shape(), []int{1, 1, 1, 2}) {
		t.Errorf("bf16 shape %v, want [1 1 1 2]", ti.Shape())
	}
}

func TestAccessors(t *testing.T) {
	w, _ := sampleFile(t)
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want any, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	s, err := f.String("general.architecture")
	check("String", s, "qwen3", err)
	u32, err := f.Uint32("qwen3.block_count")
	check("Uint32", u32, uint32(28), err)
	u64, err := f.Uint64("t.u64")
	check("Uint64", u64, uint64(1)<<62, err)
	f32, err := f.Float32("qwen3.rope.freq_base")
	check("Float32", f32, float32(1e6), err)
	b, err := f.Bool("t.bool")
	check("Bool", b, true, err)
	for key, want := range map[string]int{"t.u8": 200, "t.i8": -100, "t.u16": 60000, "t.i16": -30000, "qwen3.block_count": 28, "t.i32": -2000000000, "t.u64": 1 << 62, "t.i64": -1 << 62} {
		n, err := f.Int(key)
		check("Int("+key+")", n, want, err)
	}
	fl, err := f.Float("t.f64")
	check("Float(f64)", fl, math.Pi, err)
	fl, err = f.Float("qwen3.rope.freq_base")
	check("Float(f32)", fl, 1e6, err)
	ss, err := f.Strings("tokenizer.ggml.tokens")
	check("Strings", ss, []string{"a", "Ġthe", "<|im_end|>", ""}, err)
	is, err := f.Ints("tokenizer.ggml.token_type")
	check("Ints", is, []int{1, 1, 3, 5}, err)
	is, err = f.Ints("t.au64")
	if err == nil {
		t.Errorf("Ints of 2^63 = %v, want an error", is)
	}
	fs, err := f.Floats("t.af32")
	check("Floats", fs, []float64{0.5, -1}, err)

	_, err = f.String("qwen3.block_count")
	if fe := wantFormatErr(t, err, `metadata "qwen3.block_count"`, anyOffset, "is UINT32, want STRING"); fe.Offset <= 24 {
		t.Errorf("metadata offset %d is inside the header", fe.Offset)
	}
	_, err = f.Uint32("t.u64")
	wantFormatErr(t, err, `metadata "t.u64"`, anyOffset, "is UINT64, want UINT32")
	_, err = f.Uint32("nope")
	assertErr(t, err, `metadata "nope": not found`)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("missing key error %v does not wrap ErrNotFound", err)
	}
	_, err = f.Strings("t.au8")
	wantFormatErr(t, err, `metadata "t.au8"`, anyOffset, "is ARRAY[UINT8], want ARRAY[STRING]")
	_, err = f.Float32("t.f64")
	wantFormatErr(t, err, `metadata "t.f64"`, anyOffset, "is FLOAT64, want FLOAT32")
	_, err = f.Int("general.architecture")
	wantFormatErr(t, err, `metadata "general.architecture"`, anyOffset, "string is not an integer")
	if _, err := f.TensorFloat32("missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing tensor: %v", err)
	}
}

// TestVersion2 checks that version 2 files (same layout as 3) are read.
func TestVersion2(t *testing.T) {
	w, want := sampleFile(t)
	w.version = 2
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.TensorFloat32("q6_k")
	if f.Version != 2 || err != nil || !reflect.DeepEqual(got, want["q6_k"]) {
		t.Errorf("v2: version %d, err %v", f.Version, err)
	}
}

// TestDefaultAlignment: without general.alignment the data section is aligned to 32.
func TestDefaultAlignment(t *testing.T) {
	w := &testFile{
		kvs:     []KV{{Key: "k", Value: Value{Type: TypeString, V: "abc"}}},
		tensors: []testTensor{{name: "a", dims: []uint64{3}, typ: TypeF32, data: f32Bytes(1, 2, 3)}, {name: "b", dims: []uint64{1}, typ: TypeF32, data: f32Bytes(4)}},
	}
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	if f.Alignment != 32 || f.DataOffset%32 != 0 || f.Tensors[1].Offset != 32 {
		t.Errorf("alignment %d, data offset %d, second tensor offset %d", f.Alignment, f.DataOffset, f.Tensors[1].Offset)
	}
}

func TestOpenMmapAndRead(t *testing.T) {
	w, want := sampleFile(t)
	path := filepath.Join(t.TempDir(), "sample.gguf")
	if err := os.WriteFile(path, w.build(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]Option{nil, {WithoutMmap()}} {
		f, err := Open(path, opts...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.TensorFloat32("q4_k")
		if err != nil || !reflect.DeepEqual(got, want["q4_k"]) {
			t.Errorf("opts %d: q4_k: %v", len(opts), err)
		}
		raw, err := f.TensorData("f32")
		if err != nil || len(raw) != 24 {
			t.Errorf("TensorData: %d bytes, %v", len(raw), err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if _, err := f.TensorData("f32"); err == nil {
			t.Errorf("TensorData after Close succeeded")
		}
		if err := f.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.gguf")); err == nil {
		t.Errorf("Open of a missing file succeeded")
	}
	empty := filepath.Join(t.TempDir(), "empty.gguf")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(empty)
	if fe := wantFormatErr(t, err, "header.magic", 0, "needs 4 bytes"); fe.File != empty {
		t.Errorf("FormatError.File = %q, want %q", fe.File, empty)
	}
}

// TestFloat32View: an F32 tensor of a mapped file is viewed in place, equal to the decoded copy.
func TestFloat32View(t *testing.T) {
	w, want := sampleFile(t)
	path := filepath.Join(t.TempDir(), "sample.gguf")
	if err := os.WriteFile(path, w.build(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := f.Float32View("f32")
	if err != nil || !reflect.DeepEqual(v, want["f32"]) {
		t.Errorf("Float32View = %v, %v; want %v", v, err, want["f32"])
	}
	raw, _ := f.TensorData("f32")
	if len(v) > 0 && &raw[0] != (*byte)(unsafe.Pointer(&v[0])) {
		t.Errorf("Float32View copied the data")
	}
	_, err = f.Float32View("q8_0")
	assertErr(t, err, `tensor "q8_0": Float32View needs F32 data, the tensor is Q8_0`)
}

// TestConfigFromGGUFMissing: a qwen3 file without its sizes names the missing key.
func TestConfigFromGGUFMissing(t *testing.T) {
	w := &testFile{kvs: []KV{{Key: "general.architecture", Value: Value{Type: TypeString, V: "qwen3"}}}}
	f, err := Parse(w.build())
	if err != nil {
		t.Fatal(err)
	}
	_, err = ConfigFromGGUF(f)
	assertErr(t, err, `metadata "qwen3.embedding_length": not found`)
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("%v does not wrap ErrNotFound", err)
	}
}
