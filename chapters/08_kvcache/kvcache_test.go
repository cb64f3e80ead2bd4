package kvcache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
	"github.com/qwen3go/qwen3go/reference/tinymodel"
	"gonum.org/v1/gonum/mat"
)

const chapter = "08_kvcache"

// Tolerances.
const (
	// recomputeTol: cached decoding against chapter 07's full recompute, both float64, relative
	// to the largest logit. The same products are summed in the same order, only over matrices of
	// other sizes, so anything above float64 rounding (1e-15) is a bug; 1e-9 leaves room for BLAS
	// blocking and flags any real error (a wrong position or a missing key moves logits by >1e-2).
	recomputeTol = 1e-9
	// goldenTol is DESIGN.md's tiny-model logits tolerance, absolute, against transformers'
	// DynamicCache decoding in float32 (measured: about 4e-5).
	goldenTol = 1e-4
)

type golden struct {
	prompt, steps, cols, argmax []int
	logits                      *mat.Dense // 9 x len(cols): prefill's last position, then each step
}

func loadGolden(t *testing.T) golden {
	t.Helper()
	var g golden
	var err error
	for _, f := range []struct {
		name string
		dst  *[]int
	}{{"prompt_ids.npy", &g.prompt}, {"step_ids.npy", &g.steps}, {"cols.npy", &g.cols}, {"argmax.npy", &g.argmax}} {
		if *f.dst, err = reference.LoadInts(chapter, f.name); err != nil {
			t.Fatalf("golden data: %v", err)
		}
	}
	if g.logits, err = reference.LoadDense(chapter, "logits_cols.npy"); err != nil {
		t.Fatalf("golden data: %v", err)
	}
	if r, _ := g.logits.Dims(); r != len(g.steps)+1 || len(g.argmax) != r {
		t.Fatalf("golden data: %d logit rows, %d steps, %d argmax", r, len(g.steps), len(g.argmax))
	}
	return g
}

// relErr is max|got-want| / max|want| (+Inf on NaN), the course's relative error.
func relErr(got, want []float64) float64 { return reference.RelErr(got, want) }

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// decode prefills the golden prompt and feeds the golden steps, returning the logits after the
// prefill and after each step.
func decode(t *testing.T, c *Cache, g golden) [][]float64 {
	t.Helper()
	first, err := c.Prefill(g.prompt)
	if err != nil {
		t.Fatalf("Prefill: %v", err)
	}
	out := [][]float64{first}
	for i, id := range g.steps {
		logits, err := c.Step(id)
		if err != nil {
			t.Fatalf("Step %d: %v", i, err)
		}
		out = append(out, logits)
	}
	return out
}

// TestMatchesRecompute: at every step the cached logits equal chapter 07's forward pass over the
// whole sequence so far (last row), within recomputeTol relative.
func TestMatchesRecompute(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	c, err := New(m, 64)
	if err != nil {
		t.Fatal(err)
	}
	ids := append([]int(nil), g.prompt...)
	worst := 0.0
	for i, logits := range decode(t, c, g) {
		if i > 0 {
			ids = append(ids, g.steps[i-1])
		}
		full, err := m.Forward(ids)
		if err != nil {
			t.Fatal(err)
		}
		e := relErr(logits, full.RawRowView(len(ids)-1))
		if !(e <= recomputeTol) {
			when := fmt.Sprintf("step %d", i)
			hint := "a step's token sits at position Len() and its query sees every cached key (attention.Attend with past = Len())"
			if i == 0 {
				when = "the prefill"
				hint = "the prefill itself differs: run every layer with its own cached attention, and advance Len() once, after the last layer"
			}
			t.Fatalf("after %d tokens (%s): cached logits differ from chapter 07's Forward over all of them by %.3g relative (tolerance %g):\n%s",
				len(ids), when, e, recomputeTol, hint)
		}
		worst = math.Max(worst, e)
	}
	t.Logf("cached vs recomputed: %.3g relative at worst", worst)
}

// TestGolden compares every step with transformers' DynamicCache decoding: logits at the sampled
// columns within goldenTol absolute, and the same greedy token.
func TestGolden(t *testing.T) {
	g := loadGolden(t)
	c, err := New(tinymodel.Model(t), 64)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	var wrong []int // rows whose greedy token differs
	for i, logits := range decode(t, c, g) {
		want := g.logits.RawRowView(i)
		for j, col := range g.cols {
			worst = math.Max(worst, math.Abs(logits[col]-want[j]))
		}
		if argmax(logits) != g.argmax[i] {
			wrong = append(wrong, i)
		}
	}
	if len(wrong) > 0 {
		t.Errorf("the greedy token differs from transformers' after the prefill and %d steps, at rows %v (row 0 is the prefill)", len(g.steps), wrong)
	}
	if !(worst <= goldenTol) {
		t.Errorf("cached logits differ from transformers' by %.3g (tolerance %g absolute)", worst, goldenTol)
	} else {
		t.Logf("cached logits within %.3g of transformers' (tolerance %g)", worst, goldenTol)
	}
	if c.Len() != len(g.prompt)+len(g.steps) {
		t.Errorf("Len %d after %d tokens", c.Len(), len(g.prompt)+len(g.steps))
	}
}

// TestStepProjectsOneRow proves that the cache is used: a prefill projects each prompt token once
// per layer, and every step projects exactly one row per layer, at any position. Recomputing the
// prefix would project Len()+1 rows per layer. (A count, not a timing: no flaky thresholds.)
func TestStepProjectsOneRow(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	layers := len(m.Layers)
	c, err := New(m, 64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prefill(g.prompt); err != nil {
		t.Fatal(err)
	}
	if got, want := c.ProjectedRows(), layers*len(g.prompt); got != want {
		t.Errorf("prefill of %d tokens projected %d rows, want %d", len(g.prompt), got, want)
	}
	for i, id := range g.steps {
		before := c.ProjectedRows()
		if _, err := c.Step(id); err != nil {
			t.Fatal(err)
		}
		if got := c.ProjectedRows() - before; got != layers {
			t.Errorf("step %d at position %d projected %d rows, want %d (one per layer)", i, c.Len()-1, got, layers)
		}
	}
}

// TestPrefixNotRecomputed: after the prefill, the model the cache runs is swapped for one whose
// embeddings of the prompt's tokens are noise (the LM head keeps the real matrix). A cache that
// uses its stored keys and values never looks at those rows again, so the steps still match
// transformers; an implementation that re-embeds the prefix derails.
func TestPrefixNotRecomputed(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	c, err := New(m, 64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prefill(g.prompt); err != nil {
		t.Fatal(err)
	}
	inSteps := map[int]bool{}
	for _, id := range g.steps {
		inSteps[id] = true
	}
	noisy := mat.DenseCopyOf(m.Embedding)
	rng := rand.New(rand.NewPCG(8, 8))
	scrambled := 0
	for _, id := range g.prompt {
		if inSteps[id] {
			continue // the step itself needs this row
		}
		row := noisy.RawRowView(id)
		for j := range row {
			row[j] = rng.NormFloat64() * 5
		}
		scrambled++
	}
	if scrambled == 0 {
		t.Fatal("every prompt token is also a step token: nothing to scramble")
	}
	swapped := *m
	swapped.Embedding, swapped.LMHead, swapped.Tied = noisy, m.LMHead, false
	c.m = &swapped
	worst := 0.0
	for i, id := range g.steps {
		logits, err := c.Step(id)
		if err != nil {
			t.Fatal(err)
		}
		want := g.logits.RawRowView(i + 1)
		for j, col := range g.cols {
			worst = math.Max(worst, math.Abs(logits[col]-want[j]))
		}
	}
	if !(worst <= goldenTol) {
		t.Errorf("with the prompt's embeddings scrambled after the prefill, steps differ by %.3g: the prefix was recomputed", worst)
	}
}

// TestChunks: a prompt fed in pieces (Prefill, Prefill, Step) gives the same logits as one
// prefill: positions continue from Len().
func TestChunks(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	whole, _ := New(m, 16)
	want, err := whole.Prefill(g.prompt)
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := New(m, 16)
	if _, err := parts.Prefill(g.prompt[:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := parts.Prefill(g.prompt[2 : len(g.prompt)-1]); err != nil {
		t.Fatal(err)
	}
	got, err := parts.Step(g.prompt[len(g.prompt)-1])
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(got, want); !(e <= recomputeTol) {
		t.Errorf("chunked prefill differs from one prefill by %.3g relative", e)
	}
}

// TestResetTruncate: Reset starts a new sequence (the same logits as a fresh cache), and
// Truncate(n) rewinds to the state after n tokens.
func TestResetTruncate(t *testing.T) {
	g := loadGolden(t)
	c, _ := New(tinymodel.Model(t), 32)
	rows := decode(t, c, g)
	c.Reset()
	if c.Len() != 0 {
		t.Fatalf("Len %d after Reset", c.Len())
	}
	again := decode(t, c, g)
	for i := range rows {
		if e := relErr(again[i], rows[i]); e != 0 {
			t.Errorf("row %d after Reset differs by %.3g", i, e)
		}
	}
	n := len(g.prompt) + 3
	if err := c.Truncate(n); err != nil {
		t.Fatal(err)
	}
	logits, err := c.Step(g.steps[3])
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(logits, rows[4]); e != 0 {
		t.Errorf("step after Truncate(%d) differs by %.3g", n, e)
	}
	if err := c.Truncate(c.Len() + 1); err == nil {
		t.Errorf("Truncate beyond Len: no error")
	}
}

// TestContextOverflow: running past the cache's length or the model's context is an error that
// leaves the cache usable, never a panic.
func TestContextOverflow(t *testing.T) {
	m := tinymodel.Model(t)
	c, err := New(m, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Prefill([]int{1, 2, 3, 4, 5}); err == nil || !strings.Contains(err.Error(), "5 new tokens after 0 cached exceed the context of 4 positions") {
		t.Errorf("prefill of 5 into 4: error %v", err)
	}
	if _, err := c.Prefill([]int{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(4); err != nil {
		t.Fatalf("filling the last position: %v", err)
	}
	if _, err := c.Step(5); err == nil || !strings.Contains(err.Error(), "1 new tokens after 4 cached exceed the context of 4 positions") {
		t.Errorf("step past the end: error %v", err)
	}
	if c.Len() != 4 {
		t.Errorf("Len %d after a refused step", c.Len())
	}
	// The model's own context: a copy of the tiny model that claims only 6 positions.
	cfg := m.Config
	cfg.MaxPositionEmbeddings = 6
	short, err := forward.NewModel(cfg, m.Embedding, m.Layers, m.Norm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(short, 7); err == nil || !strings.Contains(err.Error(), "cache length 7 outside 1..6") {
		t.Errorf("cache longer than the model's context: error %v", err)
	}
	if _, err := New(m, 0); err == nil {
		t.Errorf("cache of length 0: no error")
	}
	c6, err := New(short, 6)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if _, err := c6.Step(i + 1); err != nil {
			t.Fatalf("step %d of 6: %v", i, err)
		}
	}
	if _, err := c6.Step(7); err == nil {
		t.Errorf("step 7 of a 6-position model: no error")
	}
}

func TestInputErrors(t *testing.T) {
	c, _ := New(tinymodel.Model(t), 8)
	if _, err := c.Prefill(nil); err == nil || !strings.Contains(err.Error(), "no tokens") {
		t.Errorf("empty prefill: error %v", err)
	}
	if _, err := c.Step(151936); err == nil || !strings.Contains(err.Error(), "token 151936 at position 0 is outside the vocabulary") {
		t.Errorf("id = vocab: error %v", err)
	}
	if _, err := c.Prefill([]int{1, -3}); err == nil || c.Len() != 0 || c.ProjectedRows() != 0 {
		t.Errorf("bad id in a chunk: error %v, Len %d, projected %d (want an error and an untouched cache)", err, c.Len(), c.ProjectedRows())
	}
	if _, err := New(nil, 8); err == nil {
		t.Errorf("nil model: no error")
	}
}

// TestCachedKeysAtTheirPositions checks what the logits cannot: the absolute positions. A key is
// stored rotated to its own position (chapter 04), and attention only sees position
// differences, so rotating every chunk one place too far (Len()+1 ...) moves every key and every
// query alike and changes no score beyond float rounding. The keys in the cache are the one thing
// that shows it: after a chunk of 2 tokens and a chunk of the rest, row t of layer 0's cache must
// be token t's key rotated to position t, as attention.Project of the whole prompt at 0 gives it
// (1e-12 relative: the same float64 arithmetic, in other matrix shapes). On a mismatch the message
// says at which position the key was rotated instead.
//
// Keys stored unrotated and rotated when they are read give the same attention, so for them this
// test checks a layout rule of the course, not the numbers, and says so: a cached key is stored
// rotated, as transformers' Qwen3Attention stores it (modeling_qwen3.py rotates key_states, then
// calls past_key_values.update), so that it is rotated once, when it is stored, rather than at
// every later step.
func TestCachedKeysAtTheirPositions(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	l := &m.Layers[0]
	x, err := m.Embed(g.prompt)
	if err != nil {
		t.Fatal(err)
	}
	normed := rmsnorm.RMSNorm(x, l.InputNorm, m.Config.RMSNormEps)
	seq, hidden := normed.Dims()
	_, want, _ := attention.Project(m.Attention(), &l.Attn, m.RoPE(), normed, 0)
	c, err := New(m, 16)
	if err != nil {
		t.Fatal(err)
	}
	// A prompt of 2, one decode step, then the rest as a chunk; c.n is what run sets after the
	// last layer of each.
	bounds := []int{0, 2, 3, seq}
	for i := 0; i+1 < len(bounds); i++ {
		c.n = bounds[i]
		c.attend(0, mat.DenseCopyOf(normed.Slice(bounds[i], bounds[i+1], 0, hidden)))
	}
	if got := len(c.k[0]) / c.kvw; got != seq {
		t.Fatalf("after chunks of 2, 1 and %d tokens layer 0's cache holds %d keys, want %d: append each chunk's k and v rows", seq-3, got, seq)
	}
	_, unrotated, _ := attention.Project(m.Attention(), &l.Attn, m.RoPE(), normed, 0)
	for r := range seq {
		row := mat.DenseCopyOf(normed.Slice(r, r+1, 0, hidden))
		_, k0, _ := attention.Project(m.Attention(), &l.Attn, m.RoPE(), row, 0)
		unrotated.SetRow(r, k0.RawRowView(0))
	}
	if seq > 1 && relErr(c.k[0], unrotated.RawMatrix().Data) <= 1e-12 {
		t.Fatalf("every cached key is stored unrotated (as at position 0). Rotating each key when it is read gives the\n" +
			"same attention, but this test checks a layout rule of the course: the cache stores each key already rotated to its\n" +
			"position, as transformers' Qwen3Attention does (it rotates key_states, then calls past_key_values.update), so a key is\n" +
			"rotated once, when stored, not again at every step: store k as attention.Project(..., startPos = Len()) returns it")
	}
	for r := range seq {
		got := c.k[0][r*c.kvw : (r+1)*c.kvw]
		if relErr(got, want.RawRowView(r)) <= 1e-12 {
			continue
		}
		where := "it is not token " + fmt.Sprint(r) + "'s key at any position near " + fmt.Sprint(r)
		for d := -3; d <= 3; d++ {
			if r+d < 0 || d == 0 {
				continue
			}
			_, kd, _ := attention.Project(m.Attention(), &l.Attn, m.RoPE(), mat.DenseCopyOf(normed.Slice(r, r+1, 0, hidden)), r+d)
			if relErr(got, kd.RawRowView(0)) <= 1e-12 {
				where = fmt.Sprintf("it is token %d's key rotated to position %d", r, r+d)
			}
		}
		chunk, start := "the 2-token prompt", 0
		switch {
		case r >= 3:
			chunk, start = "the last chunk", 3
		case r == 2:
			chunk, start = "a one-token decode step", 2
		}
		t.Fatalf("cached key %d (from %s, fed with Len() = %d) is not token %d's key at position %d: %s.\n"+
			"The new rows sit at positions Len(), Len()+1, ...: attention.Project(..., startPos = Len()). A shift of\n"+
			"every position alike leaves every score as it was (RoPE sees differences): only the cached keys show it.",
			r, chunk, start, r, r, where)
	}
}

// TestAttendMatchesChapter05 checks attend alone, on layer 0 of the tiny model: a first chunk of
// the golden prompt on an empty cache, then the rest of it after Len() is set by hand to the first
// chunk's length (run's job), must give the rows that chapter 05's attention.Forward gives for the
// whole prompt at once, to float64 rounding (1e-12 relative): the new rows at positions Len()..,
// their keys and values appended, every cached key visible.
func TestAttendMatchesChapter05(t *testing.T) {
	g := loadGolden(t)
	m := tinymodel.Model(t)
	l := &m.Layers[0]
	x, err := m.Embed(g.prompt)
	if err != nil {
		t.Fatal(err)
	}
	normed := rmsnorm.RMSNorm(x, l.InputNorm, m.Config.RMSNormEps)
	want, _ := attention.Forward(m.Attention(), &l.Attn, m.RoPE(), normed, 0)
	seq, hidden := normed.Dims()
	const first = 2
	c, err := New(m, 16)
	if err != nil {
		t.Fatal(err)
	}
	got := c.attend(0, mat.DenseCopyOf(normed.Slice(0, first, 0, hidden)))
	if e := relErr(got.RawMatrix().Data, want.Slice(0, first, 0, hidden).(*mat.Dense).RawMatrix().Data); !(e <= 1e-12) {
		t.Fatalf("a first chunk of %d tokens on an empty cache differs from chapter 05's attention by %.3g relative:\n"+
			"project the rows at positions Len().., append k and v, attend over the cache with past = Len()", first, e)
	}
	c.n = first // what run does after the last layer
	rest := mat.DenseCopyOf(normed.Slice(first, seq, 0, hidden))
	got = c.attend(0, rest)
	if e := relErr(got.RawMatrix().Data, mat.DenseCopyOf(want.Slice(first, seq, 0, hidden)).RawMatrix().Data); !(e <= 1e-12) {
		// The classic wrong attentions, computed here from chapter 05's pieces.
		ac := m.Attention()
		out := func(ctx *mat.Dense) []float64 {
			o := mat.NewDense(seq-first, hidden, nil)
			o.Mul(ctx, l.Attn.O.T())
			return o.RawMatrix().Data
		}
		q, k, v := attention.Project(ac, &l.Attn, m.RoPE(), rest, first)
		_, kAll, _ := attention.Project(ac, &l.Attn, m.RoPE(), normed, 0)
		var vAll mat.Dense
		vAll.Mul(normed, l.Attn.V.T())
		onlyNew, _ := attention.Attend(ac, q, k, v, 0)
		past0, _ := attention.Attend(ac, q, kAll, &vAll, 0)
		why := ""
		switch {
		case relErr(got.RawMatrix().Data, out(onlyNew)) <= 1e-9:
			why = "that is attention over the new rows alone: the cached keys and values are stored but never read; attend over all Len()+seq of them;\n"
		case relErr(got.RawMatrix().Data, out(past0)) <= 1e-9:
			why = "that is attention with past = 0: the mask then hides from query r every key after r, cached ones included; pass past = Len();\n"
		}
		t.Fatalf("the next %d tokens after %d cached differ from chapter 05's attention over the whole prompt by %.3g relative:\n%s"+
			"their rows sit at positions Len().. (RoPE), and their queries see every cached key (attention.Attend with past = Len())",
			seq-first, first, e, why)
	}
}

// TestBytes checks the memory formula on Qwen3-0.6B (28*2*8*128*4 = 229376 bytes per float32
// token) and on Qwen3-1.7B's shape.
func TestBytes(t *testing.T) {
	const formula = "layers * 2 (K and V) * KV heads * head_dim * bytes per value, per token"
	if got := Bytes(gguf.Qwen3_0_6B(), 1, 4); got != 229376 {
		why := ""
		switch got {
		case 2 * 229376:
			why = "that is twice as much: a key and a value for each of the 16 query heads; under grouped-query attention only the 8 KV heads have them;\n"
		case 229376 / 2:
			why = "that is half as much: the values are cached as well as the keys (the 2 in the formula);\n"
		}
		t.Fatalf("Qwen3-0.6B float32 bytes per token = %d, want 28*2*8*128*4 = 229376:\n%s%s", got, why, formula)
	}
	if got := Bytes(gguf.Qwen3_0_6B(), 40960, 2); got != 40960*114688 {
		t.Fatalf("Qwen3-0.6B BF16 full context = %d, want 40960*114688:\n%s, times tokens", got, formula)
	}
	// Qwen3-1.7B's shape: its hidden size (2048) is not KV heads * head_dim (1024), as 0.6B's is.
	wide := gguf.Config{HiddenSize: 2048, NumHiddenLayers: 28, NumAttentionHeads: 16, NumKeyValueHeads: 8, HeadDim: 128}
	if got := Bytes(wide, 1, 2); got != 114688 {
		t.Fatalf("Qwen3-1.7B BF16 bytes per token = %d, want 28*2*8*128*2 = 114688:\n%s (the hidden size is not in it)", got, formula)
	}
}

// TestMemoryWithinBytes: a cache's own allocation never exceeds Bytes(cfg, MaxLen, 8), and a full
// cache holds exactly that.
func TestMemoryWithinBytes(t *testing.T) {
	m := tinymodel.Model(t)
	c, _ := New(m, 20)
	if c.MemoryBytes() != 0 {
		t.Errorf("an empty cache holds %d bytes", c.MemoryBytes())
	}
	for i := 0; i < 20; i++ {
		if _, err := c.Step(i); err != nil {
			t.Fatal(err)
		}
		if got, limit := c.MemoryBytes(), Bytes(m.Config, 20, 8); got > limit {
			t.Fatalf("after %d tokens the cache holds %d bytes, more than its full size %d", i+1, got, limit)
		}
	}
	if got, want := c.MemoryBytes(), Bytes(m.Config, 20, 8); got != want {
		t.Errorf("a full cache holds %d bytes, Bytes says %d", got, want)
	}
}
