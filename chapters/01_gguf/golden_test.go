package gguf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// The golden sample was written by gguf-py (scripts/make_reference.py): every metadata value type,
// nested arrays, and one tensor of each supported ggml type. Its expected.json lists what a correct
// reader must see, and <tensor>.npy the values gguf-py dequantized.

type goldenGGUF struct {
	Version    uint32            `json:"version"`
	Alignment  uint64            `json:"alignment"`
	DataOffset int64             `json:"data_offset"`
	ArrayTypes map[string]string `json:"array_types"`
	Metadata   []struct {
		Key   string `json:"key"`
		Type  string `json:"type"`
		Value any    `json:"value"`
	} `json:"metadata"`
	Tensors []struct {
		Name   string   `json:"name"`
		Type   string   `json:"type"`
		TypeID uint32   `json:"type_id"`
		Dims   []uint64 `json:"dims"`
		Offset uint64   `json:"offset"`
		Values string   `json:"values"`
	} `json:"tensors"`
}

func loadGolden(t *testing.T) (*File, *goldenGGUF) {
	t.Helper()
	raw, err := os.ReadFile(reference.Golden("01_gguf", "expected.json"))
	if err != nil {
		t.Fatalf("golden data missing (run scripts/make_reference.py): %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep 18000000000000000000 exact
	var g goldenGGUF
	if err := dec.Decode(&g); err != nil {
		t.Fatal(err)
	}
	f, err := Open(reference.Golden("01_gguf", "sample.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, &g
}

func TestGoldenSampleMetadata(t *testing.T) {
	f, g := loadGolden(t)
	if f.Version != g.Version || f.Alignment != g.Alignment || f.DataOffset != g.DataOffset {
		t.Errorf("version %d alignment %d data offset %d, want %d %d %d", f.Version, f.Alignment, f.DataOffset, g.Version, g.Alignment, g.DataOffset)
	}
	// gguf-py adds GGUF.* keys only in its reader view; the file holds exactly the listed entries.
	if len(f.Metadata) != len(g.Metadata) {
		t.Fatalf("%d metadata entries, want %d", len(f.Metadata), len(g.Metadata))
	}
	for i, want := range g.Metadata {
		got := f.Metadata[i]
		if got.Key != want.Key || got.Value.Type.String() != want.Type {
			t.Errorf("metadata[%d] = %q %s, want %q %s", i, got.Key, got.Value.Type, want.Key, want.Type)
			continue
		}
		if et, ok := g.ArrayTypes[want.Key]; ok && got.Value.Elem.String() != et {
			t.Errorf("%s: element type %s, want %s", want.Key, got.Value.Elem, et)
		}
		if err := sameValue(plain(got.Value), want.Value); err != nil {
			t.Errorf("%s: %v", want.Key, err)
		}
	}
}

// plain turns a Value into nested []any of Go scalars, the shape JSON gives.
func plain(v Value) any {
	if v.Type != TypeArray {
		return v.V
	}
	var out []any
	if a, ok := v.V.([]Value); ok {
		for _, e := range a {
			out = append(out, plain(e))
		}
		return out
	}
	_ = eachAny(v.V, func(e any) { out = append(out, e) })
	return out
}

// sameValue compares a Go value with a JSON-decoded one (numbers as json.Number), exactly.
func sameValue(got, want any) error {
	switch w := want.(type) {
	case json.Number:
		s := w.String()
		switch g := got.(type) {
		case float32:
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || float64(g) != x {
				return fmt.Errorf("got %v, want %s", g, s)
			}
		case float64:
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || g != x {
				return fmt.Errorf("got %v, want %s", g, s)
			}
		default:
			if fmt.Sprint(g) != s {
				return fmt.Errorf("got %v (%T), want %s", g, g, s)
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("got %v, want %v", got, want)
		}
		for i := range w {
			if err := sameValue(g[i], w[i]); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("got %#v, want %#v", got, want)
	}
	return nil
}

// TestGoldenSampleTensors: tolerance 0 — the dequantizers follow ggml's float32 arithmetic step by
// step, so they must reproduce gguf-py's values bit for bit.
func TestGoldenSampleTensors(t *testing.T) {
	checkQ8_0(t) // a wrong Q8_0 block reader is named here rather than seen as wrong numbers below
	f, g := loadGolden(t)
	if len(f.Tensors) != len(g.Tensors) {
		t.Fatalf("%d tensors, want %d", len(f.Tensors), len(g.Tensors))
	}
	for i, want := range g.Tensors {
		ti := f.Tensors[i]
		if ti.Name != want.Name || uint32(ti.Type) != want.TypeID || ti.Type.String() != want.Type ||
			!reflect.DeepEqual(ti.Dims, want.Dims) || ti.Offset != want.Offset {
			t.Errorf("tensor[%d] = %s %v %v @%d, want %s %s %v @%d", i, ti.Name, ti.Type, ti.Dims, ti.Offset, want.Name, want.Type, want.Dims, want.Offset)
			continue
		}
		ref, err := reference.LoadArray("01_gguf", want.Values)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ref.Shape, ti.Shape()) {
			t.Errorf("%s: Shape() %v, numpy shape %v", ti.Name, ti.Shape(), ref.Shape)
		}
		got, err := f.TensorFloat64(ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for j := range got {
			if got[j] != ref.Data[j] {
				if bad < 5 {
					t.Errorf("%s[%d] = %v, want %v", ti.Name, j, got[j], ref.Data[j])
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d values differ", ti.Name, bad, len(got))
		}
	}
}
