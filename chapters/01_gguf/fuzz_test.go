package gguf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// The fuzz targets of chapter 01: every reader of a file a user hands the course (a GGUF file, a
// safetensors file, config.json in its two forms, a sharded checkpoint's index). Each asserts more
// than "no panic": an accepted input reads back the same through a writer (or satisfies its
// invariants), an error says what and where (a *FormatError with a field and a byte of the input),
// and reading n bytes allocates at most reference.AllocBound(n, perByte), so that a count or a
// size the input claims is never trusted before the bytes behind it are seen. Run one for ten
// minutes with
//
//	nice -n 10 go test -run '^$' -fuzz '^FuzzGGUF$' -fuzztime 10m -parallel 1 ./chapters/01_gguf
//
// Inputs that once failed are kept as seeds in testdata/fuzz/<target>/ and run by plain go test.

// maxFuzzValues bounds how much a fuzzed tensor may decode, to keep each input fast.
const maxFuzzValues = 1 << 16

// Allocation per input byte a reader may need. A GGUF metadata entry of 13 bytes (the smallest)
// becomes a KV of 56 bytes, an index entry and a field name: about 12 bytes per byte, so 32 leaves
// room. encoding/json turns "[]" (2 bytes) into an interface and a slice header (40 bytes) and
// grows slices by doubling: 64.
const (
	binaryAllocPerByte = 32
	jsonAllocPerByte   = 64
)

// checkFormatErrors asserts that err (possibly an errors.Join of several) is made of
// *FormatErrors of the given format, each naming a field, saying what is wrong, and pointing at a
// byte of the input (or -1, not known). A reader may only say "where" if where is in the file.
func checkFormatErrors(t *testing.T, err error, format string, size int) {
	t.Helper()
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		leaves = append(leaves, e)
	}
	walk(err)
	for _, e := range leaves {
		fe, ok := e.(*FormatError)
		if !ok {
			t.Fatalf("error %q (%T) is not a *FormatError: it cannot say where", e, e)
		}
		if fe.Format != format || fe.Field == "" || fe.Msg == "" {
			t.Fatalf("error %q: format %q, field %q, message %q: want format %q, a field and a message", e, fe.Format, fe.Field, fe.Msg, format)
		}
		if fe.Offset < -1 || fe.Offset > int64(size) && fe.Field != "data section" {
			t.Fatalf("error %q: byte %d is outside the %d-byte input", e, fe.Offset, size)
		}
	}
}

// FuzzGGUF feeds arbitrary bytes to Parse. A file either fails with a *FormatError that points
// into it, or parses into a File whose every tensor lies inside the input and decodes, and which
// the test writer (writer_test.go) writes back into a file that parses to the same metadata and
// tensors. Parsing allocates at most binaryAllocPerByte per input byte.
// Seeds: testdata/fuzz/FuzzGGUF plus the files built below.
func FuzzGGUF(f *testing.F) {
	w, _ := sampleFile(&testing.T{})
	f.Add(w.build())
	f.Add(tensorFile(testTensor{name: "a", dims: []uint64{8}, typ: TypeF32, data: make([]byte, 32)}))
	if b, err := os.ReadFile(reference.Golden("01_gguf", "sample.gguf")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var file *File
		var err error
		if e := reference.CheckAllocBound(len(b), binaryAllocPerByte, func() {
			if file, err = Parse(b); err == nil {
				_, _ = ConfigFromGGUF(file)
			}
		}); e != nil {
			t.Fatal(e)
		}
		if err != nil {
			if file != nil {
				t.Fatalf("Parse returned both a file and an error: %v", err)
			}
			checkFormatErrors(t, err, "gguf", len(b))
			return
		}
		for _, kv := range file.Metadata {
			_, _ = file.Int(kv.Key)
			_, _ = file.Strings(kv.Key)
			_, _ = file.Ints(kv.Key)
			_, _ = file.Floats(kv.Key)
			_, _ = file.Float(kv.Key)
			_ = kv.Value.Len()
		}
		if _, err := ConfigFromGGUF(file); err != nil && !errors.Is(err, ErrNotFound) {
			checkFormatErrors(t, err, "gguf", len(b))
		}
		for _, ti := range file.Tensors {
			raw, err := file.TensorData(ti.Name)
			if err != nil || int64(len(raw)) != ti.NumBytes() {
				t.Fatalf("tensor %q: %d bytes, %v", ti.Name, len(raw), err)
			}
			if end := file.DataOffset + int64(ti.Offset) + ti.NumBytes(); end > int64(len(b)) {
				t.Fatalf("tensor %q ends at %d, past %d", ti.Name, end, len(b))
			}
			_ = ti.Shape()
			if ti.Type.CanDequantize() && ti.NumElements() <= maxFuzzValues {
				v, err := file.TensorFloat32(ti.Name)
				if err != nil || int64(len(v)) != ti.NumElements() {
					t.Fatalf("tensor %q: %d values of %d, %v", ti.Name, len(v), ti.NumElements(), err)
				}
			}
		}
		v := HFView(file)
		for _, n := range v.TensorNames() {
			_, _ = v.TensorShape(n)
		}
		checkGGUFRoundTrip(t, file)
	})
}

// checkGGUFRoundTrip writes an accepted file again with the test writer and parses it: the same
// version, alignment, metadata (compared as encoded bytes, so that NaN floats compare) and tensors.
func checkGGUFRoundTrip(t *testing.T, file *File) {
	t.Helper()
	w := &testFile{version: file.Version, alignment: file.Alignment, kvs: file.Metadata}
	for _, ti := range file.Tensors {
		raw, _ := file.TensorData(ti.Name)
		w.tensors = append(w.tensors, testTensor{name: ti.Name, dims: ti.Dims, typ: ti.Type, data: raw})
	}
	again, err := Parse(w.build())
	if err != nil {
		t.Fatalf("the file written again does not parse: %v", err)
	}
	if again.Version != file.Version || again.Alignment != file.Alignment || len(again.Metadata) != len(file.Metadata) ||
		len(again.Tensors) != len(file.Tensors) {
		t.Fatalf("written again: version %d, alignment %d, %d keys, %d tensors; was %d, %d, %d, %d", again.Version,
			again.Alignment, len(again.Metadata), len(again.Tensors), file.Version, file.Alignment, len(file.Metadata), len(file.Tensors))
	}
	for i, kv := range file.Metadata {
		got := again.Metadata[i]
		if got.Key != kv.Key || got.Value.Type != kv.Value.Type || got.Value.Elem != kv.Value.Elem ||
			!bytes.Equal(encodeValue(nil, got.Value), encodeValue(nil, kv.Value)) {
			t.Fatalf("metadata %d: %q %s %v written again reads %q %s %v", i, kv.Key, kv.Value.TypeName(), kv.Value.V,
				got.Key, got.Value.TypeName(), got.Value.V)
		}
	}
	for i, ti := range file.Tensors {
		got := again.Tensors[i]
		a, _ := file.TensorData(ti.Name)
		b, _ := again.TensorData(got.Name)
		if got.Name != ti.Name || got.Type != ti.Type || !slices.Equal(got.Dims, ti.Dims) || !bytes.Equal(a, b) {
			t.Fatalf("tensor %d %q %v %v written again reads %q %v %v", i, ti.Name, ti.Type, ti.Dims, got.Name, got.Type, got.Dims)
		}
	}
}

// FuzzSafetensors feeds arbitrary bytes to ParseSafetensors. A file either fails with a
// *FormatError that points into it, or its tensors tile the data buffer, decode, and a header
// written again from them (json.Marshal) parses to the same tensors and metadata.
func FuzzSafetensors(f *testing.F) {
	f.Add(goodST(&testing.T{}))
	f.Add(stFile(`{"a":{"dtype":"BF16","shape":[2,1],"data_offsets":[0,4]},"__metadata__":{"k":"v"}}`, []byte{1, 2, 3, 4}))
	f.Add(stFile(`{}`, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		var s *Safetensors
		var err error
		if e := reference.CheckAllocBound(len(b), jsonAllocPerByte, func() { s, err = ParseSafetensors(b) }); e != nil {
			t.Fatal(e)
		}
		if err != nil {
			checkFormatErrors(t, err, "safetensors", len(b))
			return
		}
		var at int64
		header := map[string]any{}
		for _, tt := range s.Tensors {
			if tt.Begin != at {
				t.Fatalf("tensor %q begins at %d, previous ended at %d", tt.Name, tt.Begin, at)
			}
			at = tt.End
			raw, err := s.TensorData(tt.Name)
			if err != nil || int64(len(raw)) != tt.End-tt.Begin {
				t.Fatalf("tensor %q: %d bytes, %v", tt.Name, len(raw), err)
			}
			if len(raw) <= 4*maxFuzzValues {
				switch tt.DType {
				case "F32", "F16", "BF16", "F64":
					if _, err := s.TensorFloat64(tt.Name); err != nil {
						t.Fatalf("tensor %q: %v", tt.Name, err)
					}
				}
			}
			header[tt.Name] = ent(tt.DType, tt.Shape, int(tt.Begin), int(tt.End))
		}
		if at != s.Size-s.DataOffset {
			t.Fatalf("tensors end at %d, buffer has %d bytes", at, s.Size-s.DataOffset)
		}
		if s.Metadata != nil {
			header["__metadata__"] = s.Metadata
		}
		h, err := json.Marshal(header)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseSafetensors(stFile(string(h), b[s.DataOffset:]))
		if err != nil {
			t.Fatalf("the header written again, %s, does not parse: %v", h, err)
		}
		if !reflect.DeepEqual(again.Tensors, s.Tensors) || !maps.Equal(again.Metadata, s.Metadata) {
			t.Fatalf("written again as %s: tensors %v, metadata %v; were %v, %v", h, again.Tensors, again.Metadata, s.Tensors, s.Metadata)
		}
	})
}

// FuzzConfig feeds arbitrary bytes to ParseConfig. Every problem is a *FormatError of
// config.json, and one that names a key points at the byte where the key is written; an accepted
// config passes Validate and reads back the same from json.Marshal of itself.
func FuzzConfig(f *testing.F) {
	f.Add([]byte(hubConfig))
	f.Add([]byte(v5Config()))
	if b, err := os.ReadFile(filepath.Join(reference.TinyHFDir(), "config.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"rope_scaling": {"type": "yarn", "factor": 4}, "eos_token_id": [1, 2], "layer_types": ["sliding_attention"]}`))
	f.Add([]byte(`{"rope_parameters": {"full_attention": {"rope_theta": 1}}, "hidden_size": "1024"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		var err error
		if e := reference.CheckAllocBound(len(data), jsonAllocPerByte, func() { c, err = ParseConfig(data) }); e != nil {
			t.Fatal(e)
		}
		if err != nil {
			checkFormatErrors(t, err, "config.json", len(data))
			eachFormatError(err, func(fe *FormatError) {
				key := fe.Field[strings.LastIndex(fe.Field, ".")+1:]
				key, _, _ = strings.Cut(key, "[")
				if fe.Field != "JSON" && fe.Msg != "has the wrong type" && fe.Offset >= 0 && !isKeyAt(data, fe.Offset, key) {
					t.Fatalf("error %q: byte %d is not where the key %q is written: %.30q", fe, fe.Offset, key, data[fe.Offset:])
				}
			})
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseConfig accepted a config that Validate refuses: %v", err)
		}
		again := c
		again.RopeType = "" // not a config.json key: ParseConfig fills in "default"
		b, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseConfig(b)
		if err != nil {
			t.Fatalf("the config written again, %s, does not parse: %v", b, err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("written again as %s, the config reads %+v, was %+v", b, got, c)
		}
	})
}

// isKeyAt reports whether the JSON key "key" is written at byte off of data: the quoted name, then
// a colon (a string value that happens to spell the key is not where the key is).
func isKeyAt(data []byte, off int64, key string) bool {
	rest, ok := bytes.CutPrefix(data[off:], []byte(`"`+key+`"`))
	return ok && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(":"))
}

// FuzzConfigForms writes one configuration three ways: config.json as the hub serves it
// (top-level rope_theta, torch_dtype), as transformers 5 writes it (rope_parameters, dtype,
// layer_types), and as a GGUF file's qwen3.* metadata. The three must agree: the same Config
// (GGUF has no dtype), or an error from each.
func FuzzConfigForms(f *testing.F) {
	q := Qwen3_0_6B()
	f.Add(q.HiddenSize, q.IntermediateSize, q.NumHiddenLayers, q.NumAttentionHeads, q.NumKeyValueHeads, q.HeadDim,
		uint16(q.VocabSize), q.MaxPositionEmbeddings, float32(q.RopeTheta), float32(q.RMSNormEps), true, "")
	f.Add(64, 192, 6, 4, 2, 32, uint16(300), 40960, float32(1e6), float32(1e-6), false, "yarn")
	f.Add(64, 192, 6, 4, 3, 0, uint16(1), 0, float32(0), float32(-1), true, "default")
	f.Fuzz(func(t *testing.T, hidden, inter, layers, heads, kvHeads, headDim int, vocab uint16, ctx int, theta, eps float32, tied bool, ropeType string) {
		layers %= 64 // layer_types lists them all
		vocab %= 4096
		if ropeType == "none" {
			return // GGUF's spelling of the default RoPE; config.json has no such rope_type
		}
		// The GGUF reader widens a FLOAT32 through its shortest decimal; config.json holds that decimal.
		dec := func(x float32) float64 {
			v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
			return v
		}
		if math.IsNaN(float64(theta)) || math.IsInf(float64(theta), 0) || math.IsNaN(float64(eps)) || math.IsInf(float64(eps), 0) {
			return // JSON has no NaN or infinity
		}
		want := Config{Architectures: []string{"Qwen3ForCausalLM"}, ModelType: "qwen3", HiddenSize: hidden,
			IntermediateSize: inter, NumHiddenLayers: layers, NumAttentionHeads: heads, NumKeyValueHeads: kvHeads,
			HeadDim: headDim, VocabSize: int(vocab), MaxPositionEmbeddings: ctx, RopeTheta: dec(theta), RMSNormEps: dec(eps),
			TieWordEmbeddings: tied, BOSTokenID: -1, EOSTokenID: -1}
		common := func() map[string]any {
			return map[string]any{"architectures": want.Architectures, "model_type": "qwen3", "hidden_size": hidden,
				"intermediate_size": inter, "num_hidden_layers": layers, "num_attention_heads": heads,
				"num_key_value_heads": kvHeads, "vocab_size": want.VocabSize, "max_position_embeddings": ctx,
				"rms_norm_eps": want.RMSNormEps, "tie_word_embeddings": tied, "bos_token_id": nil, "eos_token_id": nil,
				"hidden_act": "silu", "use_sliding_window": false, "attention_bias": false}
		}
		hub, v5 := common(), common()
		if headDim != 0 {
			hub["head_dim"], v5["head_dim"] = headDim, headDim
		}
		hub["rope_theta"], hub["torch_dtype"], v5["dtype"] = want.RopeTheta, "bfloat16", "bfloat16"
		hub["rope_scaling"] = nil
		v5["rope_parameters"] = map[string]any{"rope_theta": want.RopeTheta, "rope_type": "default"}
		if ropeType != "" {
			hub["rope_scaling"] = map[string]any{"rope_type": ropeType, "factor": 4.0}
			v5["rope_parameters"] = map[string]any{"rope_theta": want.RopeTheta, "rope_type": ropeType, "factor": 4.0}
		}
		v5["layer_types"] = slices.Repeat([]string{"full_attention"}, max(layers, 0))
		var results []string
		var configs []Config
		for _, form := range []map[string]any{hub, v5} {
			b, err := json.Marshal(form)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseConfig(b)
			configs = append(configs, c)
			results = append(results, fmt.Sprintf("%s: %v", b, err))
		}

		gw := &testFile{kvs: []KV{
			{Key: "general.architecture", Value: Value{Type: TypeString, V: "qwen3"}},
			{Key: "qwen3.embedding_length", Value: Value{Type: TypeInt64, V: int64(hidden)}},
			{Key: "qwen3.feed_forward_length", Value: Value{Type: TypeInt64, V: int64(inter)}},
			{Key: "qwen3.block_count", Value: Value{Type: TypeInt64, V: int64(layers)}},
			{Key: "qwen3.attention.head_count", Value: Value{Type: TypeInt64, V: int64(heads)}},
			{Key: "qwen3.attention.head_count_kv", Value: Value{Type: TypeInt64, V: int64(kvHeads)}},
			{Key: "qwen3.context_length", Value: Value{Type: TypeInt64, V: int64(ctx)}},
			{Key: "qwen3.rope.freq_base", Value: Value{Type: TypeFloat32, V: theta}},
			{Key: "qwen3.attention.layer_norm_rms_epsilon", Value: Value{Type: TypeFloat32, V: eps}},
			{Key: "tokenizer.ggml.tokens", Value: Value{Type: TypeArray, Elem: TypeString, V: make([]string, vocab)}},
		}}
		if headDim != 0 {
			gw.kvs = append(gw.kvs, KV{Key: "qwen3.attention.key_length", Value: Value{Type: TypeInt64, V: int64(headDim)}})
		}
		switch ropeType {
		case "":
		case "default":
			gw.kvs = append(gw.kvs, KV{Key: "qwen3.rope.scaling.type", Value: Value{Type: TypeString, V: "none"}})
		default:
			gw.kvs = append(gw.kvs, KV{Key: "qwen3.rope.scaling.type", Value: Value{Type: TypeString, V: ropeType}})
		}
		if !tied {
			gw.tensors = []testTensor{{name: "output.weight", dims: []uint64{8}, typ: TypeF32, data: make([]byte, 32)}}
		}
		file, err := Parse(gw.build())
		if err != nil {
			t.Fatal(err)
		}
		c, err := ConfigFromGGUF(file)
		c.DType = "bfloat16" // the one thing GGUF does not say
		configs = append(configs, c)
		results = append(results, fmt.Sprintf("GGUF: %v", err))

		ok := 0
		for i, r := range results {
			if strings.HasSuffix(r, ": <nil>") {
				ok++
				if want.RopeType, want.DType = "default", "bfloat16"; want.HeadDim == 0 && heads > 0 {
					want.HeadDim = hidden / heads
				}
				if !reflect.DeepEqual(configs[i], want) {
					t.Fatalf("%s\nreads %+v, want %+v", r, configs[i], want)
				}
			}
		}
		if ok != 0 && ok != len(results) {
			t.Fatalf("the forms disagree:\n%s", strings.Join(results, "\n"))
		}
	})
}

// FuzzCheckpointIndex gives OpenCheckpoint a directory whose model.safetensors.index.json is
// the input, beside config.json and two shards. An index is accepted only when every tensor it
// lists is in the shard it names and every shard name is a plain file name (never a path out of
// the directory); a refusal is a *FormatError naming the index or a shard.
func FuzzCheckpointIndex(f *testing.F) {
	f.Add([]byte(`{"metadata": {"total_size": 40}, "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map": {"a": "../model-00001-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map": {"b": "model-00001-of-00002.safetensors"}}`))
	f.Add([]byte(`{"weight_map": {}}`))
	dir := f.TempDir()
	shard := func(name string) []byte {
		return stFile(fmt.Sprintf(`{%q:{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, name), f32Bytes(1, 2))
	}
	for name, b := range map[string][]byte{
		"config.json": []byte(hubConfig), "model-00001-of-00002.safetensors": shard("a"),
		"model-00002-of-00002.safetensors": shard("b"), "model.safetensors": shard("c"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	index := filepath.Join(dir, "model.safetensors.index.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(index, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var idx struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		_ = json.Unmarshal(data, &idx)
		c, err := OpenCheckpoint(dir)
		if err != nil {
			var fe *FormatError
			var pe *fs.PathError
			if !(errors.As(err, &fe) && strings.HasPrefix(fe.File, dir) || errors.As(err, &pe) && strings.HasPrefix(pe.Path, dir)) {
				t.Fatalf("error %v does not name the index or a shard", err)
			}
			return
		}
		defer c.Close()
		if len(idx.WeightMap) == 0 {
			t.Fatalf("an index without a weight map was accepted: %q", data)
		}
		for name, file := range idx.WeightMap {
			if file != filepath.Base(file) {
				t.Fatalf("shard %q, a path, was accepted", file)
			}
			if _, err := c.TensorFloat32(name); err != nil {
				t.Fatalf("tensor %q listed in an accepted index: %v", name, err)
			}
		}
	})
}
