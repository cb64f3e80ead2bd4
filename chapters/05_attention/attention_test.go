package attention

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

const chapter = "05_attention"

// goldenTol is the course-wide tolerance for a chapter op against transformers, relative to the
// largest magnitude of the expected array. The reference ran one Qwen3Attention layer in float32
// (eager attention); this chapter runs in float64. A few dozen float32 roundings per output stay
// far below 1e-5, while every mistake listed in doc.go (pairing, QK-norm, head map, mask, scale)
// moves the output by more than 1e-2.
const goldenTol = 1e-5

func relErr(t *testing.T, got, want []float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	return reference.RelErr(got, want)
}

func load(t *testing.T, name string) *reference.Array {
	t.Helper()
	a, err := reference.LoadArray(chapter, name)
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return a
}

type golden struct {
	cfg Config
	w   *Weights
	x   *mat.Dense
}

func loadGolden(t *testing.T) golden {
	t.Helper()
	var m struct {
		Hidden  int     `json:"hidden"`
		Heads   int     `json:"heads"`
		KVHeads int     `json:"kv_heads"`
		HeadDim int     `json:"head_dim"`
		Theta   float64 `json:"theta"`
		Eps     float64 `json:"eps"`
	}
	if err := reference.LoadJSON(chapter, "meta", &m); err != nil {
		t.Fatalf("golden data: %v", err)
	}
	g := golden{
		cfg: Config{Hidden: m.Hidden, Heads: m.Heads, KVHeads: m.KVHeads, HeadDim: m.HeadDim, Eps: m.Eps, Theta: m.Theta},
		w: &Weights{
			Q:     load(t, "q_proj.npy").Dense(),
			K:     load(t, "k_proj.npy").Dense(),
			V:     load(t, "v_proj.npy").Dense(),
			O:     load(t, "o_proj.npy").Dense(),
			QNorm: load(t, "q_norm.npy").Data,
			KNorm: load(t, "k_norm.npy").Data,
		},
		x: load(t, "x.npy").Dense(),
	}
	if err := g.w.Check(g.cfg); err != nil {
		t.Fatalf("golden weights: %v", err)
	}
	return g
}

// The small tests of the exercises come first, in the order the exercises are written: go test
// runs a file's tests in order, so a mistake is named by the test that sees it before the golden
// tests below report it as wrong numbers.

func TestMask(t *testing.T) {
	inf := math.Inf(-1)
	for _, c := range []struct {
		nq, nk, past int
		want         []float64
	}{
		{3, 3, 0, []float64{0, inf, inf, 0, 0, inf, 0, 0, 0}},
		{2, 4, 2, []float64{0, 0, 0, inf, 0, 0, 0, 0}},
	} {
		got := Mask(c.nq, c.nk, c.past)
		// maskLike builds the mask whose row r hides key j when hide(r, j).
		maskLike := func(hide func(r, j int) bool) []float64 {
			m := make([]float64, c.nq*c.nk)
			for r := 0; r < c.nq; r++ {
				for j := 0; j < c.nk; j++ {
					if hide(r, j) {
						m[r*c.nk+j] = inf
					}
				}
			}
			return m
		}
		for r := 0; r < c.nq; r++ {
			if g, w := got.RawRowView(r), c.want[r*c.nk:(r+1)*c.nk]; !floats.Same(g, w) {
				why := ""
				switch all := got.RawMatrix().Data; {
				case floats.Same(all, maskLike(func(r, j int) bool { return j >= c.past+r })):
					why = "the query's own key is hidden too: a token sees itself (key past+r is visible)\n"
				case c.past > 0 && floats.Same(all, maskLike(func(r, j int) bool { return j > r })):
					why = fmt.Sprintf("that is the mask for past = 0: the cached keys come first, so query r is at key past+r = %d+r\n", c.past)
				case floats.Same(all, maskLike(func(r, j int) bool { return j < c.past+r })):
					why = "the earlier keys are hidden and the later ones visible: the past is masked instead of the future\n"
				}
				t.Fatalf("Mask(%d, %d, past=%d) row %d = %v, want %v:\n%squery r is the token at key past+r: keys 0..past+r are visible (0), later keys -Inf",
					c.nq, c.nk, c.past, r, g, w, why)
			}
		}
	}
}

// TestSoftmax: rows sum to 1, huge scores do not overflow, -Inf gives exactly 0, and adding a
// constant to every score changes nothing (1e-15: float64 rounding).
func TestSoftmax(t *testing.T) {
	in := []float64{1000, 1001, math.Inf(-1), 999}
	row := slices.Clone(in)
	Softmax(row)
	e := math.Exp(1)
	want := []float64{1 / (1 + e + 1/e), e / (1 + e + 1/e), 0, (1 / e) / (1 + e + 1/e)}
	for i := range want {
		if math.Abs(row[i]-want[i]) > 1e-15 || math.IsNaN(row[i]) {
			hint := "p_j = exp(s_j - max) / Σ exp(s_i - max)"
			switch {
			case slices.Equal(row, in):
				hint = "the scores are unchanged: replace each one by its probability, in place"
			case math.IsNaN(row[i]) || math.IsInf(row[i], 0):
				hint = "exp(1000) overflows: subtract the row's maximum from every score first"
			case allFloat32(row) && math.Abs(row[i]-want[i]) < 1e-6:
				hint = "every value is a float32 number, off by float32's rounding: compute in float64 (this chapter is\n" +
					"float64 throughout; transformers' float32 softmax is what the 1e-5 golden tolerance allows for)"
			case math.Abs(floats.Sum(row)-1) > 1e-12:
				hint = fmt.Sprintf("the row sums to %.17g: divide each exp(s_j - max) by the sum of the same exponentials", floats.Sum(row))
			}
			// 17 digits: a float32 softmax is off by 1e-8, which fewer digits would not show.
			t.Errorf("Softmax(1000, 1001, -Inf, 999):\n got  %.17g\n want %.17g\n%s", row, want, hint)
			break
		}
	}
	if row[2] != 0 {
		t.Errorf("masked entry = %g, want exactly 0", row[2])
	}
	one := []float64{-3}
	Softmax(one)
	if one[0] != 1 {
		t.Errorf("softmax of one value = %g, want 1", one[0])
	}
}

// TestGQAHeadMap: consecutive query heads share a KV head (h / group), as in transformers'
// repeat_kv, not round-robin (h % kvHeads).
func TestGQAHeadMap(t *testing.T) {
	var got []int
	for h := 0; h < 16; h++ {
		got = append(got, KVHead(h, 16, 8))
	}
	want := []int{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}
	for h := range want {
		if got[h] != want[h] {
			why := ""
			switch {
			case got[9] == 9%8 && got[1] == 1:
				why = "that is h % kvHeads, round-robin: "
			case got[9] == 9/8 && got[15] == 1:
				why = "that is h / kvHeads: divide by the group size heads/kvHeads instead; "
			}
			t.Fatalf("KVHead for 16/8 heads = %v, want %v:\n%sconsecutive query heads share a KV head: h / (heads/kvHeads), as transformers' repeat_kv", got, want, why)
		}
	}
	if KVHead(3, 4, 1) != 0 || KVHead(3, 4, 4) != 3 {
		t.Errorf("KVHead: MQA or MHA cases wrong")
	}
}

// TestAttendByHand: one head of width 4, two tokens, identity-like inputs, so the expected
// probabilities can be written down: query 1 sees keys 0 and 1 with scores (0, 4)/sqrt(4) = (0, 2).
// Hidden is 16, so that hidden/heads (16) is not head_dim (4), as in Qwen3 (1024/16 = 64, not
// 128): a scale of 1/sqrt(hidden/heads) gives other probabilities, and the message says which
// scale they imply.
func TestAttendByHand(t *testing.T) {
	c := Config{Hidden: 16, Heads: 1, KVHeads: 1, HeadDim: 4, Eps: 1e-6, Theta: 1e4}
	q := mat.NewDense(2, 4, []float64{1, 0, 0, 0, 2, 2, 0, 0})
	k := mat.NewDense(2, 4, []float64{0, 0, 1, 0, 1, 1, 0, 0})
	v := mat.NewDense(2, 4, []float64{1, 0, 0, 0, 0, 1, 0, 0})
	ctx, probs := Attend(c, q, k, v, 0)
	p1 := math.Exp(2) / (1 + math.Exp(2))
	want := mat.NewDense(2, 2, []float64{1, 0, 1 - p1, p1})
	if !mat.EqualApprox(probs[0], want, 1e-15) {
		hint := "p = softmax(q·k/sqrt(head_dim)) over the visible keys"
		if slices.ContainsFunc(probs[0].RawMatrix().Data, func(x float64) bool { return math.IsInf(x, -1) }) {
			hint = "a probability is -Inf: the mask is added after the softmax; add it to the scores, then take the softmax of each row"
		} else if got0, got1 := probs[0].At(1, 0), probs[0].At(1, 1); got0 > 0 && got1 > 0 && probs[0].At(0, 1) == 0 {
			// p1/p0 = exp(4·scale): the scale the probabilities imply.
			switch s := math.Log(got1/got0) / 4; {
			case math.Abs(s-0.5) > 1e-6:
				hint = fmt.Sprintf("these probabilities are softmax of q·k times %.4g (1/sqrt(%.4g)); want 1/sqrt(head_dim) = 1/sqrt(4) = 0.5", s, 1/(s*s))
			case allFloat32(probs[0].RawRowView(1)):
				hint = "the scale is right, but every probability is a float32 number: compute the softmax in float64 (TestSoftmax)"
			}
		}
		// 17 digits: a softmax in float32 is off by 1e-8, which fewer digits would not show.
		t.Fatalf("query 1 sees keys 0 and 1 with scores q·k/sqrt(4) = (0, 2), so p = softmax(0, 2):\n got  %.17g\n want %.17g\n%s",
			probs[0].RawMatrix().Data, want.RawMatrix().Data, hint)
	}
	wantCtx := mat.NewDense(2, 4, []float64{1, 0, 0, 0, 1 - p1, p1, 0, 0})
	if !mat.EqualApprox(ctx, wantCtx, 1e-15) {
		hint := "ctx = P v"
		var pk mat.Dense
		if pk.Mul(want, k); mat.EqualApprox(ctx, &pk, 1e-15) {
			hint = "that is P k: the context is P times the values v, not the keys"
		}
		t.Errorf("context %.4f, want %.4f: %s", ctx.RawMatrix().Data, wantCtx.RawMatrix().Data, hint)
	}
}

// TestGQASharesKV: with 4 query heads over 2 KV heads, query heads 0 and 1 must read KV head 0.
// Give KV head 1 values of 100 and KV head 0 values of 1: heads 0, 1 output 1, heads 2, 3 output 100.
func TestGQASharesKV(t *testing.T) {
	c := Config{Hidden: 4, Heads: 4, KVHeads: 2, HeadDim: 2, Eps: 1e-6, Theta: 1e4}
	rng := rand.New(rand.NewPCG(3, 4))
	q, k := randDense(rng, 3, 8, 1), randDense(rng, 3, 4, 1)
	v := mat.NewDense(3, 4, []float64{1, 1, 100, 100, 1, 1, 100, 100, 1, 1, 100, 100})
	var ctx *mat.Dense
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Attend with 4 query heads over 2 KV heads panicked (%v): does query head h slice KV head h? "+
					"k and v hold only 2 heads: head h reads KV head KVHead(h, heads, kvHeads)", r)
			}
		}()
		ctx, _ = Attend(c, q, k, v, 0)
	}()
	for r := 0; r < 3; r++ {
		for h := 0; h < 4; h++ {
			want := 1.0
			if h >= 2 {
				want = 100
			}
			// Which KV head was read is what this test checks: 1 or 100. A relative 1e-3 leaves
			// room for any softmax whose row sums to 1 within float32 rounding (6e-8), so that
			// a softmax in the wrong precision is reported by TestSoftmax, not here.
			if got := ctx.At(r, 2*h); math.Abs(got-want) > 1e-3*want {
				t.Fatalf("4 query heads over 2 KV heads (values 1 and 100): row %d, query head %d reads %g, want %g:\n"+
					"query head h reads KV head h / (heads/kvHeads): heads 0, 1 read KV head 0, heads 2, 3 KV head 1", r, h, got, want)
			}
		}
	}
}

// testForward runs Forward at startPos and compares the output and every head's attention
// probabilities with transformers. Tolerance: goldenTol relative to the largest magnitude of
// each expected array (probabilities are at most 1, so for them it is an absolute 1e-5).
func testForward(t *testing.T, posName, outName, weightsName string) {
	g := loadGolden(t)
	pos, err := reference.LoadInts(chapter, posName)
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	startPos := pos[0]
	for i, p := range pos {
		if p != startPos+i {
			t.Fatalf("%s = %v: not consecutive positions", posName, pos)
		}
	}
	out, probs := Forward(g.cfg, g.w, g.cfg.RoPE(64), g.x, startPos)
	want := load(t, outName)
	wantP := load(t, weightsName)
	if len(wantP.Shape) != 3 || wantP.Shape[0] != g.cfg.Heads {
		t.Fatalf("%s has shape %v, want (heads, seq, seq)", weightsName, wantP.Shape)
	}
	var worst float64
	var badHeads []int
	for h := range probs {
		e := relErr(t, probs[h].RawMatrix().Data, wantP.Sub(h).Data)
		if e > goldenTol {
			badHeads = append(badHeads, h)
		}
		worst = math.Max(worst, e)
	}
	e := relErr(t, out.RawMatrix().Data, want.Data)
	switch {
	case len(badHeads) > 0:
		hint := "q·k differs: for q and k, project, QK-norm each head, then rotate row r to position startPos+r"
		// Before blaming the projection: attention computed here, independently of Attend, on
		// Project's own q and k. If that matches transformers, q and k are right and the
		// difference is in the attention itself (its scale, its mask or its softmax).
		q, k, _ := Project(g.cfg, g.w, g.cfg.RoPE(64), g.x, startPos)
		if h := attentionHint(g.cfg, q, k, probs, wantP); h != "" {
			hint = h
		} else if startPos != 0 {
			out0, _ := Forward(g.cfg, g.w, g.cfg.RoPE(64), g.x, 0)
			if relErr(t, out0.RawMatrix().Data, load(t, "out.npy").Data) <= goldenTol {
				hint = fmt.Sprintf("positions 0.. match transformers, positions %d.. do not: rotate row r to position startPos+r", startPos)
			}
		}
		t.Errorf("%s: the attention probabilities of heads %v differ from transformers (max error %.3g > %g):\n%s",
			weightsName, badHeads, worst, goldenTol, hint)
	case e > goldenTol:
		t.Errorf("%s: relative error %.3g > %g, though the attention probabilities match (max error %.3g):\n"+
			"the values are v = x V^T, with no norm and no RoPE; ctx_h = P_h v_(KVHead(h)); out = ctx O^T", outName, e, goldenTol, worst)
	default:
		t.Logf("%s: relative error %.3g; %s: max error over %d heads %.3g", outName, e, weightsName, len(probs), worst)
	}
}

// refProbs is causal attention of one query head, computed here with the scale the caller
// names, independently of Mask, Softmax and Attend (which are exercises and may be wrong).
func refProbs(c Config, q, k *mat.Dense, h int, scale float64) []float64 {
	nq, _ := q.Dims()
	nk, _ := k.Dims()
	d, g := c.HeadDim, h/(c.Heads/c.KVHeads)
	out := make([]float64, nq*nk)
	for r := range nq {
		row := out[r*nk : (r+1)*nk]
		past := nk - nq
		m := math.Inf(-1)
		for j := 0; j <= past+r; j++ {
			row[j] = scale * floats.Dot(q.RawRowView(r)[h*d:(h+1)*d], k.RawRowView(j)[g*d:(g+1)*d])
			m = math.Max(m, row[j])
		}
		var sum float64
		for j := 0; j <= past+r; j++ {
			row[j] = math.Exp(row[j] - m)
			sum += row[j]
		}
		for j := 0; j <= past+r; j++ {
			row[j] /= sum
		}
	}
	return out
}

// attentionHint returns "" when attention on q and k, computed independently, differs from
// transformers' probabilities wantP (then q and k are wrong); otherwise it names what Attend got
// wrong: a scale it recognises, or the attention step in general.
func attentionHint(c Config, q, k *mat.Dense, probs []*mat.Dense, wantP *reference.Array) string {
	right := 1 / math.Sqrt(float64(c.HeadDim))
	for h := range c.Heads {
		if reference.RelErr(refProbs(c, q, k, h, right), wantP.Sub(h).Data) > goldenTol {
			return ""
		}
	}
	for _, s := range []struct {
		scale float64
		name  string
	}{
		{1 / math.Sqrt(float64(c.Hidden/c.Heads)), fmt.Sprintf("1/sqrt(hidden/heads) = 1/sqrt(%d)", c.Hidden/c.Heads)},
		{1 / float64(c.HeadDim), fmt.Sprintf("1/head_dim = 1/%d", c.HeadDim)},
		{1, "1 (no scale)"},
	} {
		same := true
		for h := range c.Heads {
			same = same && reference.RelErr(probs[h].RawMatrix().Data, refProbs(c, q, k, h, s.scale)) <= goldenTol
		}
		if same {
			return fmt.Sprintf("q and k are right (softmax(q·k/sqrt(head_dim)) of them matches transformers), but the scores were scaled by %s:\n"+
				"the scale is 1/sqrt(head_dim) = 1/sqrt(%d); head_dim is not hidden/heads in Qwen3", s.name, c.HeadDim)
		}
	}
	return "q and k are right (softmax(q·k/sqrt(head_dim)) of them matches transformers), but Attend's probabilities differ:\n" +
		"check the scale 1/sqrt(head_dim), the causal mask and the softmax (TestAttendByHand, TestMask and TestSoftmax test them alone)"
}

// TestForwardGolden: one Qwen3Attention layer on 7 tokens at positions 0..6.
func TestForwardGolden(t *testing.T) { testForward(t, "positions.npy", "out.npy", "weights.npy") }

// TestForwardOffsetGolden: the same tokens at positions 3..9 (RoPE offset, no cache). RoPE only
// sees position differences, so the result is close to TestForwardGolden's, but not equal.
func TestForwardOffsetGolden(t *testing.T) {
	testForward(t, "positions_offset.npy", "out_offset.npy", "weights_offset.npy")
}

// TestGoldenAttentionIsPeaked guards the golden data: if the reference attention were nearly
// uniform, scaling and masking mistakes could hide inside the tolerance. Row 0 (one visible key,
// probability 1) proves nothing, so only rows r >= 1 count: on average their largest probability
// must be at least 0.6, and in every row at least 1.5 times the uniform 1/(r+1).
func TestGoldenAttentionIsPeaked(t *testing.T) {
	p := load(t, "weights.npy") // heads x seq x seq
	heads, seq := p.Shape[0], p.Shape[1]
	var sum float64
	for h := 0; h < heads; h++ {
		for r := 1; r < seq; r++ {
			row := p.Data[(h*seq+r)*seq : (h*seq+r)*seq+r+1]
			var maxP float64
			for _, v := range row {
				maxP = math.Max(maxP, v)
			}
			if uniform := 1 / float64(r+1); maxP < 1.5*uniform {
				t.Errorf("head %d row %d: largest probability %.3g, uniform would be %.3g: too flat to test", h, r, maxP, uniform)
			}
			sum += maxP
		}
	}
	if mean := sum / float64(heads*(seq-1)); mean < 0.6 {
		t.Errorf("mean largest probability %.3g over rows with 2+ keys: attention is too flat to test", mean)
	}
}

// TestProbabilitiesAreCausalDistributions: on the golden layer and on random inputs with a past,
// every probability row sums to 1 (to 1e-12: float64 rounding over a handful of terms), and every
// probability on a future key is exactly 0.
func TestProbabilitiesAreCausalDistributions(t *testing.T) {
	g := loadGolden(t)
	_, probs := Forward(g.cfg, g.w, g.cfg.RoPE(16), g.x, 0)
	checkCausal(t, probs, 0)

	rng := rand.New(rand.NewPCG(1, 2))
	c := Config{Hidden: 8, Heads: 4, KVHeads: 2, HeadDim: 4, Eps: 1e-6, Theta: 1e4}
	q, k, v := randDense(rng, 3, 16, 3), randDense(rng, 8, 8, 3), randDense(rng, 8, 8, 1)
	_, probs = Attend(c, q, k, v, 5)
	checkCausal(t, probs, 5)
}

// checkCausal reports, for each kind of fault, its first occurrence and how many there are.
func checkCausal(t *testing.T, probs []*mat.Dense, past int) {
	t.Helper()
	type fault struct {
		first string
		n     int
	}
	faults := map[string]*fault{}
	var kinds []string
	add := func(kind, format string, args ...any) {
		if faults[kind] == nil {
			faults[kind] = &fault{first: fmt.Sprintf(format, args...)}
			kinds = append(kinds, kind)
		}
		faults[kind].n++
	}
	for h, p := range probs {
		nq, nk := p.Dims()
		for r := 0; r < nq; r++ {
			var sum float64
			for j := 0; j < nk; j++ {
				v := p.At(r, j)
				switch {
				case math.IsNaN(v):
					add("NaN: a query whose keys are all masked (does it see its own key?), or exp overflowed",
						"head %d: query %d gives weight NaN to key %d", h, r, j)
				case v < 0 || v > 1:
					add("probabilities lie in [0, 1]: was the softmax applied to the scores?",
						"head %d: query %d gives weight %.3g to key %d", h, r, v, j)
				case j > past+r && v != 0:
					add("query r sits at key past+r and sees keys 0..past+r only: the mask is -Inf after it",
						"head %d: query %d (after %d past keys) gives weight %.3g to future key %d", h, r, past, v, j)
				case j <= past+r && !(v > 0):
					add("every key up to past+r is visible: the mask is 0 there",
						"head %d: query %d (after %d past keys) gives weight %g to visible key %d", h, r, past, v, j)
				}
				sum += v
			}
			switch {
			case math.Abs(sum-1) <= 1e-12 || math.IsNaN(sum):
			case math.Abs(sum-1) < 1e-6 && allFloat32(p.RawRowView(r)):
				add("every probability is a float32 number and the row sums to 1 only to float32's precision: compute the softmax in float64",
					"head %d row %d sums to %.17g", h, r, sum)
			default:
				add("each row of probabilities sums to 1: divide the exponentials by their sum",
					"head %d row %d sums to %.17g", h, r, sum)
			}
		}
	}
	for _, k := range kinds {
		t.Errorf("%s (%d times):\n%s", faults[k].first, faults[k].n, k)
	}
}

// allFloat32 says whether every value of row is exactly a float32 number.
func allFloat32(row []float64) bool {
	for _, v := range row {
		if float64(float32(v)) != v {
			return false
		}
	}
	return true
}

func randDense(rng *rand.Rand, r, c int, scale float64) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = scale * rng.NormFloat64()
	}
	return mat.NewDense(r, c, d)
}

// TestAttendWithPastMatchesFullPrompt is the property chapter 08 relies on: attending the last
// queries over all keys with past = n gives the same rows as attending the whole prompt at once
// (1e-12: identical arithmetic up to summation order in gonum's kernels).
func TestAttendWithPastMatchesFullPrompt(t *testing.T) {
	g := loadGolden(t)
	rot := g.cfg.RoPE(16)
	q, k, v := Project(g.cfg, g.w, rot, g.x, 0)
	full, fullP := Attend(g.cfg, q, k, v, 0)
	const past = 4
	nq, qw := q.Dims()
	tail, tailP := Attend(g.cfg, q.Slice(past, nq, 0, qw).(*mat.Dense), k, v, past)
	cw := g.cfg.Heads * g.cfg.HeadDim
	if !mat.EqualApprox(tail, full.Slice(past, nq, 0, cw), 1e-12) {
		t.Errorf("context rows with past=%d differ from the full prompt's", past)
	}
	for h := range tailP {
		if !mat.EqualApprox(tailP[h], fullP[h].Slice(past, nq, 0, nq), 1e-12) {
			t.Errorf("head %d probabilities with past=%d differ from the full prompt's", h, past)
		}
	}
	// Projecting only the tail with startPos = past gives the same q, k, v rows too.
	q2, k2, v2 := Project(g.cfg, g.w, rot, mat.DenseCopyOf(g.x.Slice(past, nq, 0, g.cfg.Hidden)), past)
	kw := g.cfg.KVHeads * g.cfg.HeadDim
	if !mat.EqualApprox(q2, q.Slice(past, nq, 0, qw), 1e-12) || !mat.EqualApprox(k2, k.Slice(past, nq, 0, kw), 1e-12) ||
		!mat.EqualApprox(v2, v.Slice(past, nq, 0, kw), 1e-12) {
		t.Errorf("Project of rows %d.. at startPos %d differs from rows %d.. of the whole prompt's projection:\n"+
			"row r must be rotated to its own position, positions[r] (startPos+r), not counted from 0 in every call", past, past, past)
	}
}

func TestCheckErrors(t *testing.T) {
	c := Config{Hidden: 8, Heads: 4, KVHeads: 2, HeadDim: 4, Eps: 1e-6, Theta: 1e4}
	good := func() *Weights {
		return &Weights{
			Q: mat.NewDense(16, 8, nil), K: mat.NewDense(8, 8, nil), V: mat.NewDense(8, 8, nil),
			O: mat.NewDense(8, 16, nil), QNorm: make([]float64, 4), KNorm: make([]float64, 4),
		}
	}
	if err := good().Check(c); err != nil {
		t.Fatalf("good weights: %v", err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(w *Weights, c *Config)
		wants string
	}{
		{"k shape", func(w *Weights, c *Config) { w.K = mat.NewDense(16, 8, nil) }, "k_proj is 16x8, want 8x8"},
		{"o missing", func(w *Weights, c *Config) { w.O = nil }, "o_proj is missing"},
		{"k_norm", func(w *Weights, c *Config) { w.KNorm = nil }, "k_norm has 0 values"},
		{"groups", func(w *Weights, c *Config) { c.KVHeads = 3 }, "3 key/value heads"},
		{"odd head_dim", func(w *Weights, c *Config) { c.HeadDim = 3 }, "head_dim 3"},
	} {
		w, cc := good(), c
		tc.edit(w, &cc)
		err := w.Check(cc)
		if err == nil || !strings.Contains(err.Error(), tc.wants) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wants)
		}
	}
}
