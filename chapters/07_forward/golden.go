package forward

import (
	"fmt"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// GoldenPrompts is the number of prompts with golden traces in reference/golden/07_forward.
const GoldenPrompts = 3

// GoldenTrace loads transformers' trace of the tiny reference model (reference.TinyGGUF,
// reference.TinyHFDir) on golden prompt p (0 .. GoldenPrompts-1): the ids, the embeddings, each
// layer's output, the final norm and the logits at the sampled columns LogitCols. Compare your own
// trace with it using FirstDivergence:
//
//	want, _ := forward.GoldenTrace(0)
//	got, _ := m.ForwardTrace(want.IDs)
//	fmt.Println(forward.FirstDivergence(got, want, 1e-4))
func GoldenTrace(p int) (*Trace, error) {
	if p < 0 || p >= GoldenPrompts {
		return nil, fmt.Errorf("forward: golden prompt %d outside 0..%d", p, GoldenPrompts-1)
	}
	const ch = "07_forward"
	name := func(s string) string { return fmt.Sprintf("prompt%d_%s.npy", p, s) }
	ids, err := reference.LoadInts(ch, name("ids"))
	if err != nil {
		return nil, fmt.Errorf("forward: golden trace: %w", err)
	}
	cols, err := reference.LoadInts(ch, "cols.npy")
	if err != nil {
		return nil, fmt.Errorf("forward: golden trace: %w", err)
	}
	tr := &Trace{IDs: ids, LogitCols: cols}
	for _, f := range []struct {
		s   string
		dst **mat.Dense
	}{{"embed", &tr.Embed}, {"norm", &tr.Norm}, {"logits_cols", &tr.Logits}} {
		if *f.dst, err = reference.LoadDense(ch, name(f.s)); err != nil {
			return nil, fmt.Errorf("forward: golden trace: %w", err)
		}
	}
	layers, err := reference.LoadArray(ch, name("layers"))
	if err != nil {
		return nil, fmt.Errorf("forward: golden trace: %w", err)
	}
	if len(layers.Shape) != 3 {
		return nil, fmt.Errorf("forward: golden trace: %s has shape %v, want (layers, seq, hidden)", name("layers"), layers.Shape)
	}
	for l := 0; l < layers.Shape[0]; l++ {
		tr.Layers = append(tr.Layers, layers.Sub(l).Dense())
	}
	return tr, nil
}
