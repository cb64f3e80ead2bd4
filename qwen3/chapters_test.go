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
// tiny model as stored (BF16) and re-encoded in every type the kernels read (F32, F16, Q8_0), and
// once with two tokens whose embedding rows are scaled down to an RMS near 6e-5, where eps decides
// the first RMSNorm (as in chapter 03's golden rows): an engine with eps outside the square root
// is off by 20 there (the size of the logits), while over ordinary rows it moves the logits by
// only 2e-6 relative. Chapter 07 reads the re-encoded weights through chapter 01's dequantizer.

var engineTypes = []DType{BF16, F32, F16, Q8_0}

func TestEngineMatchesChapter07(t *testing.T) {
	// Tolerance relative to the largest logit, float32 against float64. Measured on the build
	// machine (AMD EPYC, 2 cores): 7.7e-7 (BF16, F32, F16), 8.6e-7 (Q8_0), 9.7e-7 with the low-RMS
	// rows; 5e-6 is within 10 times of the largest.
	const tol = 5e-6
	base := loadTiny(t, reference.TinyGGUF())
	cfg, err := gguf.ReadConfig(reference.TinyHFDir() + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{785, 6722, 315, 9625, 374, 12095, 13, 576, 6722, 315} // "The capital of France is Paris. The capital of"
	type variant struct {
		name  string
		dt    DType
		quiet []int // token ids whose embedding rows are scaled by quietScale
	}
	var variants []variant
	for _, dt := range engineTypes {
		variants = append(variants, variant{dt.String(), dt, nil})
	}
	variants = append(variants, variant{"F32 low-RMS rows", F32, []int{315, 13}})
	for _, vr := range variants {
		name, dt := vr.name, vr.dt
		t.Run(name, func(t *testing.T) {
			m := convert(t, base, dt, vr.quiet...)
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
				t.Errorf("%v: engine logits differ from chapter 07 by %.3g (largest logit %.3g, tolerance %g relative)", name, worst, scale, tol)
			} else {
				t.Logf("%v: max |Δ| %.3g, %.2g relative", name, worst, worst/scale)
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
					t.Fatalf("%v prefill: logit %d differs from chapter 07 by %.3g", name, c, d)
				}
			}
		})
	}
}

// quietScale shrinks the embedding rows of convert's quiet tokens: the tiny model's rows have an
// RMS of about 0.6, so theirs becomes about 6e-5, far below sqrt(eps) = 1e-3.
const quietScale = 1e-4

// convert returns a copy of m whose matrices are re-encoded as dt (norms stay float32), with the
// embedding rows of the quiet token ids multiplied by quietScale.
func convert(t testing.TB, m *Model, dt DType, quiet ...int) *Model {
	t.Helper()
	c := *m
	c.layers = slices.Clone(m.layers)
	enc := func(w *Matrix, quiet ...int) *Matrix {
		row := make([]float32, w.Cols)
		var raw []byte
		for r := 0; r < w.Rows; r++ {
			w.Row(r, row)
			if slices.Contains(quiet, r) {
				for i := range row {
					row[i] *= quietScale
				}
			}
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
	c.embed = enc(m.embed, quiet...)
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
			out = binary.LittleEndian.AppendUint16(out, toF16(v))
		}
	case Q8_0:
		for b := 0; b < len(x); b += 32 {
			blk := x[b : b+32]
			var amax float32
			for _, v := range blk {
				amax = max(amax, float32(math.Abs(float64(v))))
			}
			dh := toF16(amax / 127)
			d := gguf.F16ToF32(dh)
			out = binary.LittleEndian.AppendUint16(out, dh)
			for _, v := range blk {
				q := 0.0
				if d != 0 {
					q = math.Round(float64(v / d))
				}
				out = append(out, byte(int8(max(-127, min(127, q)))))
			}
		}
	}
	return out
}

// toF16 rounds a float32 to the nearest half (normal range; tiny values flush towards subnormals).
func toF16(v float32) uint16 {
	bits := math.Float32bits(v)
	sign := uint16(bits>>16) & 0x8000
	a := math.Abs(float64(v))
	if a < 0x1p-24 {
		return sign
	}
	e := math.Floor(math.Log2(a))
	if e < -14 { // subnormal: multiples of 2^-24
		return sign | uint16(math.RoundToEven(a/0x1p-24))
	}
	m := math.RoundToEven((a/math.Exp2(e) - 1) * 1024)
	if m == 1024 {
		m, e = 0, e+1
	}
	return sign | uint16(e+15)<<10 | uint16(m)
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
