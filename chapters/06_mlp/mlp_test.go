package mlp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

const chapter = "06_mlp"

// goldenTol is the course-wide tolerance for a chapter op against transformers, relative to the
// largest magnitude of the expected array: the reference is Qwen3MLP in float32, this chapter is
// float64, and two matrix products of length 64 and 160 accumulate far less than 1e-5 of rounding.
const goldenTol = 1e-5

func relErr(t *testing.T, got, want []float64) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d values, want %d", len(got), len(want))
	}
	return reference.RelErr(got, want)
}

func load(t *testing.T, name string) *mat.Dense {
	t.Helper()
	a, err := reference.LoadDense(chapter, name)
	if err != nil {
		t.Fatalf("golden data: %v", err)
	}
	return a
}

// siluCurves are the activations a SiLU is often confused with, each with what to say when a
// learner's function follows it.
var siluCurves = []struct {
	what string
	f    func(z float64) float64
}{
	{"this is GELU's curve, z·Φ(z) (GPT-2's and BERT's activation): SiLU is z * sigmoid(z)", GELU},
	{"this is GELU's tanh approximation (GPT-2's): SiLU is z * sigmoid(z)", func(z float64) float64 {
		return 0.5 * z * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(z+0.044715*z*z*z)))
	}},
	{"this is z * sigmoid(1.702 z), GELU's sigmoid approximation: SiLU is z * sigmoid(z), no factor inside", func(z float64) float64 { return z * Sigmoid(1.702*z) }},
	{"this is the sigmoid alone: SiLU multiplies it by z, z * sigmoid(z)", Sigmoid},
	{"this is z * sigmoid(-z): the sigmoid of z is 1 / (1 + e^-z)", func(z float64) float64 { return z * Sigmoid(-z) }},
	{"this is ReLU, max(0, z): SiLU is the smooth z * sigmoid(z)", ReLU},
}

// siluHint names the curve f follows, if it is one of siluCurves, comparing them at a few points
// between -3 and 3 (where none of them overflows).
func siluHint(f func(float64) float64) string {
	for _, c := range siluCurves {
		same := true
		for _, z := range []float64{-3, -1, -0.5, 0.5, 1, 2, 3} {
			same = same && math.Abs(f(z)-c.f(z)) <= 1e-9*math.Max(1, math.Abs(c.f(z)))
		}
		if same {
			return c.what
		}
	}
	return ""
}

// TestSiLUValues pins SiLU at hand-computed points (1e-15: float64 rounding) and its limits. A
// function that follows a neighbouring curve (GELU, the sigmoid alone, ReLU) is named first.
func TestSiLUValues(t *testing.T) {
	if h := siluHint(func(z float64) float64 { return SiLU(z) }); h != "" {
		t.Fatalf("SiLU(1) = %.6g, SiLU(-1) = %.6g, want %.6g and %.6g: %s", SiLU(1), SiLU(-1), 1/(1+math.Exp(-1)), -1/(1+math.E), h)
	}
	for _, c := range []struct{ z, want float64 }{
		{0, 0},
		{1, 1 / (1 + math.Exp(-1))},
		{-1, -1 / (1 + math.E)},
		{2, 2 / (1 + math.Exp(-2))},
		{-800, 0}, // e^800 overflows to +Inf: the result must be (-)0, not NaN
		{800, 800},
	} {
		got := SiLU(c.z)
		if math.IsNaN(got) {
			t.Fatalf("SiLU(%g) = NaN, want %g: e^z overflows for large |z|; z / (1 + e^-z) does not", c.z, c.want)
		}
		if e := math.Abs(got - c.want); e > 1e-15*math.Max(1, math.Abs(c.want)) {
			why := "silu(z) = z * sigmoid(z) = z / (1 + e^-z)"
			if e <= 1e-6*math.Abs(c.want) {
				why = "right to 7 digits, not to 16: that is float32's precision; compute in float64, as every chapter does"
			}
			t.Fatalf("SiLU(%g) = %.17g, want %.17g: %s", c.z, got, c.want, why)
		}
	}
	// The minimum of SiLU is about -0.2785 near z = -1.2785; GELU's is about -0.17 near -0.75.
	if got := SiLU(-1.2784645); math.Abs(got+0.27846454) > 1e-7 {
		t.Errorf("SiLU minimum = %.8f, want -0.27846454", got)
	}
}

// TestForwardByHand: hidden 1, intermediate 2, so every step can be written down.
func TestForwardByHand(t *testing.T) {
	x := mat.NewDense(2, 1, []float64{1, -2})
	gate := mat.NewDense(2, 1, []float64{1, 2})
	up := mat.NewDense(2, 1, []float64{3, -1})
	down := mat.NewDense(1, 2, []float64{0.5, 4})
	got := Forward(x, gate, up, down)
	silu := func(z float64) float64 { return z / (1 + math.Exp(-z)) }
	// The right formula, and the usual wrong ones, for row value xv: gate values xv and 2xv, up
	// values 3xv and -xv, down weights 0.5 and 4.
	formulas := []struct {
		what string
		f    func(g, u float64) float64
	}{
		{"", func(g, u float64) float64 { return silu(g) * u }},
		{"SiLU went on the up projection: it belongs on the gate", func(g, u float64) float64 { return g * silu(u) }},
		{"gate and up were multiplied without SiLU on the gate", func(g, u float64) float64 { return g * u }},
		{"silu(gate) and up were added: multiply them element-wise", func(g, u float64) float64 { return silu(g) + u }},
		{"that is silu(x gate^T) ⊙ (x gate^T): the second product is x up^T, with the up weights", func(g, u float64) float64 { return silu(g) * g }},
	}
	eval := func(f func(g, u float64) float64, xv float64) float64 { return 0.5*f(1*xv, 3*xv) + 4*f(2*xv, -1*xv) }
	for r, xv := range []float64{1, -2} {
		want := eval(formulas[0].f, xv)
		if math.Abs(got.At(r, 0)-want) > 1e-15 {
			hint := "want out = (silu(x gate^T) ⊙ (x up^T)) down^T"
			for _, w := range formulas[1:] {
				if math.Abs(got.At(r, 0)-eval(w.f, xv)) <= 1e-12 {
					hint = w.what
				}
			}
			// h[i][j] = silu(g[i][j]) * u[j][i]: row and column of u swapped (x is 2x1 and the
			// intermediate width 2, so u is square and the swap does not panic here).
			xs, gw, uw, dw := []float64{1, -2}, []float64{1, 2}, []float64{3, -1}, []float64{0.5, 4}
			swapped := 0.0
			for j := range 2 {
				swapped += dw[j] * silu(xs[r]*gw[j]) * xs[j] * uw[r]
			}
			if math.Abs(got.At(r, 0)-swapped) <= 1e-12 {
				hint = "that multiplies silu(g[i][j]) by u[j][i], the up product's row and column swapped: h[i][j] = silu(g[i][j]) * u[i][j]"
			}
			t.Fatalf("hidden 1, intermediate 2, x = %g: got %.17g, want %.17g:\n%s", xv, got.At(r, 0), want, hint)
		}
	}
}

// TestForwardGolden compares Forward with transformers' Qwen3MLP on x [7,64] with hidden 64 and
// intermediate 160. Tolerance: goldenTol.
func TestForwardGolden(t *testing.T) {
	var m struct {
		Hidden       int `json:"hidden"`
		Intermediate int `json:"intermediate"`
	}
	if err := reference.LoadJSON(chapter, "meta", &m); err != nil {
		t.Fatalf("golden data: %v", err)
	}
	w := &Weights{Gate: load(t, "gate_proj.npy"), Up: load(t, "up_proj.npy"), Down: load(t, "down_proj.npy")}
	if err := w.Check(m.Hidden, m.Intermediate); err != nil {
		t.Fatalf("golden weights: %v", err)
	}
	x := load(t, "x.npy")
	got := w.Forward(x)
	want := load(t, "out.npy")
	if e := relErr(t, got.RawMatrix().Data, want.RawMatrix().Data); e > goldenTol {
		t.Errorf("MLP vs transformers: relative error %.3g > %g:\n%s", e, goldenTol, mlpHint(x, w, got))
	} else {
		t.Logf("MLP vs transformers: relative error %.3g (tolerance %g)", e, goldenTol)
	}
}

// mlpHint names the classic mistake whose formula, computed here on the same weights, gives got:
// SiLU on the up projection, no SiLU, or a sum for the product.
func mlpHint(x *mat.Dense, w *Weights, got *mat.Dense) string {
	silu := func(z float64) float64 { return z / (1 + math.Exp(-z)) }
	seq, _ := x.Dims()
	inter, hidden := w.Gate.Dims()
	g, u := mat.NewDense(seq, inter, nil), mat.NewDense(seq, inter, nil)
	g.Mul(x, w.Gate.T())
	u.Mul(x, w.Up.T())
	for _, m := range []struct {
		what string
		f    func(g, u float64) float64
	}{
		{"that is g ⊙ silu(u): SiLU went on the up projection; it belongs on the gate", func(g, u float64) float64 { return g * silu(u) }},
		{"that is g ⊙ u: the gate was not passed through SiLU", func(g, u float64) float64 { return g * u }},
		{"that is silu(g) + u: multiply the gate and up element-wise, do not add them", func(g, u float64) float64 { return silu(g) + u }},
	} {
		h := mat.NewDense(seq, inter, nil)
		h.Apply(func(i, j int, gv float64) float64 { return m.f(gv, u.At(i, j)) }, g)
		out := mat.NewDense(seq, hidden, nil)
		out.Mul(h, w.Down.T())
		if reference.RelErr(got.RawMatrix().Data, out.RawMatrix().Data) < 1e-9 {
			return m.what
		}
	}
	return "want out = (silu(x gate^T) ⊙ (x up^T)) down^T"
}

func TestCheckErrors(t *testing.T) {
	good := func() *Weights {
		return &Weights{Gate: mat.NewDense(6, 4, nil), Up: mat.NewDense(6, 4, nil), Down: mat.NewDense(4, 6, nil)}
	}
	if err := good().Check(4, 6); err != nil {
		t.Fatalf("good weights: %v", err)
	}
	w := good()
	w.Down = mat.NewDense(6, 4, nil)
	if err := w.Check(4, 6); err == nil || !strings.Contains(err.Error(), "down_proj is 6x4, want 4x6") {
		t.Errorf("transposed down_proj: error %v", err)
	}
	w = good()
	w.Up = nil
	if err := w.Check(4, 6); err == nil || !strings.Contains(err.Error(), "up_proj is missing") {
		t.Errorf("missing up_proj: error %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("Forward with mismatched shapes did not panic")
		}
	}()
	Forward(mat.NewDense(1, 4, nil), w.Gate, mat.NewDense(6, 3, nil), w.Down)
}

// TestBeforeGating pins the comparison functions: ReLU and GELU at hand-computed points (GELU(1)
// = Φ(1) = 0.841344746..., 1e-9: the digits of the table), PlainForward on hidden 1 by hand, and
// the homogeneity of a ReLU block (doubling x doubles the output, to float64 rounding), which
// the package doc contrasts with the gate.
func TestBeforeGating(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       func(float64) float64
		z, want float64
	}{
		{"ReLU", ReLU, -2, 0}, {"ReLU", ReLU, 3, 3},
		{"GELU", GELU, 1, 0.841344746}, {"GELU", GELU, -1, -0.158655254}, {"GELU", GELU, 0, 0},
	} {
		if got := c.f(c.z); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s(%g) = %.10g, want %.10g", c.name, c.z, got, c.want)
		}
	}
	x := mat.NewDense(1, 1, []float64{2})
	w1 := mat.NewDense(2, 1, []float64{1, -1})
	w2 := mat.NewDense(1, 2, []float64{3, 5})
	if got := PlainForward(x, w1, w2, ReLU).At(0, 0); got != 6 {
		t.Errorf("PlainForward(2): relu(2)*3 + relu(-2)*5 = %g, want 6", got)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	a, b, c := randDense(rng, 3, 4), randDense(rng, 5, 4), randDense(rng, 4, 5)
	one, two := PlainForward(a, b, c, ReLU), PlainForward(mat.NewDense(3, 4, scaled(a.RawMatrix().Data, 2)), b, c, ReLU)
	if !floats.EqualApprox(two.RawMatrix().Data, scaled(one.RawMatrix().Data, 2), 1e-12) {
		t.Errorf("a ReLU block on 2x is not twice the block on x")
	}
}

func scaled(v []float64, s float64) []float64 {
	out := make([]float64, len(v))
	for i := range v {
		out[i] = s * v[i]
	}
	return out
}

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	return mat.NewDense(r, c, d)
}
