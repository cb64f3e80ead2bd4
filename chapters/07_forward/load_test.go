package forward

import (
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
