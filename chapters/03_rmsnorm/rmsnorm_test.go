package rmsnorm

import (
	"fmt"
	"math"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

const chapter = "03_rmsnorm"

// goldenTol is the course-wide tolerance for a chapter op against transformers: the error is
// measured relative to the largest magnitude in the expected array. The reference ran in
// float32 (about 6e-8 relative rounding per operation, a few dozen operations deep), this
// chapter runs in float64, so 1e-5 leaves room for float32 rounding but not for a wrong formula.
const goldenTol = 1e-5

// relErr is reference.RelErr with a length check: max|got-want| / max|want|, +Inf on NaN.
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

type meta struct {
	Eps float64 `json:"eps"`
}

func loadMeta(t *testing.T) meta {
	t.Helper()
	var m meta
	if err := reference.LoadJSON(chapter, "meta", &m); err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return m
}

// TestRMSNormGolden compares RMSNorm with transformers' Qwen3RMSNorm on x [8,64], whose rows
// include some with RMS near 1e-4, where the size and placement of eps change the output by far
// more than goldenTol (see TestEpsMattersOnGoldenInput).
func TestRMSNormGolden(t *testing.T) {
	m := loadMeta(t)
	x, w, want := load(t, "x.npy"), load(t, "weight.npy"), load(t, "out.npy")
	got := RMSNorm(x.Dense(), w.Data, m.Eps)
	if e := relErr(t, got.RawMatrix().Data, want.Data); e > goldenTol {
		t.Errorf("RMSNorm vs transformers: relative error %.3g > %g:\n%s", e, goldenTol, normHint(x.Data, w.Data, got.RawMatrix().Data, want.Data, len(w.Data)))
	} else {
		t.Logf("RMSNorm vs transformers: relative error %.3g (tolerance %g)", e, goldenTol)
	}
}

// TestNormHeadsGolden compares NormHeads (QK-norm) with Qwen3RMSNorm applied over the last axis of
// a (seq, heads, head_dim) = [5,4,128] array, as Qwen3Attention applies q_norm. Tolerance: goldenTol.
func TestNormHeadsGolden(t *testing.T) {
	m := loadMeta(t)
	x, w, want := load(t, "qk_x.npy"), load(t, "qk_weight.npy"), load(t, "qk_out.npy")
	if len(x.Shape) != 3 {
		t.Fatalf("qk_x.npy has shape %v, want (seq, heads, head_dim)", x.Shape)
	}
	headDim := x.Shape[2]
	got := NormHeads(x.Reshape2D(x.Shape[0]), w.Data, headDim, m.Eps)
	if e := relErr(t, got.RawMatrix().Data, want.Data); e > goldenTol {
		t.Errorf("NormHeads vs transformers: relative error %.3g > %g:\n%s", e, goldenTol, headsHint(x.Data, w.Data, got.RawMatrix().Data, want.Data, headDim, x.Shape[1]*headDim))
	} else {
		t.Logf("NormHeads vs transformers: relative error %.3g (tolerance %g)", e, goldenTol)
	}
}

// normHint names the likely mistake of a normalization that turned x into got where transformers
// gives want; each block of d values (a row, or a head) is normalized on its own with weight w.
// It reads the ratio got/want at the largest output of each block: a wrong norm scales a whole
// block, and how the scale depends on the block's RMS tells which mistake it is.
func normHint(x, w, got, want []float64, d int) string {
	zero, weightless := true, true
	for i := range got {
		zero = zero && got[i] == 0
		weightless = weightless && math.Abs(got[i]*w[i%d]-want[i]) <= 1e-4*math.Max(1, math.Abs(want[i]))
	}
	switch {
	case zero:
		return "the output is all zeros: write y[i] into dst"
	case weightless:
		return "the output is right before the weight: multiply feature i by weight[i] last"
	}
	for off := 0; off+d <= len(x); off += d {
		if h := whichMistake(x[off:off+d], w, Eps, got[off:off+d]); h != "" {
			return fmt.Sprintf("block %d: %s", off/d, h)
		}
	}
	var large, small []float64 // got/want for blocks whose RMS is far above sqrt(eps), and the others
	for off := 0; off+d <= len(x); off += d {
		j := off
		for i := off; i < off+d; i++ {
			if math.Abs(want[i]) > math.Abs(want[j]) {
				j = i
			}
		}
		if want[j] == 0 {
			continue
		}
		if RMS(x[off:off+d]) > 1e-2 {
			large = append(large, got[j]/want[j])
		} else {
			small = append(small, got[j]/want[j])
		}
	}
	near := func(v []float64, target float64) bool {
		for _, r := range v {
			if math.Abs(r-target) > 1e-3*target {
				return false
			}
		}
		return len(v) > 0
	}
	switch {
	case near(large, 1/math.Sqrt(float64(d))):
		return fmt.Sprintf("the output is sqrt(%d) times too small: divide by the root of the MEAN of the squares, not of their sum", d)
	case near(large, 1) && !near(small, 1):
		return "rows with a large RMS are right, rows with an RMS near 1e-4 are not: eps goes inside the square root,\n" +
			"y[i] = x[i] / sqrt(mean(x²) + eps) * weight[i]"
	}
	return "want y[i] = x[i] / sqrt(mean(x²) + eps) * weight[i]"
}

// headsHint is normHint for QK-norm, which must normalize each head block of a row (width
// values) on its own, row t from row t.
func headsHint(x, w, got, want []float64, headDim, width int) string {
	if floats.Norm(got, 2) == 0 {
		return normHint(x, w, got, want, headDim)
	}
	for off := 0; off+headDim <= len(x); off += headDim {
		if floats.Norm(got[off:off+headDim], 2) == 0 && floats.Norm(want[off:off+headDim], 2) != 0 {
			which := ""
			if off%width == width-headDim {
				which = ", the last head of the row: does the loop over the heads stop a block early?"
			}
			return fmt.Sprintf("head %d of row %d is all zeros%s\nwrite every head_dim block of every row", off%width/headDim, off/width, which)
		}
	}
	for off := 0; off+headDim <= len(x); off += headDim {
		if RMS(x[off:off+headDim]) < 1e-2 {
			continue // eps matters here, normHint tells
		}
		scaled := make([]float64, headDim)
		for i := range scaled {
			scaled[i] = got[off+i] / w[i]
		}
		if r := RMS(scaled); math.Abs(r-1) > 1e-3 && r != 0 {
			return fmt.Sprintf("head %d of row %d has RMS %.4g before the weight, want 1: normalize each head_dim block with its own RMS",
				off%width/headDim, off/width, r)
		}
	}
	same := true
	for off := width; off+width <= len(got); off += width {
		for i := 0; i < width; i++ {
			same = same && got[off+i] == got[i]
		}
	}
	if same && len(got) > width {
		return "every output row is the same: row t comes from row t of x"
	}
	return normHint(x, w, got, want, headDim)
}

// TestEpsMattersOnGoldenInput guards the golden test itself: it checks that the golden input
// really distinguishes the right eps from the wrong ones, so a passing golden test means something.
func TestEpsMattersOnGoldenInput(t *testing.T) {
	m := loadMeta(t)
	if m.Eps != Eps {
		t.Errorf("golden eps %g, Qwen3 uses %g", m.Eps, Eps)
	}
	x, w, want := load(t, "x.npy"), load(t, "weight.npy"), load(t, "out.npy")
	wrong := RMSNorm(x.Dense(), w.Data, 1e-5)
	if e := relErr(t, wrong.RawMatrix().Data, want.Data); e < 100*goldenTol {
		t.Errorf("eps=1e-5 is within %.3g of the reference: the golden input cannot tell eps apart", e)
	}
}

// TestUnitRMS: with weight 1 and eps 0, every output row has RMS exactly 1 (up to float64
// rounding, 1e-12), whatever the input scale.
func TestUnitRMS(t *testing.T) {
	ones := []float64{1, 1, 1, 1, 1}
	x := mat.NewDense(3, 5, []float64{
		1, 2, 3, 4, 5,
		-1e-3, 2e-3, 0, 5e-4, 1e-3,
		1e4, -3e4, 2e4, 0, 7e3,
	})
	y := RMSNorm(x, ones, 0)
	for t0 := 0; t0 < 3; t0++ {
		if r := RMS(y.RawRowView(t0)); math.Abs(r-1) > 1e-12 {
			t.Errorf("row %d: RMS after norm = %.15g, want 1 %s", t0, r, whichMistake(x.RawRowView(t0), ones, 0, y.RawRowView(t0)))
			break // the other rows would say the same
		}
	}
}

// rowMistakes are the classic wrong ways to normalize one row, each computed as a learner would
// write it, with what to do instead. whichMistake compares a result with each of them.
var rowMistakes = []struct {
	name, fix string
	f         func(x, w []float64, eps float64) []float64
}{
	{"x / (sqrt(mean(x²)) + eps)", "eps goes inside the square root: x / sqrt(mean(x²) + eps)",
		func(x, w []float64, eps float64) []float64 { return scaleRow(x, w, 1/(ms(x, 0)+eps), 0) }},
	{"x / sqrt(sum(x²) + eps)", "divide by the root of the MEAN of the squares (the sum over n), not of their sum",
		func(x, w []float64, eps float64) []float64 { return scaleRow(x, w, 1/math.Sqrt(ss(x, 0)+eps), 0) }},
	{"x / (mean(x²) + eps), the square root left out", "divide by the ROOT of the mean of the squares: x / sqrt(mean(x²) + eps)",
		func(x, w []float64, eps float64) []float64 { return scaleRow(x, w, 1/(ms(x, 0)*ms(x, 0)+eps), 0) }},
	{"x / (sqrt(sum(x²) + eps) / n), the root taken before dividing by n", "divide by n inside the root: sqrt(sum(x²)/n + eps), not sqrt(sum(x²))/n",
		func(x, w []float64, eps float64) []float64 {
			return scaleRow(x, w, float64(len(x))/math.Sqrt(ss(x, 0)+eps), 0)
		}},
	{"x / sqrt(sum(x²)/(n-1) + eps)", "the mean of the squares divides by n, not n-1: this is not a sample variance",
		func(x, w []float64, eps float64) []float64 {
			return scaleRow(x, w, 1/math.Sqrt(ss(x, 0)/float64(len(x)-1)+eps), 0)
		}},
	{"(x - mean(x)) / sqrt(var(x) + eps), LayerNorm", "RMSNorm does not subtract the mean: x / sqrt(mean(x²) + eps)",
		func(x, w []float64, eps float64) []float64 {
			mu := mean(x)
			return scaleRow(x, w, 1/math.Sqrt(ms(x, mu)*ms(x, mu)+eps), mu)
		}},
	{"x / sqrt(mean(x²) + eps) * (1 + w)", "your output is x * (1 + w): the weight is applied as 1 + w, Gemma's form; Qwen3 multiplies by w",
		func(x, w []float64, eps float64) []float64 {
			onePlus := make([]float64, len(w))
			for i := range w {
				onePlus[i] = 1 + w[i]
			}
			return scaleRow(x, onePlus, 1/math.Sqrt(ms(x, 0)*ms(x, 0)+eps), 0)
		}},
	{"x / sqrt(mean(x²) + eps) without the weight", "multiply feature i by weight[i] last",
		func(x, w []float64, eps float64) []float64 {
			ones := make([]float64, len(x))
			for i := range ones {
				ones[i] = 1
			}
			return scaleRow(x, ones, 1/math.Sqrt(ms(x, 0)*ms(x, 0)+eps), 0)
		}},
}

func mean(x []float64) float64 { return floats.Sum(x) / float64(len(x)) }

// ss is the sum of (x-mu)²; ms its root-mean: sqrt(ss/n).
func ss(x []float64, mu float64) float64 {
	var s float64
	for _, v := range x {
		s += (v - mu) * (v - mu)
	}
	return s
}
func ms(x []float64, mu float64) float64 { return math.Sqrt(ss(x, mu) / float64(len(x))) }

// scaleRow returns (x[i]-mu) * inv * w[i].
func scaleRow(x, w []float64, inv, mu float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = (v - mu) * inv * w[i]
	}
	return y
}

// whichMistake names the classic mistake whose formula gives got for row x (weight w), or "".
func whichMistake(x, w []float64, eps float64, got []float64) string {
	for _, m := range rowMistakes {
		if floats.EqualApprox(got, m.f(x, w, eps), 1e-9*math.Max(1, floats.Norm(got, math.Inf(1)))) {
			return fmt.Sprintf("that is %s: %s", m.name, m.fix)
		}
	}
	return ""
}

// TestEpsInsideSqrt checks eps placement on a hand-computed row: a constant row of 1e-3 has
// mean square 1e-6, so with eps 1e-6 the output is 1e-3/sqrt(2e-6) = 1/sqrt(2). Putting eps
// outside the square root would give 1e-3/(1e-3+1e-6) ≈ 0.999; the other classic mistakes give
// other values, and the message names the one whose formula matches. Tolerance 1e-12: pure
// float64.
func TestEpsInsideSqrt(t *testing.T) {
	row := []float64{1e-3, 1e-3, 1e-3, 1e-3}
	ones := []float64{1, 1, 1, 1}
	y := RMSNorm(mat.NewDense(1, 4, row), ones, 1e-6)
	if v := y.At(0, 0); math.Abs(v-1/math.Sqrt2) > 1e-12 {
		hint := whichMistake(row, ones, 1e-6, y.RawRowView(0))
		if hint == "" {
			hint = "want x / sqrt(mean(x²) + eps) * weight"
		}
		t.Errorf("row of 1e-3 with eps 1e-6: y[0] = %.6g, want 1e-3/sqrt(1e-6+1e-6) = 1/sqrt(2) = 0.707107:\n%s", v, hint)
	}
}

// TestMeanOfSquares checks the mean on a row whose mean is not 0: x = [1, 2, 3, 4] has
// mean(x²) = 30/4 = 7.5, so y = x / sqrt(7.5 + 1e-6) (the worked example of the package doc).
// A divisor n-1 gives x/sqrt(10), the sum x/sqrt(30), and LayerNorm's centring (x-2.5)/sqrt(1.25).
func TestMeanOfSquares(t *testing.T) {
	row := []float64{1, 2, 3, 4}
	ones := []float64{1, 1, 1, 1}
	y := RMSNorm(mat.NewDense(1, 4, row), ones, Eps).RawRowView(0)
	want := scaleRow(row, ones, 1/math.Sqrt(7.5+Eps), 0)
	if !floats.EqualApprox(y, want, 1e-12) {
		hint := whichMistake(row, ones, Eps, y)
		if hint == "" {
			hint = "want x / sqrt(mean(x²) + eps) * weight"
		}
		t.Errorf("RMSNorm([1 2 3 4]) = %.6g, want %.6g (mean(x²) = 7.5):\n%s", y, want, hint)
	}
}

// TestWeightScalesFeatures: the weight multiplies feature i after normalization, and the input
// is not modified.
func TestWeightScalesFeatures(t *testing.T) {
	x := mat.NewDense(1, 2, []float64{3, 4})
	y := RMSNorm(x, []float64{2, -1}, 0)
	rms := math.Sqrt(12.5)
	want := []float64{2 * 3 / rms, -4 / rms}
	for i := range want {
		if math.Abs(y.At(0, i)-want[i]) > 1e-12 {
			t.Errorf("y[%d] = %v, want %v", i, y.At(0, i), want[i])
		}
	}
	if x.At(0, 0) != 3 || x.At(0, 1) != 4 {
		t.Errorf("RMSNorm modified its input: %v", mat.Formatted(x))
	}
}

// TestNormHeadsIsPerHead: NormHeads equals RMSNorm applied to each head block separately, and
// each head's scale is independent of the other heads (a huge head does not shrink a small one).
func TestNormHeadsIsPerHead(t *testing.T) {
	const headDim = 4
	w := []float64{0.5, 1, 1.5, 2}
	x := mat.NewDense(2, 3*headDim, []float64{
		1, 2, 3, 4, 1000, -2000, 3000, 0, 1e-3, 0, -1e-3, 2e-3,
		0, 0, 0, 1, 5, 5, 5, 5, -7, 1, 2, 3,
	})
	got := NormHeads(x, w, headDim, Eps)
	for h := 0; h < 3; h++ {
		block := mat.DenseCopyOf(x.Slice(0, 2, h*headDim, (h+1)*headDim))
		want := RMSNorm(block, w, Eps)
		for r := 0; r < 2; r++ {
			g, w := got.RawRowView(r)[h*headDim:(h+1)*headDim], want.RawRowView(r)
			if !floats.EqualApprox(g, w, 1e-15) {
				t.Fatalf("row %d, head %d: got %.4f, want %.4f (RMSNorm of that head alone):\n"+
					"each head_dim block of a row is normalized with its own RMS, row t from row t", r, h, g, w)
			}
		}
	}
}

func TestPanicsOnShapeMismatch(t *testing.T) {
	for name, f := range map[string]func(){
		"RMSNorm weight":    func() { RMSNorm(mat.NewDense(1, 3, nil), []float64{1, 1}, Eps) },
		"NormHeads weight":  func() { NormHeads(mat.NewDense(1, 4, nil), []float64{1}, 2, Eps) },
		"NormHeads width":   func() { NormHeads(mat.NewDense(1, 5, nil), []float64{1, 1}, 2, Eps) },
		"NormHeads headDim": func() { NormHeads(mat.NewDense(1, 4, nil), nil, 0, Eps) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestLayerNorm checks the comparison function: with eps 0 each row comes out with mean 0 and
// variance 1 before weight and bias, it equals the centred row divided by its RMS (computed here,
// not with RMSNorm, whose normRow is an exercise), and the bias adds on. Tolerance 1e-12: pure
// float64.
func TestLayerNorm(t *testing.T) {
	x := mat.NewDense(2, 4, []float64{1, 2, 3, 4, -5, 0.5, 7, 2})
	ones := []float64{1, 1, 1, 1}
	y := LayerNorm(x, ones, nil, 0)
	for r := range 2 {
		row := y.RawRowView(r)
		if m, v := mean(row), ms(row, mean(row)); math.Abs(m) > 1e-12 || math.Abs(v-1) > 1e-12 {
			t.Errorf("row %d: mean %.3g and standard deviation %.15g after LayerNorm, want 0 and 1", r, m, v)
		}
		src := x.RawRowView(r)
		want := scaleRow(src, ones, 1/ms(src, mean(src)), mean(src))
		if !floats.EqualApprox(row, want, 1e-12) {
			t.Errorf("row %d: LayerNorm %.6g, want (x - mean) / rms(x - mean) = %.6g", r, row, want)
		}
	}
	shifted := LayerNorm(x, []float64{2, 2, 2, 2}, []float64{1, 0, 0, 0}, 0)
	if got, want := shifted.At(0, 0), 2*y.At(0, 0)+1; math.Abs(got-want) > 1e-12 {
		t.Errorf("weight 2 and bias 1: y[0] = %v, want 2*%v+1 = %v", got, y.At(0, 0), want)
	}
}
