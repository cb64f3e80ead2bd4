package gguf

import (
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestQwen3ParamCount checks the sum stated in QWEN3_FACTS.md and the doc, group by group.
func TestQwen3ParamCount(t *testing.T) {
	p := CountParams(Qwen3_0_6B())
	want := ParamCounts{
		Embedding: 151936 * 1024,
		Attention: 28 * (2048*1024 + 1024*1024 + 1024*1024 + 1024*2048),
		MLP:       28 * 3 * 3072 * 1024,
		Norms:     28*(1024+1024+128+128) + 1024,
	}
	if p != want {
		t.Errorf("CountParams = %+v, want %+v", p, want)
	}
	if p.Total() != 596_049_920 {
		t.Errorf("total %d, want 596,049,920", p.Total())
	}
	untied := Qwen3_0_6B()
	untied.TieWordEmbeddings = false
	if got := CountParams(untied).Total(); got != 596_049_920+151936*1024 {
		t.Errorf("untied total %d", got)
	}
}

// TestParamCountMatchesCheckpoint: the formula agrees with the tensors actually stored in the tiny
// checkpoint (the GGUF file, which has no separate LM head).
func TestParamCountMatchesCheckpoint(t *testing.T) {
	f, err := Open(reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := ConfigFromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	var n, matrices int64
	for _, ti := range f.Tensors {
		n += ti.NumElements()
		if len(ti.Dims) == 2 {
			matrices += ti.NumElements()
		}
	}
	p := CountParams(cfg)
	if n != p.Total() || matrices != p.Matrices() {
		t.Errorf("file holds %d parameters (%d in matrices), CountParams says %d (%d)", n, matrices, p.Total(), p.Matrices())
	}
}
