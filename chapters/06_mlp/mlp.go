package mlp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Sigmoid is the logistic function: sigmoid(z) = 1 / (1 + e^-z), between 0 and 1.
func Sigmoid(z float64) float64 { return 1 / (1 + math.Exp(-z)) }

// SiLU is the sigmoid-weighted linear unit (also called swish): silu(z) = z * sigmoid(z).
func SiLU(z float64) float64 {
	// exercise: mlp.SiLU — z times the logistic sigmoid of z
	// tests: TestSiLUValues ExampleSiLU
	// difficulty: easy, 5 min
	return z * Sigmoid(z)
	// hint: SiLU lets a positive z through almost unchanged and squashes a negative z towards 0:
	// it is z weighted by how "on" the logistic sigmoid says z is. Sigmoid is defined above.
	// hint: silu(z) = z * sigmoid(z) = z / (1 + e^-z). For z = 800, e^-z is 0 and the answer is
	// 800; for z = -800, e^-z is +Inf and the answer is -0: no NaN either way.
	// hint: One line: return z * ...
	// mistake: the sigmoid alone, without the factor z
	// says: this is the sigmoid alone
	//	- return z * Sigmoid(z)
	//	+ return Sigmoid(z)
	// mistake: the sigmoid of -z
	// says: this is z * sigmoid(-z)
	//	- return z * Sigmoid(z)
	//	+ return z / (1 + math.Exp(z))
	// mistake: z e^z / (1 + e^z), which is NaN once e^z overflows
	// says: e^z overflows for large |z|
	//	- return z * Sigmoid(z)
	//	+ return z * math.Exp(z) / (1 + math.Exp(z))
	// mistake: GELU, GPT-2's and BERT's activation, instead of SiLU
	// says: this is GELU's curve
	//	- return z * Sigmoid(z)
	//	+ return 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
	// end exercise
}

// Forward is Qwen3's SwiGLU feed-forward block:
//
//	out = (silu(x * gate^T) ⊙ (x * up^T)) * down^T
//
// x is seq x hidden, gate and up are intermediate x hidden, down is hidden x intermediate (Hugging
// Face orientation [out][in]); the result is a new seq x hidden matrix. It panics if the shapes
// do not fit together (see Weights.Check for the error-returning check of loaded weights).
func Forward(x, gate, up, down *mat.Dense) *mat.Dense {
	seq, hidden := x.Dims()
	inter, gh := gate.Dims()
	ui, uh := up.Dims()
	dh, di := down.Dims()
	if gh != hidden || uh != hidden || ui != inter || dh != hidden || di != inter {
		panic(fmt.Sprintf("mlp: x %dx%d, gate %dx%d, up %dx%d, down %dx%d do not fit together",
			seq, hidden, inter, gh, ui, uh, dh, di))
	}
	h := mat.NewDense(seq, inter, nil)
	// exercise: mlp.Forward — gate through SiLU, times up, element-wise, into h
	// tests: TestForwardByHand TestForwardGolden ExampleForward
	// difficulty: medium, 15 min
	h.Mul(x, gate.T())
	u := mat.NewDense(seq, inter, nil)
	u.Mul(x, up.T())
	h.Apply(func(i, j int, g float64) float64 { return SiLU(g) * u.At(i, j) }, h)
	// hint: Two projections of x into the intermediate width: the gate and up. The gate goes
	// through SiLU and then scales up, entry by entry; the given code after the fence multiplies the
	// result by down^T.
	// hint: h = silu(x gate^T) ⊙ (x up^T), both seq x intermediate; ⊙ multiplies entry by entry.
	// hint: The shape:
	//	h.Mul(x, gate.T())
	//	u := mat.NewDense(seq, inter, nil); u.Mul(x, up.T())
	//	h.Apply(func(i, j int, g float64) float64 { return ... }, h)
	// mistake: SiLU on the up projection instead of the gate
	// says: SiLU went on the up projection
	//	- h.Apply(func(i, j int, g float64) float64 { return SiLU(g) * u.At(i, j) }, h)
	//	+ h.Apply(func(i, j int, g float64) float64 { return g * SiLU(u.At(i, j)) }, h)
	// mistake: no SiLU at all, a plain bilinear gate
	// says: without SiLU on the gate
	//	- h.Apply(func(i, j int, g float64) float64 { return SiLU(g) * u.At(i, j) }, h)
	//	+ h.Apply(func(i, j int, g float64) float64 { return g * u.At(i, j) }, h)
	// mistake: gate and up added instead of multiplied
	// says: were added: multiply them element-wise
	//	- h.Apply(func(i, j int, g float64) float64 { return SiLU(g) * u.At(i, j) }, h)
	//	+ h.Apply(func(i, j int, g float64) float64 { return SiLU(g) + u.At(i, j) }, h)
	// end exercise
	out := mat.NewDense(seq, hidden, nil)
	out.Mul(h, down.T())
	return out
}

// What came before, kept to compare with (the package doc's "Why a gate"; Qwen3 uses none of it).

// ReLU is max(0, z), the activation of the original Transformer's feed-forward block. Its slope
// is 0 for every z < 0: a unit whose input is negative for every token gets no gradient at all.
func ReLU(z float64) float64 { return max(0, z) }

// GELU is z·Φ(z), with Φ the standard normal distribution function: GPT-2's and BERT's activation,
// here in its exact form 0.5·z·(1 + erf(z/√2)) (GPT-2 computed a tanh approximation of it).
func GELU(z float64) float64 { return 0.5 * z * (1 + math.Erf(z/math.Sqrt2)) }

// PlainForward is the feed-forward block before gating, without biases:
//
//	out = act(x * w1^T) * w2^T
//
// with act = ReLU (2017) or GELU (GPT-2). x is seq x hidden, w1 is intermediate x hidden, w2 is
// hidden x intermediate; the result is a new seq x hidden matrix. Qwen3 does not use it. With
// ReLU it is positively homogeneous, PlainForward(2x) = 2·PlainForward(x): each unit is linear
// along every ray from 0, which a gated unit is not. It panics if the shapes do not fit.
func PlainForward(x, w1, w2 *mat.Dense, act func(float64) float64) *mat.Dense {
	seq, hidden := x.Dims()
	inter, h1 := w1.Dims()
	h2, i2 := w2.Dims()
	if h1 != hidden || h2 != hidden || i2 != inter {
		panic(fmt.Sprintf("mlp: x %dx%d, w1 %dx%d, w2 %dx%d do not fit together", seq, hidden, inter, h1, h2, i2))
	}
	h := mat.NewDense(seq, inter, nil)
	h.Mul(x, w1.T())
	h.Apply(func(_, _ int, z float64) float64 { return act(z) }, h)
	out := mat.NewDense(seq, hidden, nil)
	out.Mul(h, w2.T())
	return out
}

// Weights are one layer's MLP parameters in Hugging Face orientation [out][in].
type Weights struct {
	Gate *mat.Dense // gate_proj: intermediate x hidden
	Up   *mat.Dense // up_proj: intermediate x hidden
	Down *mat.Dense // down_proj: hidden x intermediate
}

// Check reports the first weight that is missing or whose shape does not match hidden and
// intermediate (weights come from files, so this is an input error, not a panic).
func (w *Weights) Check(hidden, intermediate int) error {
	for _, m := range []struct {
		name       string
		a          *mat.Dense
		rows, cols int
	}{
		{"gate_proj", w.Gate, intermediate, hidden},
		{"up_proj", w.Up, intermediate, hidden},
		{"down_proj", w.Down, hidden, intermediate},
	} {
		if m.a == nil {
			return fmt.Errorf("mlp: %s is missing", m.name)
		}
		if r, c := m.a.Dims(); r != m.rows || c != m.cols {
			return fmt.Errorf("mlp: %s is %dx%d, want %dx%d", m.name, r, c, m.rows, m.cols)
		}
	}
	return nil
}

// Forward applies the block to x (seq x hidden): Forward(x, w.Gate, w.Up, w.Down).
func (w *Weights) Forward(x *mat.Dense) *mat.Dense { return Forward(x, w.Gate, w.Up, w.Down) }
