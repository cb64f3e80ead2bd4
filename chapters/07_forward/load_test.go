package forward

import (
	"fmt"
	"math"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestTiedHeadIgnoresStoredCopy: Qwen3-0.6B's safetensors stores lm_head.weight although
// tie_word_embeddings is true. The tied head must be the embedding (the golden logits), not the
// stored copy, which here is a decoy (the embedding negated); an untied config must use it.
func TestTiedHeadIgnoresStoredCopy(t *testing.T) {
	full, err := reference.LoadArray("07_forward", "prompt0_logits_last.npy")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := reference.LoadInts("07_forward", "prompt0_ids.npy")
	if err != nil {
		t.Fatal(err)
	}
	for _, tied := range []bool{true, false} {
		dir := t.TempDir()
		if err := reference.WriteTinyHFWithHead(dir, tied); err != nil {
			t.Fatal(err)
		}
		m, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		logits, err := m.Forward(ids)
		if err != nil {
			t.Fatal(err)
		}
		last := logits.RawRowView(len(ids) - 1)
		var worst, negated float64
		for c, w := range full.Data {
			worst = math.Max(worst, math.Abs(last[c]-w))
			negated = math.Max(negated, math.Abs(last[c]+w))
		}
		switch {
		case m.Tied != tied:
			t.Errorf("tie_word_embeddings %v: Tied = %v", tied, m.Tied)
		case tied && worst > 1e-4: // DESIGN.md: tiny-model logits within 1e-4
			t.Errorf("tied: logits differ from transformers by %.3g: the stored lm_head.weight was used", worst)
		case !tied && negated > 1e-4:
			t.Errorf("untied: logits are not the stored head's (off by %.3g)", negated)
		}
	}
}

// TestTransformersSavedCheckpoint loads the checkpoint that transformers 5 itself saved (config.json
// with rope_parameters and dtype, an untied head, theta 1e4, eps 1e-5, one KV head) and compares
// the logits at every position of three prompts with transformers'. DESIGN.md's tolerance for
// tiny-model logits: 1e-4 absolute (the reference runs in float32, this chapter in float64).
func TestTransformersSavedCheckpoint(t *testing.T) {
	m, err := Load(reference.TinySavedDir())
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config
	if c.RopeTheta != 1e4 || c.RMSNormEps != 1e-5 || c.TieWordEmbeddings || m.Tied || c.NumKeyValueHeads != 1 || c.VocabSize != 2112 {
		t.Fatalf("config %+v, Tied %v: not the saved checkpoint's", c, m.Tied)
	}
	prompts, err := reference.SavedPrompts()
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for n, p := range prompts {
		want, err := reference.LoadArray("tiny-qwen3-saved", fmt.Sprintf("prompt%d_logits.npy", n))
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Forward(p.IDs)
		if err != nil {
			t.Fatal(err)
		}
		if r, cols := got.Dims(); r != len(p.IDs) || want.Size() != r*cols {
			t.Fatalf("prompt %d: logits %dx%d, transformers' %v", n, r, cols, want.Shape)
		}
		_, cols := got.Dims()
		for i, w := range want.Data {
			worst = math.Max(worst, math.Abs(got.At(i/cols, i%cols)-w))
		}
	}
	if worst > 1e-4 {
		t.Errorf("logits differ from transformers by %.3g (tolerance 1e-4)", worst)
	}
	t.Logf("max |Δ| against transformers: %.3g", worst)
}
