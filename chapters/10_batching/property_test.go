package batching

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	kvcache "github.com/qwen3go/qwen3go/chapters/08_kvcache"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
	"github.com/qwen3go/qwen3go/reference/tinymodel"
	"gonum.org/v1/gonum/mat"
)

// aloneTol: the batched cache against chapter 07/08 run on each prompt alone, both float64,
// relative to the largest logit. The real rows do the same products in the same order; the masked
// padding only adds exact zeros. Measured: 0 (bit-identical). 1e-12 leaves room for a BLAS that
// groups longer sums differently (float64 rounding, 1e-15); any real mistake (a visible pad, a
// shifted position) moves the logits by more than 1e-3.
const aloneTol = 1e-12

// run is the logits of a batched run: prefill (every column) then steps (one row per sequence).
type run struct {
	prefill [][][]float64 // B x T x vocab
	steps   [][][]float64 // steps x B x vocab
}

// runBatch prefills batch on model m (every column's logits) and feeds feeds[s] at step s.
func runBatch(t *testing.T, m *forward.Model, batch *Batch, feeds [][]int) run {
	t.Helper()
	r := run{prefill: prefillAll(t, m, batch)}
	c, err := New(m, batch.Width()+len(feeds))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prefill(batch); err != nil {
		t.Fatal(err)
	}
	for _, f := range feeds {
		logits, err := c.Step(f)
		if err != nil {
			t.Fatal(err)
		}
		r.steps = append(r.steps, logits)
	}
	return r
}

// greedyFeeds returns the first n greedy tokens of every golden prompt (alone), as steps x B, or
// fewer when a prompt stopped sooner (the shortest stops after 3).
func greedyFeeds(g *golden, n int) [][]int {
	for _, p := range g.Prompts {
		n = min(n, len(p.AloneNewIDs))
	}
	feeds := make([][]int, n)
	for s := range feeds {
		for _, p := range g.Prompts {
			feeds[s] = append(feeds[s], p.AloneNewIDs[s])
		}
	}
	return feeds
}

// goldenRun runs the golden prompts, left-padded with the golden pad id, through a prefill and 4
// steps fed each prompt's own greedy tokens.
func goldenRun(t *testing.T) (*golden, *forward.Model, *Batch, [][]int, run) {
	t.Helper()
	g, m := loadGolden(t), tinymodel.Model(t)
	batch, err := Pad(g.prompts(), g.Pad, Left)
	if err != nil {
		t.Fatal(err)
	}
	feeds := greedyFeeds(g, 4)
	return g, m, batch, feeds, runBatch(t, m, batch, feeds)
}

// TestPaddingInvisible is the property padding must have: what sits in a padding column never
// reaches a real token. The left-padded golden batch runs three times: with the pad id 151643,
// with a different random id in every padding column, and on a model whose embedding of 151643 is
// noise. Every real column's logits and every step's logits are bit-for-bit identical, because a
// hidden key gets probability exactly 0 and 0 times a finite value is exactly 0.
func TestPaddingInvisible(t *testing.T) {
	g, m, batch, feeds, want := goldenRun(t)

	rng := rand.New(rand.NewPCG(10, 10))
	vocab, _ := m.Embedding.Dims()
	other := &Batch{Real: batch.Real}
	for b, ids := range batch.IDs {
		other.IDs = append(other.IDs, slices.Clone(ids))
		for col, real := range batch.Real[b] {
			if !real {
				other.IDs[b][col] = rng.IntN(vocab)
			}
		}
	}
	noisy := mat.DenseCopyOf(m.Embedding)
	row := noisy.RawRowView(g.Pad)
	for j := range row {
		row[j] = 5 * rng.NormFloat64()
	}
	swapped, err := forward.NewModel(m.Config, noisy, m.Layers, m.Norm, m.LMHead) // the LM head keeps the real rows
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		m     *forward.Model
		batch *Batch
	}{{"random pad ids", m, other}, {"pad embedding replaced by noise", swapped, batch}} {
		got := runBatch(t, tc.m, tc.batch, feeds)
		bad := failures{t: t}
		for b := range batch.IDs {
			for col, real := range batch.Real[b] {
				if real && !slices.Equal(got.prefill[b][col], want.prefill[b][col]) {
					bad.errorf("%s: prompt %d column %d moved by %.3g: padding reached a real token (is a padding key visible?)",
						tc.name, b, col, reference.RelErr(got.prefill[b][col], want.prefill[b][col]))
				}
			}
		}
		for s := range feeds {
			for b := range feeds[s] {
				if !slices.Equal(got.steps[s][b], want.steps[s][b]) {
					bad.errorf("%s: step %d, prompt %d moved by %.3g: padding reached a real token", tc.name, s, b,
						reference.RelErr(got.steps[s][b], want.steps[s][b]))
				}
			}
		}
		bad.done("")
		if bad.n > 0 {
			return
		}
	}
}

// TestBatchedEqualsAlone: every real column of the batch has the logits of chapter 07's forward
// pass over its prompt alone, and every step those of chapter 08's cache fed the same tokens, within
// aloneTol: batching changes how the work is grouped, not the numbers.
func TestBatchedEqualsAlone(t *testing.T) {
	g, m, _, feeds, got := goldenRun(t)
	var worstPrefill, worstStep float64
	bad := failures{t: t}
	for b, p := range g.Prompts {
		full, err := m.Forward(p.IDs)
		if err != nil {
			t.Fatal(err)
		}
		pad := g.width - len(p.IDs)
		for i := range p.IDs {
			e := reference.RelErr(got.prefill[b][pad+i], full.RawRowView(i))
			if !(e <= aloneTol) {
				bad.errorf("prompt %d token %d (column %d): batched logits differ from the prompt alone by %.3g relative", b, i, pad+i, e)
			}
			worstPrefill = math.Max(worstPrefill, e)
		}
		c, err := kvcache.New(m, len(p.IDs)+len(feeds))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Prefill(p.IDs); err != nil {
			t.Fatal(err)
		}
		for s := range feeds {
			alone, err := c.Step(feeds[s][b])
			if err != nil {
				t.Fatal(err)
			}
			e := reference.RelErr(got.steps[s][b], alone)
			if !(e <= aloneTol) {
				bad.errorf("prompt %d step %d: batched logits differ from chapter 08's cache by %.3g relative", b, s, e)
			}
			worstStep = math.Max(worstStep, e)
		}
	}
	worst := math.Max(worstPrefill, worstStep)
	var hint string
	switch {
	case worst < 1e-4: // a uniform shift of positions: RoPE's float32 angle table, about 5e-7 (see doc.go)
		hint = fmt.Sprintf("the logits moved only a little (%.2g): a sequence's positions shifted all alike, as when counted from the column, padding included", worst)
	case worstPrefill > aloneTol:
		hint = "the prefill's real columns already differ: a real token sees a padding key or sits at another position than in its prompt alone (Positions, Mask)"
	default:
		hint = "only the steps differ: each new token sits at its own sequence's next position, and its column is real"
	}
	bad.done(hint)
	t.Logf("batched vs alone: %.3g relative at worst (tolerance %g)", worst, aloneTol)
}

// TestSampledBatchEqualsAlone: with sampling, each sequence has its own Sampler seeded like the one
// chapter 09's Generate would use for the prompt alone, so the batch draws, prompt by prompt, the
// tokens each prompt draws alone.
func TestSampledBatchEqualsAlone(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	gen := sampling.GenerateOptions{Settings: sampling.QwenNonThinking(7), MaxNewTokens: 12, StopTokens: []int{}}
	got, err := Generate(context.Background(), m, g.prompts(), Options{GenerateOptions: gen, Pad: PadToken}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for b, p := range g.Prompts {
		c, err := kvcache.New(m, len(p.IDs)+gen.MaxNewTokens)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := sampling.Generate(context.Background(), c, p.IDs, gen, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[b], alone) {
			t.Errorf("prompt %d: batched sampling differs from the prompt alone: %s (each sequence draws with its own Sampler, seeded as alone)", b, diffIDs(got[b], alone))
		}
	}
}

// TestOneWeightPassPerStep: a prefill and every step read each layer's weights once for the whole
// batch (one stacked matrix product), whatever the batch size, also after sequences have left.
func TestOneWeightPassPerStep(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	layers := len(m.Layers)
	batch, _ := Pad(g.prompts(), g.Pad, Left)
	c, _ := New(m, g.width+4)
	if _, err := c.Prefill(batch); err != nil {
		t.Fatal(err)
	}
	if c.WeightPasses() != layers {
		t.Errorf("prefill of %d sequences: %d weight passes, want %d (one per layer)", batch.Len(), c.WeightPasses(), layers)
	}
	feed := []int{1, 2, 3, 4, 5}
	for s := 0; s < 3; s++ {
		before := c.WeightPasses()
		if _, err := c.Step(feed); err != nil {
			t.Fatal(err)
		}
		if got := c.WeightPasses() - before; got != layers {
			t.Errorf("step %d with %d sequences: %d weight passes, want %d", s, len(feed), got, layers)
		}
		if err := c.Remove(0); err != nil {
			t.Fatal(err)
		}
		feed = feed[1:]
	}
}

// TestRemove: a sequence that leaves does not change the others: after Remove(1), the remaining
// sequences' next logits are those of a batch that kept it (1e-12 relative: the same arithmetic
// on a matrix with one row fewer).
func TestRemove(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	batch, _ := Pad(g.prompts(), g.Pad, Left)
	feeds := greedyFeeds(g, 3)
	keep, _ := New(m, g.width+3)
	drop, _ := New(m, g.width+3)
	for _, c := range []*Cache{keep, drop} {
		if _, err := c.Prefill(batch); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Step(feeds[0]); err != nil {
			t.Fatal(err)
		}
	}
	if err := drop.Remove(1); err != nil {
		t.Fatal(err)
	}
	if drop.Len() != batch.Len()-1 || drop.Next(1) != keep.Next(2) {
		t.Fatalf("after Remove(1): %d sequences, sequence 1 at position %d (want %d, the old sequence 2)", drop.Len(), drop.Next(1), keep.Next(2))
	}
	all, err := keep.Step(feeds[1])
	if err != nil {
		t.Fatal(err)
	}
	rest, err := drop.Step(slices.Delete(slices.Clone(feeds[1]), 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range []int{0, 2, 3, 4} {
		if e := reference.RelErr(rest[i], all[b]); !(e <= 1e-12) {
			t.Errorf("prompt %d after prompt 1 left: logits moved by %.3g relative", b, e)
		}
	}
	if err := drop.Remove(4); err == nil {
		t.Errorf("Remove(4) of 4 sequences: no error")
	}
}
