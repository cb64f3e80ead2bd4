package rope

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

const chapter = "04_rope"

// goldenTol is the course-wide tolerance for a chapter op against transformers, relative to the
// largest magnitude of the expected array: the reference is float32 (rounding ~6e-8 per
// operation), this chapter float64, so 1e-5 is loose for rounding and tight for a wrong formula.
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

func loadInts(t *testing.T, name string) []int {
	t.Helper()
	a, err := reference.LoadInts(chapter, name)
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return a
}

type meta struct {
	Theta       float64 `json:"theta"`
	HeadDim     int     `json:"head_dim"`
	MaxPosition int     `json:"max_position"`
}

func loadMeta(t *testing.T) meta {
	t.Helper()
	var m meta
	if err := reference.LoadJSON(chapter, "meta", &m); err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return m
}

// goldenTable builds the table the golden data needs. It is built once per test that needs it;
// 40960 positions x 64 pairs take a few tens of milliseconds.
func goldenTable(t *testing.T) (meta, *Table) {
	t.Helper()
	m := loadMeta(t)
	return m, NewTable(m.HeadDim, m.MaxPosition, m.Theta)
}

// TestInvFreqGolden requires InvFreq to be within ONE float32 ulp of transformers' inv_freq, and
// equal in all but a few values. An error of one ulp (6e-8 relative) in inv_freq[i] becomes
// pos*inv_freq[i]*6e-8 rad of angle: 2e-3 rad for pair 1 at position 40959, two hundred times the
// golden tolerance of cos and sin, so "close" is not enough here.
//
// Why not bit for bit everywhere: PyTorch's CPU pow is SLEEF's vectorized powf, accurate to 1 ulp
// but not correctly rounded, while InvFreq rounds the float64 pow correctly. For Qwen3's head_dim
// 128 and theta 1e6 they disagree on pair 37 only: 1e6^0.578125 lies 0.486 ulp from the nearest
// float32 (almost on a midpoint) and SLEEF picked the other neighbour. That pair turns 3.4e-4 rad
// per token, so the ulp costs at most 1.2e-6 rad at position 40959 (TestCosSinGolden measures it).
func TestInvFreqGolden(t *testing.T) {
	m := loadMeta(t)
	want := load(t, "inv_freq.npy").Data
	got := InvFreq(m.HeadDim, m.Theta)
	if len(got) != len(want) {
		t.Fatalf("InvFreq: %d values, want %d", len(got), len(want))
	}
	var notF32, far, differ []int
	for i := range want {
		g, w := float32(got[i]), float32(want[i])
		if float64(g) != got[i] {
			notF32 = append(notF32, i)
		}
		switch {
		case g == w:
		case g == math.Nextafter32(w, g):
			differ = append(differ, i)
		default:
			far = append(far, i)
		}
	}
	// One message, for the most telling problem: a wrong formula, then missing float32 rounding,
	// then roundings in another order than transformers'.
	switch {
	case len(far) > 0:
		i := far[0]
		t.Errorf("inv_freq is more than one float32 ulp from transformers at %d of %d pairs, first inv_freq[%d] = %.10g, want %.10g:\n%s",
			len(far), len(want), i, got[i], want[i], invFreqHint(got, m.HeadDim, m.Theta))
	case len(notF32) > 0:
		i := notF32[0]
		t.Errorf("%d of %d values are not float32 numbers (inv_freq[%d] = %.17g): transformers computes in float32,\n"+
			"so round each step: e := float32(2i)/float32(d); p := float32(theta^e); inv_freq[i] = float32(1/p)", len(notF32), len(want), i, got[i])
	case len(differ) > 2:
		t.Errorf("one float32 ulp off transformers at %d pairs %s (at most 2 expected): the order of the float32 roundings\n"+
			"matters: p := float32(theta^e) first, then float32(1/p); theta^(-e) in one step rounds differently", len(differ), firstFew(differ, 8))
	default:
		t.Logf("inv_freq: %d of %d values bit-identical to transformers; one ulp off at pairs %v", len(want)-len(differ), len(want), differ)
	}
	// The float64 formula is within float32 rounding of the reference, but not equal to it.
	if e := relErr(t, InvFreq64(m.HeadDim, m.Theta), want); e > 1e-7 {
		t.Errorf("InvFreq64 vs transformers: relative error %.3g > 1e-7", e)
	}
}

// invFreqHint names the mistake whose formula gives got (to float32 precision), for InvFreq of
// head dimension d and base theta: a base other than theta (which one, read off inv_freq[1]),
// the exponent i/d for 2i/d, the sign of the exponent, or i counted from 1.
func invFreqHint(got []float64, d int, theta float64) string {
	const want = "want inv_freq[i] = theta^(-2i/d) for i = 0 .. d/2-1, with the theta the caller passes"
	if len(got) < 2 || got[1] <= 0 {
		return want
	}
	// Within 1e-5: float32 rounding (6e-8 per step) amplified by reading the base off one value.
	close := func(f func(i int) float64) bool {
		for i, g := range got {
			if math.Abs(g-f(i)) > 1e-5*math.Abs(f(i)) {
				return false
			}
		}
		return true
	}
	// The base that inv_freq[1] = base^(-2/d) implies.
	base := math.Pow(got[1], -float64(d)/2)
	switch {
	case close(func(i int) float64 { return math.Pow(theta, -float64(i)/float64(d)) }):
		return "that is theta^(-i/d): the exponent is 2i/d (pair i holds dimensions i and i+d/2, the even dimension 2i of the paper)"
	case close(func(i int) float64 { return math.Pow(theta, float64(2*i)/float64(d)) }):
		return "that is theta^(+2i/d): the frequencies must fall with i, so the exponent is -2i/d (or 1/theta^(2i/d))"
	case close(func(i int) float64 { return math.Pow(theta, -float64(4*i)/float64(d)) }):
		return "that is theta^(-4i/d) = theta^(-2i/(d/2)): the exponent divides 2i by d, the whole head_dim, not d/2"
	case close(func(i int) float64 { return math.Pow(theta, -float64(2*(i+1))/float64(d)) }):
		return "that is theta^(-2(i+1)/d): i starts at 0, so pair 0 turns exactly 1 radian per token"
	case close(func(i int) float64 { return math.Pow(base, -float64(2*i)/float64(d)) }):
		return fmt.Sprintf("that is the right formula with theta = %.5g, not the theta argument %.6g: use the theta the caller passes\n"+
			"(10000 is the original Transformer's and LLaMA's base; Qwen3's rope_theta is 1e6)", base, theta)
	}
	return want
}

// TestCosSinGolden compares the table's cos and sin with Qwen3RotaryEmbedding's [P,128] output at
// positions 0..63 and up to 40959. Tolerance: goldenTol absolute (cos and sin are at most 1 in
// magnitude). transformers' cos/sin are cat(freqs, freqs): columns i and i+64 hold pair i.
func TestCosSinGolden(t *testing.T) {
	m, tab := goldenTable(t)
	exact := NewExactTable(m.HeadDim, m.MaxPosition, m.Theta)
	pos := loadInts(t, "positions.npy")
	wantCos, wantSin := load(t, "cos.npy"), load(t, "sin.npy")
	half := m.HeadDim / 2
	var worst, worstExact float64
	worstPos := -1
	for r, p := range pos {
		c, s := tab.CosSin(p)
		ce, se := exact.CosSin(p)
		for i := 0; i < m.HeadDim; i++ {
			wc, ws := wantCos.Data[r*m.HeadDim+i], wantSin.Data[r*m.HeadDim+i]
			e := math.Max(math.Abs(c[i%half]-wc), math.Abs(s[i%half]-ws))
			if e > worst {
				worst, worstPos = e, p
			}
			worstExact = math.Max(worstExact, math.Max(math.Abs(ce[i%half]-wc), math.Abs(se[i%half]-ws)))
		}
	}
	if worst > goldenTol {
		t.Errorf("cos/sin vs transformers: max error %.3g at position %d > %g: the angles are float32(pos)*InvFreq[i]\n"+
			"rounded to float32 (Angle32); an InvFreq one ulp off shows here first, see TestInvFreqGolden", worst, worstPos, goldenTol)
	}
	t.Logf("cos/sin vs transformers over %d positions: float32-angle table %.3g, exact float64 table %.3g", len(pos), worst, worstExact)
	// The package doc claims the exact table is NOT good enough at large positions; keep it honest.
	if worstExact <= goldenTol {
		t.Errorf("the exact float64 table is within %.3g of transformers; the package doc says it is not", worstExact)
	}
}

// testApply checks RotatePositions on golden q [6,4,128] and k [6,2,128] against
// apply_rotary_pos_emb. Tolerance: goldenTol relative to the largest |q_out| or |k_out|.
func testApply(t *testing.T, tab *Table, posName, qName, kName string) {
	t.Helper()
	pos := loadInts(t, posName)
	for _, c := range []struct{ in, out string }{{"q.npy", qName}, {"k.npy", kName}} {
		x, want := load(t, c.in), load(t, c.out)
		if len(x.Shape) != 3 || x.Shape[2] != tab.HeadDim() {
			t.Fatalf("%s has shape %v, want (seq, heads, %d)", c.in, x.Shape, tab.HeadDim())
		}
		got := tab.RotatePositions(x.Reshape2D(x.Shape[0]), pos)
		e := relErr(t, got.RawMatrix().Data, want.Data)
		if e > goldenTol {
			t.Errorf("%s at positions %v: relative error %.3g > %g: %s", c.out, pos, e, goldenTol, rotationHint(x.Data, got.RawMatrix().Data, tab.HeadDim()))
			return // the keys would say the same
		} else {
			t.Logf("%s at positions %v: relative error %.3g", c.out, pos, e)
		}
	}
}

// rotationHint names the likely mistake of a rotation that turned the head vectors of x (one
// after another, headDim values each) into got. It uses only what any correct RoPE must do: each
// pair (v[i], v[i+d/2]) turns as a rigid rotation, so it keeps its length.
func rotationHint(x, got []float64, headDim int) string {
	half := headDim / 2
	same := func(a, b, c, d float64) bool {
		l0, l1 := math.Hypot(a, b), math.Hypot(c, d)
		return math.Abs(l1-l0) <= 1e-9*math.Max(1, l0)
	}
	unchanged, split, adjacent := true, true, true
	for off := 0; off+headDim <= len(x); off += headDim {
		for i := 0; i < half; i++ {
			unchanged = unchanged && got[off+i] == x[off+i] && got[off+i+half] == x[off+i+half]
			split = split && same(x[off+i], x[off+i+half], got[off+i], got[off+i+half])
			adjacent = adjacent && same(x[off+2*i], x[off+2*i+1], got[off+2*i], got[off+2*i+1])
		}
	}
	switch {
	case unchanged:
		return "RotateHead left the vectors as they were"
	case adjacent && !split:
		return "the pairs (2i, 2i+1) were rotated (GPT-J's layout); Qwen3 pairs element i with element i+d/2"
	case !split:
		return "the pairs (v[i], v[i+d/2]) do not keep their length: compute both new values from the old ones (a, b := v[i], v[i+half] first)"
	}
	return "each pair (v[i], v[i+d/2]) keeps its length but turns by the wrong angle or the wrong way:\n" +
		"v'[i] = v[i] cos θ - v[i+d/2] sin θ, v'[i+d/2] = v[i+d/2] cos θ + v[i] sin θ, θ = pos*inv_freq[i]"
}

// firstFew prints at most n of the values, and how many more there are.
func firstFew(v []int, n int) string {
	if len(v) <= n {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%v and %d more", v[:n], len(v)-n)
}

func TestRotateGolden(t *testing.T) {
	_, tab := goldenTable(t)
	testApply(t, tab, "apply_positions.npy", "q_out.npy", "k_out.npy")
}

// TestRotateFarGolden uses positions 40954..40959, the end of Qwen3's context, where the angle
// rounding of transformers' float32 arithmetic is largest.
func TestRotateFarGolden(t *testing.T) {
	_, tab := goldenTable(t)
	testApply(t, tab, "apply_far_positions.npy", "q_far_out.npy", "k_far_out.npy")
}

// TestRotateStartPos: Rotate(x, start) is RotatePositions with start, start+1, ...
func TestRotateStartPos(t *testing.T) {
	tab := NewTable(8, 32, 1e6)
	rng := rand.New(rand.NewPCG(1, 2))
	x := randDense(rng, 4, 16)
	got := tab.Rotate(x, 5)
	want := tab.RotatePositions(x, []int{5, 6, 7, 8})
	if !mat.Equal(got, want) {
		t.Errorf("Rotate(x, 5) != RotatePositions(x, 5..8)")
	}
}

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	return mat.NewDense(r, c, d)
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// TestRotationKeepsNorm: RoPE is a rotation of each pair, so it preserves every pair's length and
// the length of the whole head vector. Tolerance 1e-12 relative: float64 rounding only.
func TestRotationKeepsNorm(t *testing.T) {
	const d = 128
	tab := NewTable(d, 40960, 1e6)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, p := range []int{0, 1, 7, 1000, 40959} {
		v := randVec(rng, d)
		r := append([]float64(nil), v...)
		tab.RotateHead(r, p)
		var broken []int
		for i := 0; i < d/2; i++ {
			before := math.Hypot(v[i], v[i+d/2])
			after := math.Hypot(r[i], r[i+d/2])
			if math.Abs(after-before) > 1e-12*math.Max(1, before) {
				broken = append(broken, i)
			}
		}
		if len(broken) > 0 {
			i := broken[0]
			t.Errorf("pos %d: %d of %d pairs (v[i], v[i+d/2]) changed length, first pair %d: %.15g -> %.15g\n%s",
				p, len(broken), d/2, i, math.Hypot(v[i], v[i+d/2]), math.Hypot(r[i], r[i+d/2]), rotationHint(v, r, d))
			return // other positions would say the same
		}
		if n0, n1 := math.Sqrt(dot(v, v)), math.Sqrt(dot(r, r)); math.Abs(n1-n0) > 1e-12*n0 {
			t.Errorf("pos %d: norm %.15g -> %.15g", p, n0, n1)
		}
	}
}

// TestRelativePosition: <R(m)q, R(n)k> depends only on m-n. With exact float64 angles this holds
// to rounding (1e-9 relative to |q||k|, angles up to 4e4 rad lose ~1e-11 each); with transformers'
// float32 angles it holds only approximately, to about 1e-5 for positions below 100, because the
// rounding of m*f and n*f does not cancel.
func TestRelativePosition(t *testing.T) {
	const d = 128
	rng := rand.New(rand.NewPCG(5, 6))
	q, k := randVec(rng, d), randVec(rng, d)
	scale := math.Sqrt(dot(q, q) * dot(k, k))
	score := func(tab *Table, m, n int) float64 {
		qm, kn := append([]float64(nil), q...), append([]float64(nil), k...)
		tab.RotateHead(qm, m)
		tab.RotateHead(kn, n)
		return dot(qm, kn)
	}
	exact := NewExactTable(d, 40960, 1e6)
	for _, delta := range []int{0, 1, 5, 37} {
		ref := score(exact, delta, 0)
		for _, n := range []int{1, 3, 100, 20000, 40959 - delta} {
			if s := score(exact, n+delta, n); math.Abs(s-ref) > 1e-9*scale {
				t.Errorf("exact table: score(%d,%d) = %.12g, score(%d,0) = %.12g", n+delta, n, s, delta, ref)
			}
		}
	}
	tab := NewTable(d, 128, 1e6)
	for _, delta := range []int{0, 1, 5, 37} {
		ref := score(tab, delta, 0)
		for _, n := range []int{1, 3, 20, 90 - delta} {
			if s := score(tab, n+delta, n); math.Abs(s-ref) > 1e-5*scale {
				t.Errorf("float32-angle table: score(%d,%d) = %.12g, score(%d,0) = %.12g", n+delta, n, s, delta, ref)
			}
		}
	}
	// The score must actually change with the distance, or the test above proves nothing.
	if a, b := score(exact, 0, 0), score(exact, 1, 0); math.Abs(a-b) < 1e-3*scale {
		t.Errorf("score does not depend on distance: %g vs %g", a, b)
	}
}

// TestHalfSplitPairs pins the pairing on a hand-computed case: head_dim 4, theta 100, so
// inv_freq = [1, 0.1]; at position 1 element 0 pairs with element 2 (not 1) and turns by 1 rad.
func TestHalfSplitPairs(t *testing.T) {
	tab := NewExactTable(4, 2, 100)
	v := []float64{1, 0, 0, 0}
	tab.RotateHead(v, 1)
	want := []float64{math.Cos(1), 0, math.Sin(1), 0}
	for i := range want {
		if math.Abs(v[i]-want[i]) > 1e-15 {
			t.Errorf("head_dim 4, position 1: v = %.4f, want %.4f:\nelement 0 pairs with element 2 (i+d/2), not 1, and turns by 1 rad", v, want)
			break
		}
	}
	v = []float64{0, 1, 0, 0}
	tab.RotateHead(v, 1)
	want = []float64{0, math.Cos(0.1), 0, math.Sin(0.1)}
	for i := range want {
		if math.Abs(v[i]-want[i]) > 1e-15 {
			t.Errorf("head_dim 4, position 1: v = %.4f, want %.4f:\nelement 1 pairs with element 3 and turns by inv_freq[1] = 0.1 rad", v, want)
			break
		}
	}
}

// TestPositionZeroIsIdentity: angle 0 everywhere, so RoPE leaves position 0 unchanged exactly.
func TestPositionZeroIsIdentity(t *testing.T) {
	tab := NewTable(16, 1, 1e6)
	rng := rand.New(rand.NewPCG(7, 8))
	x := randDense(rng, 1, 32)
	if y := tab.Rotate(x, 0); !mat.Equal(x, y) {
		t.Errorf("rotation at position 0 changed the vector")
	}
}

func TestPanics(t *testing.T) {
	tab := NewTable(4, 3, 1e4)
	for name, f := range map[string]func(){
		"odd head_dim":     func() { NewTable(3, 3, 1e4) },
		"zero max pos":     func() { NewTable(4, 0, 1e4) },
		"pos past table":   func() { tab.RotateHead(make([]float64, 4), 3) },
		"negative pos":     func() { tab.CosSin(-1) },
		"wrong head width": func() { tab.RotateHead(make([]float64, 6), 0) },
		"row width":        func() { tab.Rotate(mat.NewDense(1, 6, nil), 0) },
		"positions count":  func() { tab.RotatePositions(mat.NewDense(2, 4, nil), []int{0}) },
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
