package gguf

import (
	"os"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// maxFuzzValues bounds how much a fuzzed tensor may decode, to keep each input fast.
const maxFuzzValues = 1 << 16

// FuzzGGUF feeds arbitrary bytes to Parse. A file either fails with an error or parses into a
// File whose every tensor lies inside the input and can be decoded without panicking.
// Seeds: testdata/fuzz/FuzzGGUF plus the files built below.
func FuzzGGUF(f *testing.F) {
	w, _ := sampleFile(&testing.T{})
	f.Add(w.build())
	f.Add(tensorFile(testTensor{name: "a", dims: []uint64{8}, typ: TypeF32, data: make([]byte, 32)}))
	if b, err := os.ReadFile(reference.Golden("01_gguf", "sample.gguf")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Parse(b)
		if err != nil {
			if file != nil {
				t.Fatalf("Parse returned both a file and an error: %v", err)
			}
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
		_, _ = ConfigFromGGUF(file)
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
				if _, err := file.TensorFloat32(ti.Name); err != nil {
					t.Fatalf("tensor %q: %v", ti.Name, err)
				}
			}
		}
		v := HFView(file)
		for _, n := range v.TensorNames() {
			_, _ = v.TensorShape(n)
		}
	})
}

// FuzzSafetensors feeds arbitrary bytes to ParseSafetensors; valid files must decode their float tensors.
func FuzzSafetensors(f *testing.F) {
	f.Add(goodST(&testing.T{}))
	f.Add(stFile(`{"a":{"dtype":"BF16","shape":[2,1],"data_offsets":[0,4]},"__metadata__":{"k":"v"}}`, []byte{1, 2, 3, 4}))
	f.Add(stFile(`{}`, nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSafetensors(b)
		if err != nil {
			return
		}
		var at int64
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
		}
		if at != s.Size-s.DataOffset {
			t.Fatalf("tensors end at %d, buffer has %d bytes", at, s.Size-s.DataOffset)
		}
	})
}
