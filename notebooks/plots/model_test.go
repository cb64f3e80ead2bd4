package plots

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// TestPickModel: without QWEN3_MODEL the tiny trained model, and the description says so; with it,
// that checkpoint; a QWEN3_MODEL that names nothing is an error, not a silent fallback.
func TestPickModel(t *testing.T) {
	t.Setenv(ModelEnv, "")
	c, err := PickModel()
	if err != nil || c.Real || c.Path != reference.TinyGGUF() || !strings.Contains(c.About, "trained on Go") {
		t.Fatalf("no %s: %+v, %v; want the tiny GGUF, described as trained on Go", ModelEnv, c, err)
	}
	m, err := c.Forward()
	if err != nil {
		t.Fatal(err)
	}
	if c.Snippets() != "held-out Go" {
		t.Errorf("the tiny model calls the probes' snippets %q, want held-out Go", c.Snippets())
	}
	if want := []string{"6 layers", "hidden 64"}; !strings.Contains(c.About, want[0]) || !strings.Contains(c.About, want[1]) ||
		len(m.Layers) != 6 || m.Config.HiddenSize != 64 {
		t.Errorf("About says %q; the model has %d layers, hidden %d", c.About, len(m.Layers), m.Config.HiddenSize)
	}

	t.Setenv(ModelEnv, reference.TinyHFDir())
	if c, err = PickModel(); err != nil || !c.Real || c.Path != reference.TinyHFDir() || !strings.Contains(c.About, ModelEnv) {
		t.Fatalf("%s set: %+v, %v", ModelEnv, c, err)
	}
	if c.Snippets() != "Go snippets" {
		t.Errorf("a real model calls the probes' snippets %q: it may have trained on them", c.Snippets())
	}
	t.Setenv(ModelEnv, filepath.Join(t.TempDir(), "missing.gguf"))
	if _, err := PickModel(); err == nil || !strings.Contains(err.Error(), "missing.gguf") {
		t.Errorf("%s names nothing: error %v, want one naming the path", ModelEnv, err)
	}
}

// TestModelChoiceTokenizer: the tokenizer comes from either file kind (and from a lone
// safetensors file's directory), and the kinds agree.
func TestModelChoiceTokenizer(t *testing.T) {
	const text = "if err != nil {\n\treturn err\n}"
	var first []int
	for _, p := range []string{reference.TinyGGUF(), reference.TinyHFDir(), filepath.Join(reference.TinyHFDir(), "model.safetensors")} {
		tok, err := ModelChoice{Path: p}.Tokenizer()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		ids := tok.Encode(text)
		if first == nil {
			first = ids
		}
		if back, err := tok.Decode(ids, false); len(ids) < 5 || !slices.Equal(ids, first) || back != text || err != nil {
			t.Errorf("%s: %q encodes to %v (first kind: %v)", p, text, ids, first)
		}
	}
}

// TestPickModelReal runs what a notebook draws on the model QWEN3_MODEL names (Qwen3-0.6B; on the
// course's machines the synthetic full-size checkpoint of scripts/make_synthetic.py): chapter 07's
// trace of a Go snippet, the head scores and the logit lens, and logs the time and the peak memory.
func TestPickModelReal(t *testing.T) {
	if os.Getenv(ModelEnv) == "" {
		t.Skipf("%s is not set: this test needs Qwen3-0.6B or the synthetic checkpoint of scripts/make_synthetic.py", ModelEnv)
	}
	c, err := PickModel()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	tok, err := c.Tokenizer()
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Forward()
	if err != nil {
		t.Fatal(err)
	}
	loaded := time.Since(start)
	ids := tok.Encode("for i := 0; i < n; i++ {\n\tsum += x[i]\n}\nfor i := 0; i < n; i++ {")
	tr, err := m.ForwardTrace(ids)
	if err != nil {
		t.Fatal(err)
	}
	s, err := forward.ScoreHeads(tr)
	if err != nil {
		t.Fatal(err)
	}
	lens, err := m.LogitLens(tr, 5)
	if err != nil {
		t.Fatal(err)
	}
	if r, h := s.Previous.Dims(); r != len(m.Layers) || h != m.Config.NumAttentionHeads || len(lens) != len(m.Layers)+1 {
		t.Fatalf("scores %dx%d, lens %d deep, for %d layers of %d heads", r, h, len(lens), len(m.Layers), m.Config.NumAttentionHeads)
	}
	best := forward.Ranked(s.Previous)[0]
	t.Logf("%s: %d layers x %d heads, %d tokens; loaded in %v, traced, scored and lensed in %v; strongest previous-token head: layer %d head %d (%.2f); peak RSS %.2f GB",
		c.About, len(m.Layers), m.Config.NumAttentionHeads, len(ids), loaded.Round(time.Millisecond),
		(time.Since(start) - loaded).Round(time.Millisecond), best.Layer, best.Head, best.Score, peakRSS()/1e9)
	runtime.KeepAlive(m)
}
