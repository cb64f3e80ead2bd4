package plots

import (
	"fmt"
	"math"
	"math/rand/v2"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// SoftmaxStats describes the softmax of a row of attention scores, averaged over many rows:
// MaxProb is the largest probability (1: all the weight on one key; 1/keys: uniform), and Grad
// the size of the softmax's Jacobian diag(p) - p pᵀ (its Frobenius norm), which is what training
// multiplies every gradient of the scores by: 0 when the softmax is saturated on one key.
type SoftmaxStats struct {
	MaxProb, Grad float64
}

// Saturation draws trials random queries and keys of headDim entries, each N(0, 1), scores one
// query against keys keys, and returns the softmax statistics of the raw scores q·k and of the
// scaled scores q·k / sqrt(headDim), as chapter 05's attention computes them. It shows why the
// scores are scaled: the raw scores spread like sqrt(headDim), and softmax saturates.
func Saturation(rng *rand.Rand, headDim, keys, trials int) (raw, scaled SoftmaxStats, err error) {
	if headDim < 1 || keys < 2 || trials < 1 {
		return raw, scaled, fmt.Errorf("plots: Saturation(headDim %d, keys %d, trials %d): want headDim >= 1, keys >= 2, trials >= 1",
			headDim, keys, trials)
	}
	q, k := make([]float64, headDim), make([]float64, headDim)
	s, t := make([]float64, keys), make([]float64, keys)
	for range trials {
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		for j := range s {
			for i := range k {
				k[i] = rng.NormFloat64()
			}
			s[j] = floats.Dot(q, k)
			t[j] = s[j] / math.Sqrt(float64(headDim))
		}
		for _, c := range []struct {
			row []float64
			out *SoftmaxStats
		}{{s, &raw}, {t, &scaled}} {
			attention.Softmax(c.row)
			c.out.MaxProb += floats.Max(c.row) / float64(trials)
			c.out.Grad += jacobianNorm(c.row) / float64(trials)
		}
	}
	return raw, scaled, nil
}

// jacobianNorm is the Frobenius norm of diag(p) - p pᵀ: entry (i, j) is p_i (δ_ij - p_j).
func jacobianNorm(p []float64) float64 {
	var sum float64
	for i, pi := range p {
		for j, pj := range p {
			v := -pi * pj
			if i == j {
				v += pi
			}
			sum += v * v
		}
	}
	return math.Sqrt(sum)
}

// Wiring is one way of stacking layers, measured by Wirings.
type Wiring struct {
	Name  string
	RMS   []float64 // the stream's RMS after each layer
	Alike float64   // mean cosine between the final vectors of every pair of tokens (1: all the same)
	Kept  float64   // mean cosine between each token's final vector and its input
}

// Wirings stacks the same random layers (hidden 32, 4 query heads over 2 KV heads of 8,
// intermediate 96, weights of variance 1/fan-in, all norm weights 1) three ways, on seq random
// tokens: Qwen3's pre-norm residual layer (forward.Layer.Forward), the post-norm layer of the
// original Transformer (PostNormForward) and no residual at all (NoResidualForward). With seed
// (7, 8), 28 layers and 8 tokens it is chapter 07's Example_residual, number for number.
func Wirings(layers, seq int, seed1, seed2 uint64) ([]Wiring, error) {
	const hidden, heads, kvHeads, headDim, inter = 32, 4, 2, 8, 96
	if layers < 1 || seq < 2 {
		return nil, fmt.Errorf("plots: Wirings(%d layers, %d tokens): want at least 1 layer and 2 tokens", layers, seq)
	}
	ac := attention.Config{Hidden: hidden, Heads: heads, KVHeads: kvHeads, HeadDim: headDim, Eps: 1e-6, Theta: 1e6}
	rot := ac.RoPE(seq)
	rng := rand.New(rand.NewPCG(seed1, seed2))
	random := func(r, c int) *mat.Dense {
		d := make([]float64, r*c)
		for i := range d {
			d[i] = rng.NormFloat64() / math.Sqrt(float64(c))
		}
		return mat.NewDense(r, c, d)
	}
	ones := func(n int) []float64 {
		o := make([]float64, n)
		floats.AddConst(1, o)
		return o
	}
	ls := make([]forward.Layer, layers)
	for i := range ls {
		ls[i] = forward.Layer{InputNorm: ones(hidden), PostNorm: ones(hidden),
			Attn: attention.Weights{Q: random(heads*headDim, hidden), K: random(kvHeads*headDim, hidden), V: random(kvHeads*headDim, hidden),
				O: random(hidden, heads*headDim), QNorm: ones(headDim), KNorm: ones(headDim)},
			MLP: mlp.Weights{Gate: random(inter, hidden), Up: random(inter, hidden), Down: random(hidden, inter)}}
	}
	x0 := mat.NewDense(seq, hidden, nil)
	for i := range seq {
		for j := range hidden {
			x0.Set(i, j, rng.NormFloat64())
		}
	}
	cos := func(a, b []float64) float64 { return floats.Dot(a, b) / floats.Norm(a, 2) / floats.Norm(b, 2) }
	type step func(l *forward.Layer, x *mat.Dense, eps float64, attn func(*mat.Dense) *mat.Dense) *mat.Dense
	var out []Wiring
	for _, w := range []struct {
		name string
		step step
	}{
		{"pre-norm (Qwen3)", (*forward.Layer).Forward},
		{"post-norm", (*forward.Layer).PostNormForward},
		{"no residual", (*forward.Layer).NoResidualForward},
	} {
		r := Wiring{Name: w.name}
		x := x0
		for i := range ls {
			l := &ls[i]
			x = w.step(l, x, 1e-6, func(n *mat.Dense) *mat.Dense { o, _ := attention.Forward(ac, &l.Attn, rot, n, 0); return o })
			r.RMS = append(r.RMS, rmsnorm.RMS(x.RawMatrix().Data))
		}
		pairs := float64(seq * (seq - 1) / 2)
		for i := range seq {
			r.Kept += cos(x.RawRowView(i), x0.RawRowView(i)) / float64(seq)
			for j := i + 1; j < seq; j++ {
				r.Alike += cos(x.RawRowView(i), x.RawRowView(j)) / pairs
			}
		}
		out = append(out, r)
	}
	return out, nil
}
