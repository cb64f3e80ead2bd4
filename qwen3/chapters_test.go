package qwen3

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// The engine against chapter 07, the float64 forward pass, on the same weight values: for the
// tiny model as stored (BF16) and re-encoded in every type the kernels read (F32, F16, Q8_0).
// Chapter 07 reads the re-encoded weights through chapter 01's dequantizer. DESIGN.md's tolerance:
// 1e-4 relative to the largest logit (float32 against float64).

var engineTypes = []DType{BF16, F32, F16, Q8_0}

func TestEngineMatchesChapter07(t *testing.T) {
	const tol = 1e-4
	base := loadTiny(t, reference.TinyGGUF())
	cfg, err := gguf.ReadConfig(reference.TinyHFDir() + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{785, 6722, 315, 9625, 374, 12095, 13, 576, 6722, 315} // "The capital of France is Paris. The capital of"
	for _, dt := range engineTypes {
		t.Run(dt.String(), func(t *testing.T) {
			m := convert(t, base, dt)
			ref, err := forward.FromSource(modelSource{m}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Forward(ids)
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.NewSession(32)
			if err != nil {
				t.Fatal(err)
			}
			var worst, scale float64
			for i, id := range ids {
				logits, err := s.Step(id)
				if err != nil {
					t.Fatal(err)
				}
				for c, v := range logits {
					w := want.At(i, c)
					worst = math.Max(worst, math.Abs(float64(v)-w))
					scale = math.Max(scale, math.Abs(w))
				}
			}
			if worst > tol*scale {
				t.Errorf("%v: engine logits differ from chapter 07 by %.3g (largest logit %.3g, tolerance %g relative)", dt, worst, scale, tol)
			} else {
				t.Logf("%v: max |Δ| %.3g, %.2g relative", dt, worst, worst/scale)
			}
			// The same ids as one prefill chunk (the prompt path decodes each row once).
			s.Reset()
			logits, err := s.Prefill(t.Context(), ids)
			if err != nil {
				t.Fatal(err)
			}
			last := len(ids) - 1
			for c, v := range logits {
				if d := math.Abs(float64(v) - want.At(last, c)); d > tol*scale {
					t.Fatalf("%v prefill: logit %d differs from chapter 07 by %.3g", dt, c, d)
				}
			}
		})
	}
}

// convert returns a copy of m whose matrices are re-encoded as dt (norms stay float32).
func convert(t testing.TB, m *Model, dt DType) *Model {
	t.Helper()
	c := *m
	c.layers = slices.Clone(m.layers)
	enc := func(w *Matrix) *Matrix {
		row := make([]float32, w.Cols)
		var raw []byte
		for r := 0; r < w.Rows; r++ {
			w.Row(r, row)
			raw = append(raw, encodeRow(row, dt)...)
		}
		out, err := newMatrix("converted", dt, w.Rows, w.Cols, raw)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for i := range c.layers {
		l := &c.layers[i]
		l.q, l.k, l.v, l.o = enc(l.q), enc(l.k), enc(l.v), enc(l.o)
		l.gate, l.up, l.down = enc(l.gate), enc(l.up), enc(l.down)
	}
	c.embed = enc(m.embed)
	c.head = c.embed
	c.Type = dt
	return &c
}

func encodeRow(x []float32, dt DType) []byte {
	var out []byte
	switch dt {
	case F32:
		for _, v := range x {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	case BF16:
		for _, v := range x {
			out = binary.LittleEndian.AppendUint16(out, uint16(math.Float32bits(v)>>16)) // exact for BF16 values
		}
	case F16:
		for _, v := range x {
			out = binary.LittleEndian.AppendUint16(out, gguf.F32ToF16(v))
		}
	case Q8_0:
		q, err := gguf.QuantizeQ8_0(x)
		if err != nil {
			panic(err) // rows of the test models are multiples of 32 wide
		}
		out = q
	}
	return out
}

// modelSource shows an engine Model's weights to chapter 07 through chapter 01's TensorSource,
// dequantized by chapter 01.
type modelSource struct{ m *Model }

func (s modelSource) lookup(name string) (*Matrix, []float32, error) {
	if name == "model.embed_tokens.weight" {
		return s.m.embed, nil, nil
	}
	if name == "model.norm.weight" {
		return nil, s.m.norm, nil
	}
	var i int
	var rest string
	if _, err := fmt.Sscanf(name, "model.layers.%d.", &i); err != nil || i >= len(s.m.layers) {
		return nil, nil, fmt.Errorf("no tensor %q: %w", name, gguf.ErrNotFound)
	}
	rest = name[strings.Index(name[len("model.layers."):], ".")+len("model.layers.")+1:]
	l := s.m.layers[i]
	switch rest {
	case "input_layernorm.weight":
		return nil, l.attnNorm, nil
	case "post_attention_layernorm.weight":
		return nil, l.ffnNorm, nil
	case "self_attn.q_norm.weight":
		return nil, l.qNorm, nil
	case "self_attn.k_norm.weight":
		return nil, l.kNorm, nil
	}
	w := map[string]*Matrix{"self_attn.q_proj.weight": l.q, "self_attn.k_proj.weight": l.k, "self_attn.v_proj.weight": l.v,
		"self_attn.o_proj.weight": l.o, "mlp.gate_proj.weight": l.gate, "mlp.up_proj.weight": l.up, "mlp.down_proj.weight": l.down}[rest]
	if w == nil {
		return nil, nil, fmt.Errorf("no tensor %q: %w", name, gguf.ErrNotFound)
	}
	return w, nil, nil
}

func (s modelSource) TensorNames() []string { return nil }

func (s modelSource) TensorShape(name string) ([]int, error) {
	w, v, err := s.lookup(name)
	if err != nil {
		return nil, err
	}
	if w != nil {
		return []int{w.Rows, w.Cols}, nil
	}
	return []int{len(v)}, nil
}

func (s modelSource) TensorFloat32(name string) ([]float32, error) {
	w, v, err := s.lookup(name)
	if err != nil || w == nil {
		return v, err
	}
	t := map[DType]gguf.GGMLType{F32: gguf.TypeF32, F16: gguf.TypeF16, BF16: gguf.TypeBF16, Q8_0: gguf.TypeQ8_0}[w.Type]
	out := make([]float32, w.Rows*w.Cols)
	return out, gguf.Dequantize(out, t, w.raw)
}

func (s modelSource) TensorFloat64(name string) ([]float64, error) {
	v, err := s.TensorFloat32(name)
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out, err
}
