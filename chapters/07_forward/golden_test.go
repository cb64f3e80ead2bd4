package forward

import (
	"fmt"
	"math"
	"sync"
	"testing"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// Tolerances against transformers (float32, eager attention) on the tiny model's BF16 weights.
// This chapter computes in float64, so the differences are float32's rounding in the reference,
// accumulated over 3 layers.
const (
	// hiddenTol bounds hidden states (embeddings, layer outputs, final norm) relative to the
	// largest magnitude of the golden array: the course-wide 1e-5 for a chapter op. Measured: at
	// most 2.2e-6 over 3 layers and 3 prompts, float32's rounding in the reference.
	hiddenTol = 1e-5
	// logitTol is DESIGN.md's tiny-model logits tolerance, absolute: logits spread over several
	// units (standard deviation about 4), so 1e-4 is far below any difference that changes a token.
	logitTol = 1e-4
)

// models loads the tiny reference checkpoint from both doors once per test binary: the GGUF file
// (no output.weight: the tied head must come from token_embd) and the Hugging Face directory.
var models = sync.OnceValues(func() (map[string]*Model, error) {
	out := map[string]*Model{}
	for name, path := range map[string]string{"gguf": reference.TinyGGUF(), "hf": reference.TinyHFDir()} {
		m, err := Load(path)
		if err != nil {
			return nil, err
		}
		out[name] = m
	}
	return out, nil
})

func tinyModels(t *testing.T) map[string]*Model {
	t.Helper()
	ms, err := models()
	if err != nil {
		t.Fatalf("load tiny model: %v", err)
	}
	return ms
}

func goldenTrace(t *testing.T, p int) *Trace {
	t.Helper()
	tr, err := GoldenTrace(p)
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return tr
}

// maxAbs is max |got - want| over all entries.
func maxAbs(t *testing.T, got, want *mat.Dense) float64 {
	t.Helper()
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		t.Fatalf("got %dx%d, want %dx%d", gr, gc, wr, wc)
	}
	var d float64
	for i := 0; i < wr; i++ {
		g, w := got.RawRowView(i), want.RawRowView(i)
		for j := range w {
			if math.IsNaN(g[j]) {
				return math.Inf(1)
			}
			d = math.Max(d, math.Abs(g[j]-w[j]))
		}
	}
	return d
}

// TestEmbedGolden checks Embed alone: the embedding rows of each golden prompt against
// transformers' embed_tokens output, within hiddenTol relative (they are the BF16 weights,
// widened exactly, so any difference is a wrong row or a wrong scale).
func TestEmbedGolden(t *testing.T) {
	m := tinyModels(t)["gguf"]
	for p := 0; p < GoldenPrompts; p++ {
		want := goldenTrace(t, p)
		got, err := m.Embed(want.IDs)
		if err != nil {
			t.Fatalf("prompt %d: %v", p, err)
		}
		if e := relErr(got, want.Embed); e > hiddenTol {
			why := ""
			rows, _ := got.Dims()
			byPosition := mat.NewDense(rows, m.Config.HiddenSize, nil)
			for r := range rows {
				byPosition.SetRow(r, m.Embedding.RawRowView(r))
			}
			if mat.Norm(got, math.Inf(1)) == 0 {
				why = "the output is all zeros: copy row ids[t] of the embedding matrix into row t;\n"
			} else if s := got.At(0, 0) / want.Embed.At(0, 0); relErr(got, scaled(want.Embed, s)) < 1e-9 {
				why = fmt.Sprintf("the rows are the right ones times %.4g: Qwen3 copies them as they are (Gemma scales by sqrt(hidden));\n", s)
			} else if relErr(got, byPosition) < 1e-9 {
				why = "row t holds row t of the embedding matrix, the position, not row ids[t], the token;\n"
			}
			t.Fatalf("prompt %d: embeddings differ from transformers' by %.3g relative (tolerance %g):\n%s"+
				"row t is row ids[t] of the embedding matrix, copied as it is (Qwen3 does not scale it)", p, e, hiddenTol, why)
		}
	}
}

// scaled returns s*a.
func scaled(a *mat.Dense, s float64) *mat.Dense {
	var b mat.Dense
	b.Scale(s, a)
	return &b
}

// TestLayersGolden checks Layer.Forward alone: starting from transformers' embeddings of each
// golden prompt, every decoder layer (with chapter 05's attention) must give transformers' output
// of that layer, within hiddenTol relative to its largest value. The first layer that differs is
// reported.
func TestLayersGolden(t *testing.T) {
	m := tinyModels(t)["gguf"]
	ac := m.Attention()
	for p := 0; p < GoldenPrompts; p++ {
		want := goldenTrace(t, p)
		x := want.Embed
		for i := range m.Layers {
			l := &m.Layers[i]
			attn := func(normed *mat.Dense) *mat.Dense {
				out, _ := attention.Forward(ac, &l.Attn, m.RoPE(), normed, 0)
				return out
			}
			in := x
			x = l.Forward(x, m.Config.RMSNormEps, attn)
			if e := relErr(x, want.Layers[i]); e > hiddenTol {
				t.Fatalf("prompt %d: layer %d differs from transformers' by %.3g relative (tolerance %g), its input was right:\n%s"+
					"h = x + attn(RMSNorm(x, input norm)); out = h + MLP(RMSNorm(h, post-attention norm))",
					p, i, e, hiddenTol, layerHint(l, in, x, m.Config.RMSNormEps, attn))
			}
		}
	}
}

// layerHint names the wrong wiring of a decoder layer whose output on x is got, computing each
// classic one here from the layer's own pieces; "" when none matches.
func layerHint(l *Layer, x, got *mat.Dense, eps float64, attn func(*mat.Dense) *mat.Dense) string {
	add := func(a, b *mat.Dense) *mat.Dense {
		var c mat.Dense
		c.Add(a, b)
		return &c
	}
	norm := func(v *mat.Dense, w []float64) *mat.Dense { return rmsnorm.RMSNorm(v, w, eps) }
	a := attn(norm(x, l.InputNorm))
	h := add(x, a)
	for _, c := range []struct {
		what string
		out  *mat.Dense
	}{
		{"that is out = h + MLP(...) with h = attn(...) alone: the residual around attention is missing (h = x + attn)", add(a, l.MLP.Forward(norm(a, l.PostNorm)))},
		{"that is the MLP reading the layer input x (GPT-J's parallel layout): Qwen3's MLP reads h, the output of the attention branch", add(h, l.MLP.Forward(norm(x, l.PostNorm)))},
		{"that is the MLP applied to h itself: its input is normalized first, RMSNorm(h, post-attention norm)", add(h, l.MLP.Forward(h))},
		{"that is the MLP's output alone: the second residual is missing (out = h + MLP)", l.MLP.Forward(norm(h, l.PostNorm))},
		{"that is the MLP's input normalized with the input norm's weight: the second norm has its own, PostNorm", add(h, l.MLP.Forward(norm(h, l.InputNorm)))},
		{"that is h, the attention branch alone: the MLP branch is missing", h},
	} {
		if relErr(got, c.out) < 1e-9 {
			return c.what + ";\n"
		}
	}
	return ""
}

// TestGoldenTrace compares every stage of the forward pass with transformers' hooks on the three
// golden prompts, for both file kinds: embeddings, layers and final norm within hiddenTol
// (relative), logits at the sampled columns within logitTol (absolute).
func TestGoldenTrace(t *testing.T) {
	for kind, m := range tinyModels(t) {
		for p := 0; p < GoldenPrompts; p++ {
			want := goldenTrace(t, p)
			got, err := m.ForwardTrace(want.IDs)
			if err != nil {
				t.Fatalf("%s prompt %d: %v", kind, p, err)
			}
			// The first failure is reported alone: the other prompts and file kinds would repeat it.
			if d := FirstDivergence(got, want, hiddenTol); !d.OK() {
				t.Fatalf("%s prompt %d: %v", kind, p, d)
			}
			e := maxAbs(t, Columns(got.Logits, want.LogitCols), want.Logits)
			if e > logitTol {
				t.Fatalf("%s prompt %d: logits differ by %.3g at the sampled columns (tolerance %g absolute)", kind, p, e, logitTol)
			} else {
				t.Logf("%s prompt %d: hidden states within %.3g relative, logits within %.3g absolute", kind, p,
					FirstDivergence(got, &Trace{Embed: want.Embed, Layers: want.Layers, Norm: want.Norm}, hiddenTol).MaxErr, e)
			}
		}
	}
}

// TestGoldenLogitsFullVocab compares the last position's logits of prompt 0 over the whole
// vocabulary (151,936 columns), within logitTol absolute: every row of the tied head is used, so
// a head that is not exactly the embedding matrix fails here even if sampled columns were lucky.
func TestGoldenLogitsFullVocab(t *testing.T) {
	want, err := reference.LoadDense("07_forward", "prompt0_logits_last.npy")
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	ids := goldenTrace(t, 0).IDs
	for kind, m := range tinyModels(t) {
		logits, err := m.Forward(ids)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		seq, vocab := logits.Dims()
		last := mat.NewDense(1, vocab, logits.RawRowView(seq-1))
		if e := maxAbs(t, last, want); e > logitTol {
			t.Errorf("%s: last-position logits differ by %.3g over the full vocabulary (tolerance %g absolute)", kind, e, logitTol)
		} else {
			t.Logf("%s: full-vocabulary logits within %.3g", kind, e)
		}
		if argmax(last.RawRowView(0)) != argmax(want.RawRowView(0)) {
			t.Errorf("%s: argmax %d, transformers %d", kind, argmax(last.RawRowView(0)), argmax(want.RawRowView(0)))
		}
	}
}

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
