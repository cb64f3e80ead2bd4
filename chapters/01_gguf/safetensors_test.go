package gguf

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// stFile builds a safetensors file from a JSON header and a data buffer.
func stFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

// stHeader encodes entries {name: {dtype, shape, data_offsets}} as JSON.
func stHeader(t *testing.T, entries map[string]any) string {
	b, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ent(dtype string, shape []int, begin, end int) map[string]any {
	return map[string]any{"dtype": dtype, "shape": shape, "data_offsets": []int{begin, end}}
}

func goodST(t *testing.T) []byte {
	data := f32Bytes(1, 2, 3, 4, 5, 6)                      // a: F32 [2,3], bytes 0..24
	data = append(data, 0x80, 0x3f, 0x00, 0x40)             // b: BF16 [2] = 1, 2, bytes 24..28
	data = append(data, 0x00, 0x3c, 0x00, 0xc0, 0x00, 0x00) // c: F16 [3] = 1, -2, 0, bytes 28..34
	h := stHeader(t, map[string]any{
		"__metadata__": map[string]string{"format": "pt"},
		"a":            ent("F32", []int{2, 3}, 0, 24),
		"b":            ent("BF16", []int{2}, 24, 28),
		"c":            ent("F16", []int{3}, 28, 34),
	})
	return stFile(h+"   ", data) // the header may end in spaces
}

func TestSafetensors(t *testing.T) {
	s, err := ParseSafetensors(goodST(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Metadata["format"] != "pt" || len(s.Tensors) != 3 {
		t.Errorf("metadata %v, %d tensors", s.Metadata, len(s.Tensors))
	}
	for name, want := range map[string][]float32{"a": {1, 2, 3, 4, 5, 6}, "b": {1, 2}, "c": {1, -2, 0}} {
		got, err := s.TensorFloat32(name)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
	if a, _ := s.Tensor("a"); !reflect.DeepEqual(a.Shape, []int{2, 3}) {
		t.Errorf("shape %v", a.Shape)
	}
	if _, err := s.TensorFloat32("zz"); err == nil {
		t.Error("missing tensor: no error")
	}
}

func TestSafetensorsBad(t *testing.T) {
	f32 := f32Bytes(1, 2, 3, 4)
	huge := binary.LittleEndian.AppendUint64(nil, 200_000_000)
	past := binary.LittleEndian.AppendUint64(nil, 100)
	// Headers whose byte offsets the expected messages spell out.
	h1 := stHeader(t, map[string]any{"a": ent("F32", []int{3}, 0, 16)})
	h2 := stHeader(t, map[string]any{"a": ent("F32", []int{8}, 0, 32)})
	h3 := stHeader(t, map[string]any{"a": ent("F32", []int{1}, 0, 4), "b": ent("F32", []int{2}, 8, 16)})
	d1, d2, d3 := 8+len(h1), 8+len(h2), 8+len(h3)
	e1 := int64(9) // the first (only) entry's key is at header byte 9: after the length and `{`
	for _, c := range []struct {
		name  string
		b     []byte
		field string
		at    int64
		msg   []string
	}{
		{"short", []byte{1, 2, 3}, "header length", 0, []string{"needs 8 bytes"}},
		{"header > 100 MB", append(huge, make([]byte, 16)...), "header length", 0, []string{"200000000 bytes exceeds the 100000000-byte limit"}},
		{"header past EOF", append(past, `{}`...), "header length", 0, []string{"would end at byte 108, beyond the file's 10"}},
		{"bad JSON", stFile(`{"a": [}`, nil), "header JSON", 15, []string{"does not parse"}},
		{"unknown dtype", stFile(stHeader(t, map[string]any{"a": ent("Q4", []int{4}, 0, 16)}), f32), `tensor "a"`, e1, []string{`unknown dtype "Q4"`}},
		{"length mismatch", stFile(h1, f32), `tensor "a"`, e1, []string{`F32 [3] needs 12 bytes, but data_offsets [0, 16]`, fmt.Sprintf("bytes %d..%d of the file", d1, d1+16)}},
		{"dtype mismatch", stFile(stHeader(t, map[string]any{"a": ent("F16", []int{4}, 0, 16)}), f32), `tensor "a"`, e1, []string{`F16 [4] needs 8 bytes`}},
		{"data past EOF", stFile(h2, f32), `tensor "a"`, e1, []string{fmt.Sprintf(`data ends at byte %d, beyond the file's %d`, d2+32, d2+16)}},
		{"hole", stFile(h3, f32), `tensor "b"`, anyOffset, []string{fmt.Sprintf(`data starts at byte %d, leaving a hole of 4 bytes after tensor "a" (ends at byte %d)`, d3+8, d3+4)}},
		{"hole at start", stFile(stHeader(t, map[string]any{"a": ent("F32", []int{3}, 4, 16)}), f32), `tensor "a"`, e1, []string{`hole of 4 bytes after the start of the data buffer`}},
		{"overlap", stFile(stHeader(t, map[string]any{"a": ent("F32", []int{3}, 0, 12), "b": ent("F32", []int{2}, 8, 16)}), f32),
			`tensor "b"`, anyOffset, []string{`data at bytes`, `overlaps tensor "a"`}},
		{"trailing bytes", stFile(stHeader(t, map[string]any{"a": ent("F32", []int{3}, 0, 12)}), f32), "data buffer", anyOffset, []string{"4 more bytes"}},
		{"negative dim", stFile(stHeader(t, map[string]any{"a": ent("F32", []int{-4}, 0, 16)}), f32), `tensor "a"`, e1, []string{`shape [-4] has a negative dimension`}},
		{"reversed offsets", stFile(stHeader(t, map[string]any{"a": ent("F32", []int{4}, 16, 0)}), f32), `tensor "a"`, e1, []string{`data_offsets [16, 0] are not an increasing range`}},
		{"shape overflow", stFile(stHeader(t, map[string]any{"a": ent("F32", []int{1 << 62, 1 << 62}, 0, 16)}), f32), `tensor "a"`, e1, []string{"byte size overflows"}},
		{"unknown field", stFile(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16],"x":1}}`, f32), `tensor "a"`, e1, []string{`bad header entry`}},
		{"bad metadata", stFile(`{"__metadata__":{"a":1}}`, nil), "__metadata__", e1, []string{"must map strings to strings"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseSafetensors(c.b)
			wantFormatErr(t, err, c.field, c.at, c.msg...)
		})
	}
}

func TestSafetensorsTruncatedEverywhere(t *testing.T) {
	b := goodST(t)
	for n := range len(b) {
		if _, err := ParseSafetensors(b[:n]); err == nil {
			t.Fatalf("prefix of %d/%d bytes parsed", n, len(b))
		}
	}
}

// TestShardedCheckpoint writes a two-shard directory with an index and reads it back.
func TestShardedCheckpoint(t *testing.T) {
	dir := t.TempDir()
	cfg := Qwen3_0_6B()
	cb, _ := json.Marshal(cfg)
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("config.json", cb)
	write("model-00001-of-00002.safetensors", stFile(stHeader(t, map[string]any{"model.norm.weight": ent("F32", []int{2}, 0, 8)}), f32Bytes(1, 2)))
	write("model-00002-of-00002.safetensors", stFile(stHeader(t, map[string]any{"lm_head.weight": ent("BF16", []int{1, 1}, 0, 2)}), []byte{0x40, 0x40}))
	index := `{"metadata":{"total_size":10},"weight_map":{"model.norm.weight":"model-00001-of-00002.safetensors","lm_head.weight":"model-00002-of-00002.safetensors"}}`
	write("model.safetensors.index.json", []byte(index))
	c, err := OpenCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !reflect.DeepEqual(c.TensorNames(), []string{"lm_head.weight", "model.norm.weight"}) {
		t.Errorf("names %v", c.TensorNames())
	}
	if v, err := c.TensorFloat64("lm_head.weight"); err != nil || !reflect.DeepEqual(v, []float64{3}) {
		t.Errorf("lm_head = %v, %v", v, err)
	}
	if raw, err := c.TensorData("lm_head.weight"); err != nil || len(raw) != 2 || raw[1] != 0x40 {
		t.Errorf("TensorData(lm_head) = %v, %v", raw, err)
	}
	if _, err := c.TensorData("nope"); err == nil {
		t.Errorf("TensorData of a missing tensor succeeded")
	}
	if c.Config.HeadDim != 128 || c.Config.NumKeyValueHeads != 8 {
		t.Errorf("config %+v", c.Config)
	}

	write("model.safetensors.index.json", []byte(`{"weight_map":{"model.norm.weight":"../etc/passwd"}}`))
	_, err = OpenCheckpoint(dir)
	wantFormatErr(t, err, `weight_map["model.norm.weight"]`, -1, `shard "../etc/passwd" is not a plain file name`)
	write("model.safetensors.index.json", []byte(`{"weight_map":{"model.norm.weight":"model-00002-of-00002.safetensors"}}`))
	_, err = OpenCheckpoint(dir)
	wantFormatErr(t, err, `weight_map["model.norm.weight"]`, -1, `says the tensor is in model-00002-of-00002.safetensors, but it is not`)
	write("config.json", []byte(`{"hidden_size": 64, "num_attention_heads": 3, "num_key_value_heads": 2}`))
	_, err = ReadConfig(filepath.Join(dir, "config.json"))
	wantFormatErr(t, err, "intermediate_size", -1, "0 must be positive") // the first of the joined errors
	var found bool
	eachFormatError(err, func(fe *FormatError) {
		found = found || fe.Field == "num_attention_heads" && fe.Offset == 20 && strings.Contains(fe.Msg, "not a multiple of num_key_value_heads")
	})
	if !found {
		t.Errorf("%v: no FormatError for num_attention_heads at byte 20", err)
	}
}

func TestSafetensorsF64(t *testing.T) {
	var data []byte
	data = binary.LittleEndian.AppendUint64(data, math.Float64bits(math.Pi))
	s, err := ParseSafetensors(stFile(stHeader(t, map[string]any{"x": ent("F64", []int{1}, 0, 8)}), data))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.TensorFloat64("x"); err != nil || v[0] != math.Pi {
		t.Errorf("F64: %v %v", v, err)
	}
}
