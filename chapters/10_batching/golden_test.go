package batching

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
	"github.com/qwen3go/qwen3go/reference/tinymodel"
	"gonum.org/v1/gonum/mat"
)

const chapter = "10_batching"

// goldenTol is DESIGN.md's tiny-model logits tolerance, absolute, against transformers' batched
// forward in float32 (this chapter runs in float64; measured about 3e-5, as in chapters 07 and 08).
const goldenTol = 1e-4

// goldenBatch is transformers' run of one padded batch (batch.json's "left" or "right").
type goldenBatch struct {
	IDs             [][]int `json:"ids"`
	AttentionMask   [][]int `json:"attention_mask"`
	PositionIDs     [][]int `json:"position_ids"`
	StepPositionIDs [][]int `json:"step_position_ids"` // B x (new tokens - 1): the position of each fed token
	NewIDs          [][]int `json:"new_ids"`           // B x max_new_tokens, the stop token then pad ids after a stop
}

func (g goldenBatch) real() [][]bool {
	out := make([][]bool, len(g.AttentionMask))
	for b, row := range g.AttentionMask {
		for _, v := range row {
			out[b] = append(out[b], v == 1)
		}
	}
	return out
}

type golden struct {
	Pad          int   `json:"pad"`
	StopTokens   []int `json:"stop_tokens"`
	MaxNewTokens int   `json:"max_new_tokens"`
	Prompts      []struct {
		Text        string `json:"text"`
		IDs         []int  `json:"ids"`
		AloneNewIDs []int  `json:"alone_new_ids"` // generate() on the prompt alone: ends with the stop token if one came
	} `json:"prompts"`
	Left  goldenBatch `json:"left"`
	Right goldenBatch `json:"right"`

	cols         []int
	prefill      *reference.Array // B x T x len(cols): every column's logits of the left-padded batch
	steps        *reference.Array // B x max_new_tokens x len(cols): the logits each new token was picked from
	maskVisible  *reference.Array // B x T x T: 1 where transformers' mask lets query r see key j
	width, batch int
}

var loadGoldenOnce = sync.OnceValues(func() (*golden, error) {
	var g golden
	if err := reference.LoadJSON(chapter, "batch", &g); err != nil {
		return nil, err
	}
	var err error
	if g.cols, err = reference.LoadInts(chapter, "cols.npy"); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		dst  **reference.Array
	}{{"prefill_logits_cols.npy", &g.prefill}, {"step_logits_cols.npy", &g.steps}, {"mask_visible.npy", &g.maskVisible}} {
		if *f.dst, err = reference.LoadArray(chapter, f.name); err != nil {
			return nil, err
		}
	}
	g.batch, g.width = len(g.Left.IDs), len(g.Left.IDs[0])
	if len(g.Prompts) != g.batch || len(g.Right.IDs) != g.batch ||
		!slices.Equal(g.prefill.Shape, []int{g.batch, g.width, len(g.cols)}) ||
		!slices.Equal(g.steps.Shape, []int{g.batch, g.MaxNewTokens, len(g.cols)}) ||
		!slices.Equal(g.maskVisible.Shape, []int{g.batch, g.width, g.width}) {
		return nil, fmt.Errorf("golden data: %d prompts, width %d, shapes %v %v %v do not fit", g.batch, g.width,
			g.prefill.Shape, g.steps.Shape, g.maskVisible.Shape)
	}
	return &g, nil
})

func loadGolden(t testing.TB) *golden {
	t.Helper()
	g, err := loadGoldenOnce()
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return g
}

func (g *golden) prompts() [][]int {
	var p [][]int
	for _, pr := range g.Prompts {
		p = append(p, pr.IDs)
	}
	return p
}

// trimmed returns transformers' new ids up to (not including) the first stop token: what Generate
// returns, since a stop token is not emitted.
func (g *golden) trimmed(ids []int) []int {
	for i, id := range ids {
		if slices.Contains(g.StopTokens, id) {
			return ids[:i]
		}
	}
	return ids
}

// worstCols is max |got[cols] - want| over the sampled columns.
func worstCols(got []float64, cols []int, want []float64) float64 {
	worst := 0.0
	for j, col := range cols {
		d := math.Abs(got[col] - want[j])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		worst = math.Max(worst, d)
	}
	return worst
}

// at returns a[b][t][:] of a 3-D array.
func at(a *reference.Array, b, t int) []float64 {
	n := a.Shape[2]
	off := (b*a.Shape[1] + t) * n
	return a.Data[off : off+n]
}

// side is one padding side of the golden data: the side and transformers' batch padded on it.
type side struct {
	side Side
	want goldenBatch
}

// sides returns the golden batches padded on the left, then on the right.
func (g *golden) sides() []side { return []side{{Left, g.Left}, {Right, g.Right}} }

// maxReported is how many failures of one kind a test prints before it only counts them: a broken
// batch goes wrong at every column and every step, and the first lines say what the rest would.
const maxReported = 3

// failures prints the first maxReported failures a test finds and counts the others (done).
type failures struct {
	t *testing.T
	n int
}

func (f *failures) errorf(format string, args ...any) {
	f.t.Helper()
	if f.n++; f.n <= maxReported {
		f.t.Errorf(format, args...)
	}
}

// done reports how many failures were not printed, then hint (if any failed and hint is not "").
func (f *failures) done(hint string) {
	f.t.Helper()
	if f.n > maxReported {
		f.t.Errorf("... and %d more like these", f.n-maxReported)
	}
	if f.n > 0 && hint != "" {
		f.t.Error(hint)
	}
}

// TestPadGolden: Pad gives transformers' padded ids and attention mask on both sides.
func TestPadGolden(t *testing.T) {
	g := loadGolden(t)
	for _, tc := range g.sides() {
		got, err := Pad(g.prompts(), g.Pad, tc.side)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != g.batch || len(got.Real) != g.batch {
			t.Fatalf("Pad(%v): %d rows of ids and %d of flags for %d prompts", tc.side, got.Len(), len(got.Real), g.batch)
		}
		wantReal := tc.want.real()
		for b, want := range tc.want.IDs {
			ids, real := got.IDs[b], got.Real[b]
			short := len(g.Prompts[b].IDs) < g.width
			switch {
			case len(ids) != g.width || len(real) != g.width:
				t.Fatalf("Pad(%v): prompt %d has %d ids and %d flags, want %d of each (T, the longest prompt's length)",
					tc.side, b, len(ids), len(real), g.width)
			case tc.side == Left && short && slices.Equal(ids, g.Right.IDs[b]):
				t.Fatalf("Pad(left): prompt %d is padded on the right %v: its last column is then a pad, and the next token would be predicted from it", b, ids)
			case !slices.Equal(ids, want):
				for col, id := range ids {
					if !wantReal[b][col] && id != g.Pad && slices.Equal(real, wantReal[b]) {
						t.Fatalf("Pad(%v): prompt %d, padding column %d holds %d, not the pad id %d: %v", tc.side, b, col, id, g.Pad, ids)
					}
				}
				t.Fatalf("Pad(%v): prompt %d ids %v, transformers %v", tc.side, b, ids, want)
			case !slices.Equal(real, wantReal[b]):
				if short && !slices.Contains(real, false) {
					t.Fatalf("Pad(%v): prompt %d has every column marked real %v: the padding is marked real, and the mask would then show the pad keys", tc.side, b, real)
				}
				t.Fatalf("Pad(%v): prompt %d real flags %v, transformers' attention_mask %v", tc.side, b, real, tc.want.AttentionMask[b])
			}
		}
	}
}

// TestPositionsGolden: Positions gives the position_ids transformers' generate() passed to the
// model, on both sides.
func TestPositionsGolden(t *testing.T) {
	g := loadGolden(t)
	for _, tc := range g.sides() {
		real := tc.want.real()
		got := Positions(real)
		if len(got) != len(real) {
			t.Fatalf("%v padding: %d rows of positions for %d sequences", tc.side, len(got), len(real))
		}
		for b, want := range tc.want.PositionIDs {
			if !slices.Equal(got[b], want) {
				t.Fatalf("%v padding, prompt %d: positions %v\ntransformers' position_ids %v:\n%s",
					tc.side, b, got[b], want, positionsHint(got[b], real[b]))
			}
		}
	}
}

// positionsHint names the likely mistake in the positions got of one sequence with flags real.
func positionsHint(got []int, real []bool) string {
	first := slices.Index(real, true)
	switch {
	case len(got) != len(real):
		return fmt.Sprintf("one position per column: want %d, not %d", len(real), len(got))
	case first > 0 && got[len(got)-1] == len(got)-1:
		return "counted from the first column (the pads), not from the first real token"
	case first >= 0 && got[first] == 1:
		return "the first real token is at position 1: cumsum(attention_mask) - 1 starts at 0"
	case slices.Contains(got, -1):
		return "a padding column at position -1, which RoPE does not have: padding gets 0"
	case first >= 0 && !slices.ContainsFunc(got, func(p int) bool { return p != 0 }):
		return "every position is 0: count the real tokens, position_ids = cumsum(attention_mask) - 1"
	}
	return "position_ids = cumsum(attention_mask) - 1, and 0 in padding columns"
}

// maskString draws a mask row: "." for a visible key (0), "x" for a hidden one (-Inf), and the
// value itself for anything else.
func maskString(row []float64) string {
	var b strings.Builder
	for j, v := range row {
		if j > 0 {
			b.WriteByte(' ')
		}
		switch {
		case v == 0:
			b.WriteByte('.')
		case math.IsInf(v, -1):
			b.WriteByte('x')
		default:
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}

// TestMaskGolden: Mask hides the keys transformers' mask hides, for every real query of every
// prompt, at prefill (every column a query) and for the newest queries over earlier columns (a
// decode step). Padding queries see only their own key (transformers' rows there are all masked;
// see Mask).
func TestMaskGolden(t *testing.T) {
	g := loadGolden(t)
	reals := g.Left.real()
	visible := func(b, r, j int) bool { return g.maskVisible.Data[(b*g.width+r)*g.width+j] == 1 }
	masks := make([]*mat.Dense, len(reals))
	hides := false
	for b, real := range reals {
		masks[b] = Mask(real, g.width)
		if r, c := masks[b].Dims(); r != g.width || c != g.width {
			t.Fatalf("Mask(real, %d) of prompt %d is %dx%d, want %dx%d", g.width, b, r, c, g.width, g.width)
		}
		hides = hides || slices.ContainsFunc(masks[b].RawMatrix().Data, func(v float64) bool { return math.IsInf(v, -1) })
	}
	if !hides {
		t.Fatalf("Mask hides nothing (every entry 0, for every prompt): future keys and padding keys get -Inf")
	}
	// The real queries first: they are the ones that matter.
	for b, real := range reals {
		for r := 0; r < g.width; r++ {
			if !real[r] {
				continue
			}
			row := masks[b].RawRowView(r)
			for j, v := range row {
				want := visible(b, r, j)
				switch got := v == 0; {
				case got && !want && !real[j]:
					t.Fatalf("prompt %d: query %d sees padding key %d (row %s): the padding mask is missing", b, r, j, maskString(row))
				case got && !want:
					t.Fatalf("prompt %d: query %d sees future key %d (row %s): the causal mask is missing", b, r, j, maskString(row))
				case !got && want:
					t.Fatalf("prompt %d: query %d does not see key %d, which transformers shows (row %s)", b, r, j, maskString(row))
				case !got && !math.IsInf(v, -1):
					t.Fatalf("prompt %d: query %d, key %d: mask %v, want 0 or -Inf", b, r, j, v)
				}
			}
		}
	}
	for b, real := range reals {
		for r := 0; r < g.width; r++ {
			if real[r] {
				continue
			}
			row := masks[b].RawRowView(r)
			if !slices.ContainsFunc(row, func(v float64) bool { return v == 0 }) {
				t.Fatalf("prompt %d: padding query %d sees no key at all (row %s): softmax of a row of -Inf is 0/0; let such a query see its own key", b, r, maskString(row))
			}
			for j, v := range row {
				if (j == r) != (v == 0) {
					t.Fatalf("prompt %d: padding query %d has the row %s: it must see its own key and nothing else", b, r, maskString(row))
				}
			}
		}
	}
	// The nq newest columns as queries: query r sits in column nk-nq+r, after nk-nq earlier ones.
	for _, nq := range []int{1, 3} {
		for b, real := range reals {
			m := Mask(real, nq)
			for r := 0; r < nq; r++ {
				col := g.width - nq + r
				if !real[col] {
					continue
				}
				want := make([]float64, g.width)
				for j := range want {
					if !visible(b, col, j) {
						want[j] = math.Inf(-1)
					}
				}
				if got := m.RawRowView(r); !slices.Equal(got, want) {
					t.Fatalf("Mask(real, %d) of prompt %d, query %d: %s\ntransformers' row for its column %d: %s\n(query r of the nq newest sits in column nk-nq+r, after the earlier columns)",
						nq, b, r, maskString(got), col, maskString(want))
				}
			}
		}
	}
}

// prefillAll runs a padded batch on a fresh cache and returns the logits of every column of every
// sequence (B slices of T rows), not only the last.
func prefillAll(t *testing.T, m *forward.Model, batch *Batch) [][][]float64 {
	t.Helper()
	c, err := New(m, batch.Width())
	if err != nil {
		t.Fatal(err)
	}
	var ids, pos []int
	positions := Positions(batch.Real)
	for b := range batch.IDs {
		if err := c.checkPositions(positions[b], b, 0); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, batch.IDs[b]...)
		pos = append(pos, positions[b]...)
		c.seqs = append(c.seqs, &sequence{k: make([][]float64, len(m.Layers)), v: make([][]float64, len(m.Layers)),
			real: slices.Clone(batch.Real[b])})
	}
	c.filled = true
	x, err := m.Embed(ids)
	if err != nil {
		t.Fatal(err)
	}
	for l := range m.Layers {
		x = m.Layers[l].Forward(x, m.Config.RMSNormEps, func(normed *mat.Dense) *mat.Dense { return c.attend(l, normed, pos, batch.Width()) })
	}
	_, logits := m.Logits(x)
	out := make([][][]float64, batch.Len())
	for b := range out {
		for t := 0; t < batch.Width(); t++ {
			out[b] = append(out[b], logits.RawRowView(b*batch.Width()+t))
		}
	}
	return out
}

// TestPrefillGolden: every real column of the left-padded batch has transformers' logits within
// goldenTol. Padding columns are skipped: their rows differ by design (see Mask) and nothing reads them.
func TestPrefillGolden(t *testing.T) {
	g := loadGolden(t)
	batch := &Batch{IDs: g.Left.IDs, Real: g.Left.real()}
	all := prefillAll(t, tinymodel.Model(t), batch)
	worst := 0.0
	bad := failures{t: t}
	for b := range all {
		for col := range all[b] {
			if !batch.Real[b][col] {
				continue
			}
			e := worstCols(all[b][col], g.cols, at(g.prefill, b, col))
			if !(e <= goldenTol) {
				bad.errorf("prompt %d column %d (position %d): logits differ from transformers' by %.3g (tolerance %g)",
					b, col, g.Left.PositionIDs[b][col], e, goldenTol)
			}
			worst = math.Max(worst, e)
		}
	}
	bad.done("Mask (TestMaskGolden) and Positions (TestPositionsGolden) decide which keys each column sees and where it sits")
	t.Logf("real columns within %.3g of transformers' (tolerance %g)", worst, goldenTol)
}

// TestStepsGolden replays transformers' batched generate() step by step: the cache is fed exactly
// the tokens transformers fed (a finished sequence keeps getting the pad id, as there), and at every
// step every sequence's logits match within goldenTol and its position is transformers' position.
func TestStepsGolden(t *testing.T) {
	g := loadGolden(t)
	c, err := New(tinymodel.Model(t), g.width+g.MaxNewTokens)
	if err != nil {
		t.Fatal(err)
	}
	logits, err := c.Prefill(&Batch{IDs: g.Left.IDs, Real: g.Left.real()})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for s := 0; s < g.MaxNewTokens; s++ {
		if s < g.MaxNewTokens-1 {
			for b := range logits {
				if want := g.Left.StepPositionIDs[b][s]; c.Next(b) != want {
					why := "a new token's position is one past its sequence's last one: the count of its real tokens so far"
					switch {
					case c.Next(b) == c.Width():
						why = "that is its column, counted from the first pad: a new token's position counts only the real tokens before it"
					case s > 0 && b > 0 && c.Next(b) == c.Next(0):
						why = "the same as prompt 0's: each sequence has its own next position"
					}
					t.Fatalf("before step %d, prompt %d: next position %d, transformers %d:\n%s", s, b, c.Next(b), want, why)
				}
			}
		}
		for b := range logits {
			e := worstCols(logits[b], g.cols, at(g.steps, b, s))
			if !(e <= goldenTol) {
				t.Fatalf("step %d, prompt %d: logits differ from transformers' by %.3g (tolerance %g)", s, b, e, goldenTol)
			}
			worst = math.Max(worst, e)
		}
		if s == g.MaxNewTokens-1 {
			break
		}
		feed := make([]int, g.batch)
		for b := range feed {
			feed[b] = g.Left.NewIDs[b][s]
		}
		if logits, err = c.Step(feed); err != nil {
			t.Fatal(err)
		}
		for b, seq := range c.seqs {
			if len(seq.real) != c.Width() || !seq.real[c.Width()-1] {
				t.Fatalf("after step %d, sequence %d: the new column is not marked real (flags %v): no query would see its key, not even its own", s, b, seq.real)
			}
		}
	}
	t.Logf("%d steps x %d sequences within %.3g of transformers' (tolerance %g)", g.MaxNewTokens, g.batch, worst, goldenTol)
}

// TestGenerateGolden: batched greedy Generate gives, for every prompt, transformers' batched ids
// and the ids of the prompt run alone (both cut at the stop token, which is not emitted), and
// streams each token with its prompt's index.
func TestGenerateGolden(t *testing.T) {
	g := loadGolden(t)
	opts := Options{
		GenerateOptions: sampling.GenerateOptions{Settings: sampling.Greedy(), MaxNewTokens: g.MaxNewTokens, StopTokens: g.StopTokens},
		Pad:             g.Pad, Side: Left,
	}
	streamed := make([][]int, g.batch)
	got, err := Generate(context.Background(), tinymodel.Model(t), g.prompts(), opts, func(seq, id int) error {
		streamed[seq] = append(streamed[seq], id)
		return nil
	})
	if err != nil {
		if strings.Contains(err.Error(), "tokens to feed") {
			t.Fatalf("%v:\na sequence still in the batch got no token (after g.leave(i, ...), the next sequence sits at index i)", err)
		}
		t.Fatal(err)
	}
	stopped := false
	for b := range g.Prompts {
		batched, alone := g.trimmed(g.Left.NewIDs[b]), g.trimmed(g.Prompts[b].AloneNewIDs)
		if !slices.Equal(batched, alone) {
			t.Fatalf("golden data: prompt %d batched %v, alone %v", b, batched, alone)
		}
		stopped = stopped || len(alone) < g.MaxNewTokens
		checkGenerated(t, b, got[b], alone, g)
		if !slices.Equal(streamed[b], got[b]) {
			t.Fatalf("prompt %d: streamed %v, returned %v", b, streamed[b], got[b])
		}
	}
	if !stopped {
		t.Fatal("golden data: no prompt stops early; the test would not see per-sequence stopping")
	}
}

// checkGenerated compares Generate's ids for prompt b with want and names the likely mistake.
func checkGenerated(t *testing.T, b int, got, want []int, g *golden) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	n := len(want)
	switch {
	case len(got) > n && slices.Equal(got[:n], want) && slices.Contains(g.StopTokens, got[n]):
		if len(got) == n+1 {
			t.Fatalf("prompt %d: %v ends with the stop token %d: a stop token ends a sequence but is not emitted", b, got, got[n])
		}
		t.Fatalf("prompt %d: after its stop token %d at new token %d it kept emitting %v: a finished sequence must stop (and leave the batch)", b, got[n], n, got[n:])
	case len(got) > n && slices.Equal(got[:n], want) && n == g.MaxNewTokens:
		t.Fatalf("prompt %d: %d new tokens, past the budget of %d: a sequence leaves once it has emitted its budget", b, len(got), n)
	case len(got) < n && slices.Equal(got, want[:len(got)]):
		t.Fatalf("prompt %d stopped after %d of its %d tokens: did the whole batch stop when another sequence finished? each sequence stops on its own", b, len(got), n)
	}
	for j := range min(len(got), n) {
		if got[j] != want[j] {
			t.Fatalf("prompt %d: new token %d is %d, transformers (batched and alone) %d\ngot  %v\nwant %v", b, j, got[j], want[j], got, want)
		}
	}
	t.Fatalf("prompt %d: got %v, want %v", b, got, want)
}

// diffIDs says where the new ids got first depart from want: "new token 3 is 12, not 15", or
// "5 new tokens, not 7".
func diffIDs(got, want []int) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("new token %d is %d, not %d", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d new tokens, not %d", len(got), len(want))
}

// TestRightPaddingGoesWrong: the same batch padded on the right reproduces transformers' own
// right-padded generate() token for token, and that is wrong: every prompt shorter than the batch
// continues differently from the same prompt alone, from its first new token on, because that
// token is predicted from a padding column. Only the full-width prompt, which has no padding, is
// unharmed.
func TestRightPaddingGoesWrong(t *testing.T) {
	g := loadGolden(t)
	opts := Options{
		GenerateOptions: sampling.GenerateOptions{Settings: sampling.Greedy(), MaxNewTokens: g.MaxNewTokens, StopTokens: g.StopTokens},
		Pad:             g.Pad, Side: Right,
	}
	got, err := Generate(context.Background(), tinymodel.Model(t), g.prompts(), opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := failures{t: t}
	for b, p := range g.Prompts {
		if want := g.trimmed(g.Right.NewIDs[b]); !slices.Equal(got[b], want) {
			bad.errorf("prompt %d padded on the right differs from transformers padded on the right: %s", b, diffIDs(got[b], want))
		}
		alone := g.trimmed(p.AloneNewIDs)
		short := len(p.IDs) < g.width
		if short && len(got[b]) > 0 && got[b][0] == alone[0] {
			bad.errorf("prompt %d (%d of %d columns) padded on the right still starts like the prompt alone: the right-padding demonstration shows nothing", b, len(p.IDs), g.width)
		}
		if !short && !slices.Equal(got[b], alone) {
			bad.errorf("prompt %d fills the batch (no padding) yet differs from the prompt alone: %v, want %v", b, got[b], alone)
		}
	}
	bad.done("")
	if !t.Failed() {
		for b, p := range g.Prompts {
			t.Logf("prompt %d (%2d tokens): right-padded %v...; alone %v...", b, len(p.IDs), got[b][:min(4, len(got[b]))], p.AloneNewIDs[:4])
		}
	}
}
