package forward_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Example_byHand is the worked example of the package doc: a vocabulary of five tokens, hidden
// 4, one layer whose attention adds a quarter of the previous token's normalized vector and whose
// MLP is switched off (zero weights), then the final norm and the tied LM head.
func Example_byHand() {
	emb := mat.NewDense(5, 4, []float64{
		1, 0, 0, 0, // token 0
		0, 1, 0, 0, // token 1
		0, 0, 1, 0, // token 2
		0, 0, 0, 1, // token 3
		0, 0.5, 0.5, 0.5, // token 4
	})
	ones := []float64{1, 1, 1, 1}
	layer := forward.Layer{InputNorm: ones, PostNorm: ones,
		MLP: mlp.Weights{Gate: mat.NewDense(2, 4, nil), Up: mat.NewDense(2, 4, nil), Down: mat.NewDense(4, 2, nil)}}
	prevToken := func(normed *mat.Dense) *mat.Dense { // row t reads a quarter of row t-1
		out := mat.NewDense(2, 4, nil)
		for j := range 4 {
			out.Set(1, j, 0.25*normed.At(0, j))
		}
		return out
	}
	m := &forward.Model{Config: gguf.Config{RMSNormEps: 1e-6}, Embedding: emb, LMHead: emb, Norm: ones, Tied: true}

	rows := func(a *mat.Dense) string { return fmt.Sprintf("%.4g | %.4g", a.RawRowView(0), a.RawRowView(1)) }
	x, _ := (&forward.Model{Embedding: emb}).Embed([]int{2, 0})
	fmt.Println("x = Embed([2 0])     ", rows(x))
	fmt.Println("RMSNorm(x)           ", rows(rmsnorm.RMSNorm(x, ones, 1e-6)))
	out := layer.Forward(x, 1e-6, prevToken)
	fmt.Println("x + attn, + MLP (0)  ", rows(out))
	normed, logits := m.Logits(out)
	fmt.Println("final RMSNorm        ", rows(normed))
	fmt.Printf("logits, row 1         %.4f\n", logits.RawRowView(1))

	noRes := layer.NoResidualForward(x, 1e-6, prevToken)
	fmt.Println("without the residual ", rows(noRes))
	// Output:
	// x = Embed([2 0])      [0 0 1 0] | [1 0 0 0]
	// RMSNorm(x)            [0 0 2 0] | [2 0 0 0]
	// x + attn, + MLP (0)   [0 0 1 0] | [1 0 0.5 0]
	// final RMSNorm         [0 0 2 0] | [1.789 0 0.8944 0]
	// logits, row 1         [1.7889 0.0000 0.8944 0.0000 0.4472]
	// without the residual  [0 0 0 0] | [0 0 0 0]
}

// Example_residual compares three ways of wiring the same 28 random layers (hidden 32, 4 query
// heads over 2 KV heads of 8, intermediate 96, weights drawn with variance 1/fan-in) on 8 random
// tokens: Qwen3's pre-norm residual layer, the post-norm layer of the original Transformer, and
// no residual at all. It prints how the stream's RMS grows, how alike the 8 tokens' final vectors
// are (mean cosine between pairs: 1 means every token is the same vector), and how much of each
// token's input its final vector still points to.
func Example_residual() {
	const hidden, heads, kvHeads, headDim, inter, layers, seq = 32, 4, 2, 8, 96, 28, 8
	ac := attention.Config{Hidden: hidden, Heads: heads, KVHeads: kvHeads, HeadDim: headDim, Eps: 1e-6, Theta: 1e6}
	rot := ac.RoPE(seq)
	rng := rand.New(rand.NewPCG(7, 8))
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
	var ls []forward.Layer
	for range layers {
		ls = append(ls, forward.Layer{InputNorm: ones(hidden), PostNorm: ones(hidden),
			Attn: attention.Weights{Q: random(heads*headDim, hidden), K: random(kvHeads*headDim, hidden), V: random(kvHeads*headDim, hidden),
				O: random(hidden, heads*headDim), QNorm: ones(headDim), KNorm: ones(headDim)},
			MLP: mlp.Weights{Gate: random(inter, hidden), Up: random(inter, hidden), Down: random(hidden, inter)}})
	}
	x0 := mat.NewDense(seq, hidden, nil) // 8 tokens, entries of variance 1
	for i := range seq {
		for j := range hidden {
			x0.Set(i, j, rng.NormFloat64())
		}
	}
	cos := func(a, b []float64) float64 { return floats.Dot(a, b) / floats.Norm(a, 2) / floats.Norm(b, 2) }
	for _, w := range []struct {
		name string
		step func(l *forward.Layer, x *mat.Dense, attn func(*mat.Dense) *mat.Dense) *mat.Dense
	}{
		{"pre-norm (Qwen3)", func(l *forward.Layer, x *mat.Dense, a func(*mat.Dense) *mat.Dense) *mat.Dense {
			return l.Forward(x, 1e-6, a)
		}},
		{"post-norm", func(l *forward.Layer, x *mat.Dense, a func(*mat.Dense) *mat.Dense) *mat.Dense {
			return l.PostNormForward(x, 1e-6, a)
		}},
		{"no residual", func(l *forward.Layer, x *mat.Dense, a func(*mat.Dense) *mat.Dense) *mat.Dense {
			return l.NoResidualForward(x, 1e-6, a)
		}},
	} {
		x := x0
		var rms []float64
		for i := range ls {
			l := &ls[i]
			x = w.step(l, x, func(n *mat.Dense) *mat.Dense { o, _ := attention.Forward(ac, &l.Attn, rot, n, 0); return o })
			rms = append(rms, rmsnorm.RMS(x.RawMatrix().Data))
		}
		var alike, own float64
		for i := range seq {
			own += cos(x.RawRowView(i), x0.RawRowView(i)) / seq
			for j := i + 1; j < seq; j++ {
				alike += cos(x.RawRowView(i), x.RawRowView(j)) / (seq * (seq - 1) / 2)
			}
		}
		fmt.Printf("%-17s RMS after layers 1, 14, 28: %.2f %.2f %.2f; tokens alike %.3f; input kept %.3f\n", w.name, rms[0], rms[13], rms[27], alike, own)
	}
	// Output:
	// pre-norm (Qwen3)  RMS after layers 1, 14, 28: 1.42 3.34 4.84; tokens alike 0.565; input kept 0.216
	// post-norm         RMS after layers 1, 14, 28: 1.00 1.00 1.00; tokens alike 1.000; input kept 0.056
	// no residual       RMS after layers 1, 14, 28: 0.58 0.57 0.54; tokens alike 1.000; input kept 0.009
}
