package forward

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// smallConfig is a model small enough to build by hand: 2 layers, 4 query heads sharing 2 KV
// heads of head_dim 6 (!= hidden/heads), a 10-token vocabulary and an 8-token context.
func smallConfig() gguf.Config {
	return gguf.Config{
		HiddenSize: 8, IntermediateSize: 12, NumHiddenLayers: 2, NumAttentionHeads: 4, NumKeyValueHeads: 2,
		HeadDim: 6, VocabSize: 10, MaxPositionEmbeddings: 8, RopeTheta: 1e4, RMSNormEps: 1e-6, TieWordEmbeddings: true,
	}
}

// randomModel fills a model of shape cfg with seeded normal weights.
func randomModel(t *testing.T, cfg gguf.Config, seed uint64) *Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	dense := func(r, c int) *mat.Dense {
		d := make([]float64, r*c)
		for i := range d {
			d[i] = rng.NormFloat64() * 0.5
		}
		return mat.NewDense(r, c, d)
	}
	vec := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.5 + rng.Float64()
		}
		return v
	}
	h, q, kv := cfg.HiddenSize, cfg.NumAttentionHeads*cfg.HeadDim, cfg.NumKeyValueHeads*cfg.HeadDim
	layers := make([]Layer, cfg.NumHiddenLayers)
	for i := range layers {
		l := &layers[i]
		l.InputNorm, l.PostNorm = vec(h), vec(h)
		l.Attn.Q, l.Attn.K, l.Attn.V, l.Attn.O = dense(q, h), dense(kv, h), dense(kv, h), dense(h, q)
		l.Attn.QNorm, l.Attn.KNorm = vec(cfg.HeadDim), vec(cfg.HeadDim)
		l.MLP.Gate, l.MLP.Up, l.MLP.Down = dense(cfg.IntermediateSize, h), dense(cfg.IntermediateSize, h), dense(h, cfg.IntermediateSize)
	}
	m, err := NewModel(cfg, dense(cfg.VocabSize, h), layers, vec(h), nil)
	if err != nil {
		t.Fatalf("NewModel: %v", err)
	}
	return m
}

// TestTiedHead: the tiny GGUF has no output.weight and the HF directory stores the head once as
// the embedding, so both loads must share the embedding matrix itself as the LM head.
func TestTiedHead(t *testing.T) {
	for kind, m := range tinyModels(t) {
		if !m.Tied || m.LMHead != m.Embedding {
			t.Errorf("%s: LM head is not the embedding matrix (Tied %v)", kind, m.Tied)
		}
	}
}

// TestCausal: the logits at position t depend only on tokens 0..t, so a prefix's logits are the
// first rows of the whole sequence's (1e-12 relative: float64, the same products in another
// matrix size).
func TestCausal(t *testing.T) {
	m := randomModel(t, smallConfig(), 1)
	ids := []int{3, 1, 4, 1, 5, 9, 2, 6}
	full, err := m.Forward(ids)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < len(ids); n++ {
		part, err := m.Forward(ids[:n])
		if err != nil {
			t.Fatal(err)
		}
		if e := relErr(part, full.Slice(0, n, 0, 10).(*mat.Dense)); e > 1e-12 {
			t.Errorf("prefix of %d tokens: logits differ from the full sequence's by %.3g", n, e)
		}
	}
	// And a later token does change the last logits (the model is not position-blind).
	other, _ := m.Forward([]int{3, 1, 4, 1, 5, 9, 2, 7})
	if e := relErr(other.Slice(7, 8, 0, 10).(*mat.Dense), full.Slice(7, 8, 0, 10).(*mat.Dense)); e < 1e-3 {
		t.Errorf("changing the last token changed its logits by only %.3g", e)
	}
}

// TestOrderMatters: swapping two earlier tokens changes the last position's logits. Attention
// without RoPE is permutation-invariant over the keys, so this fails if positions are ignored.
func TestOrderMatters(t *testing.T) {
	m := randomModel(t, smallConfig(), 2)
	a, _ := m.Forward([]int{1, 2, 3, 4})
	b, _ := m.Forward([]int{2, 1, 3, 4})
	if e := relErr(a.Slice(3, 4, 0, 10).(*mat.Dense), b.Slice(3, 4, 0, 10).(*mat.Dense)); e < 1e-3 {
		t.Errorf("swapping tokens 0 and 1 changed the last logits by only %.3g: are positions applied?", e)
	}
}

func TestForwardErrors(t *testing.T) {
	m := randomModel(t, smallConfig(), 3)
	for _, c := range []struct {
		ids  []int
		want string
	}{
		{nil, "empty token sequence"},
		{[]int{1, -1}, "token -1 at position 1 is outside the vocabulary 0..9"},
		{[]int{1, 2, 10}, "token 10 at position 2 is outside the vocabulary 0..9"},
		{make([]int, 9), "9 tokens exceed the context of 8 positions"},
	} {
		if _, err := m.Forward(c.ids); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Forward(%v): error %v, want %q", c.ids, err, c.want)
		}
	}
	if _, err := m.Forward(make([]int, 8)); err != nil {
		t.Errorf("a full context of 8 tokens: %v", err)
	}
}

// source wraps a TensorSource to fake broken files: a tensor with another shape, or a missing one.
type source struct {
	gguf.TensorSource
	shapes  map[string][]int
	missing string
	extra   string
}

func (s source) TensorNames() []string {
	var out []string
	for _, n := range s.TensorSource.TensorNames() {
		if n != s.missing {
			out = append(out, n)
		}
	}
	if s.extra != "" {
		out = append(out, s.extra)
	}
	return out
}

func (s source) TensorShape(name string) ([]int, error) {
	if name == s.missing {
		return nil, gguf.ErrNotFound
	}
	if sh, ok := s.shapes[name]; ok {
		return sh, nil
	}
	return s.TensorSource.TensorShape(name)
}

func TestLoadErrors(t *testing.T) {
	src, cfg, closeFn, err := gguf.OpenModel(reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	for _, c := range []struct {
		name string
		src  source
		cfg  func(*gguf.Config)
		want string
	}{
		{"transposed q_proj", source{shapes: map[string][]int{"model.layers.1.self_attn.q_proj.weight": {64, 128}}}, nil,
			`tensor "model.layers.1.self_attn.q_proj.weight" has shape [64 128], config wants [128 64]`},
		{"short norm", source{shapes: map[string][]int{"model.norm.weight": {63}}}, nil,
			`tensor "model.norm.weight" has shape [63], config wants [64]`},
		{"missing k_norm", source{missing: "model.layers.2.self_attn.k_norm.weight"}, nil,
			`tensor "model.layers.2.self_attn.k_norm.weight" is missing`},
		{"layer beyond the config", source{extra: "model.layers.6.mlp.up_proj.weight"}, nil,
			`belongs to layer 6, but the config has num_hidden_layers 6`},
		{"heads not a multiple of kv heads", source{}, func(c *gguf.Config) { c.NumKeyValueHeads = 3 },
			"num_attention_heads: 4 is not a multiple of num_key_value_heads 3"},
		{"odd head_dim", source{}, func(c *gguf.Config) { c.HeadDim = 15 }, "head_dim: 15 is odd"},
		{"yarn", source{}, func(c *gguf.Config) { c.RopeType = "yarn" }, `rope_type: "yarn" is not supported`},
		{"untied without a head", source{}, func(c *gguf.Config) { c.TieWordEmbeddings = false }, `tensor "lm_head.weight" is missing`},
		{"config head_dim disagrees with the file", source{}, func(c *gguf.Config) { c.HeadDim = 8 },
			`tensor "model.layers.0.self_attn.q_proj.weight" has shape [128 64], config wants [32 64]`},
	} {
		s := c.src
		s.TensorSource = src
		cc := cfg
		if c.cfg != nil {
			c.cfg(&cc)
		}
		_, err := FromSource(s, cc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
		if c.src.missing != "" && !errors.Is(err, gguf.ErrNotFound) {
			t.Errorf("%s: error %v does not wrap gguf.ErrNotFound", c.name, err)
		}
		// A bad configuration is chapter 01's *FormatError, naming the field.
		if field, _, isConfig := strings.Cut(c.want, ": "); isConfig && !strings.Contains(field, " ") {
			var fe *gguf.FormatError
			if !errors.As(err, &fe) || fe.Field != field {
				t.Errorf("%s: error %v is not a FormatError for %s", c.name, err, field)
			}
		}
	}
	if _, err := Load("no/such/model.gguf"); err == nil {
		t.Errorf("Load of a missing file: no error")
	}
}

// TestFinalNormEps: the final norm uses the model's own eps. On a row whose mean square is 1e-6,
// eps 1e-6 and 1e-5 scale the row by 1/sqrt(2e-6) and 1/sqrt(1.1e-5), 2.3 times apart; on the
// golden prompts' hidden states (mean squares near 1) they do not differ within the tolerance.
func TestFinalNormEps(t *testing.T) {
	m := randomModel(t, smallConfig(), 5)
	h := mat.NewDense(2, 8, []float64{1e-3, -1e-3, 1e-3, -1e-3, 1e-3, -1e-3, 1e-3, -1e-3, 1, 2, 3, 4, 5, 6, 7, 8})
	normed, logits := m.Logits(h)
	want := rmsnorm.RMSNorm(h, m.Norm, m.Config.RMSNormEps)
	switch e := relErr(normed, want); {
	case relErr(normed, h) == 0:
		t.Fatalf("normed is h itself: check the final RMSNorm, normed = RMSNorm(h, model.norm.weight, eps)")
	case e > 1e-12:
		t.Fatalf("final norm of a row of ±1e-3 differs by %.3g from RMSNorm(h, model.norm.weight, eps = %g): the final norm uses the model's own eps, m.Config.RMSNormEps",
			e, m.Config.RMSNormEps)
	}
	var wantLogits, fromH mat.Dense
	wantLogits.Mul(want, m.LMHead.T())
	fromH.Mul(h, m.LMHead.T())
	if e := relErr(logits, &wantLogits); e > 1e-12 {
		why := "logits = normed * LMHead^T"
		if relErr(logits, &fromH) < 1e-12 {
			why = "that is h * LMHead^T: the logits come from the normalized states, normed * LMHead^T"
		}
		t.Fatalf("logits differ by %.3g from normed * LMHead^T: %s", e, why)
	}
}

// TestUntiedHead: a model with its own lm_head uses it, not the embedding.
func TestUntiedHead(t *testing.T) {
	m := randomModel(t, smallConfig(), 4)
	head := mat.DenseCopyOf(m.Embedding)
	head.Scale(-2, head)
	u, err := NewModel(m.Config, m.Embedding, m.Layers, m.Norm, head)
	if err != nil {
		t.Fatal(err)
	}
	if u.Tied {
		t.Fatalf("a separate head reported as tied")
	}
	a, _ := m.Forward([]int{1, 2})
	b, _ := u.Forward([]int{1, 2})
	if relErr(b, a) < 1e-12 {
		t.Errorf("a model with its own lm_head (here -2 times the embedding) gives the tied model's logits: multiply by m.LMHead, which is the embedding only when tied")
	}
	a.Scale(-2, a)
	if e := relErr(b, a); e > 1e-12 {
		t.Errorf("logits with head -2*E differ from -2*(tied logits) by %.3g: logits = normed * LMHead^T", e)
	}
	if _, err := NewModel(m.Config, m.Embedding, m.Layers, m.Norm, mat.NewDense(10, 7, nil)); err == nil ||
		!strings.Contains(err.Error(), `tensor "lm_head.weight" has shape [10 7], config wants [10 8]`) {
		t.Errorf("head of the wrong shape: error %v", err)
	}
}

// TestFirstDivergence plants an error in layer 1 of a copy of the golden trace and checks that
// the helper names that layer and no earlier stage.
func TestFirstDivergence(t *testing.T) {
	want := goldenTrace(t, 0)
	got := &Trace{Embed: want.Embed, Layers: slices.Clone(want.Layers), Norm: want.Norm, Logits: want.Logits, LogitCols: want.LogitCols}
	if d := FirstDivergence(got, want, 1e-6); !d.OK() || d.String() != "every stage agrees (tolerance 1e-06)" {
		t.Errorf("identical traces: %v", d)
	}
	bad := mat.DenseCopyOf(want.Layers[1])
	bad.Set(2, 3, bad.At(2, 3)+0.5)
	got.Layers[1] = bad
	d := FirstDivergence(got, want, 1e-4)
	if d.Stage != StageLayer || d.Layer != 1 || !(d.MaxErr > 1e-3) {
		t.Errorf("planted error in layer 1: %+v", d)
	}
	if s := d.String(); !strings.HasPrefix(s, "layer 1 differs by ") || !strings.Contains(s, "(tolerance 0.0001): check its attention") {
		t.Errorf("message %q", s)
	}
	got.Layers = got.Layers[:1]
	if d := FirstDivergence(got, want, 1e-4); d.Stage != StageLayer || d.Layer != 1 || !math.IsInf(d.MaxErr, 1) {
		t.Errorf("missing layer 1: %+v", d)
	}
}
