package attention_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"gonum.org/v1/gonum/mat"
)

// Example_byHand is the worked example of the package doc: two tokens, two query heads of
// head_dim 2 sharing one key/value head (grouped-query attention with a group of 2), already
// projected, so that every score can be computed on paper.
func Example_byHand() {
	c := attention.Config{Hidden: 4, Heads: 2, KVHeads: 1, HeadDim: 2, Eps: 1e-6, Theta: 1e4}
	// Token 0's key points along x, token 1's along y; their values are 10 on that axis.
	k := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	v := mat.NewDense(2, 2, []float64{10, 0, 0, 10})
	// Query head 0 looks for x, query head 1 for y, on both tokens: q row = [head 0 | head 1].
	q := mat.NewDense(2, 4, []float64{2, 0, 0, 2, 2, 0, 0, 2})
	rows := func(m *mat.Dense) string { return fmt.Sprintf("%.4g | %.4g", m.RawRowView(0), m.RawRowView(1)) }
	fmt.Println("mask                  ", rows(attention.Mask(2, 2, 0)))
	ctx, probs := attention.Attend(c, q, k, v, 0)
	for h, p := range probs {
		fmt.Printf("head %d (KV head %d): P = %s\n", h, attention.KVHead(h, 2, 1), rows(p))
	}
	fmt.Println("ctx [head 0 | head 1] ", rows(ctx))

	// The same row without the 1/sqrt(2) scale, and the scores by hand.
	unscaled := []float64{2, 0}
	attention.Softmax(unscaled)
	fmt.Printf("row 1 of head 0: scores (2, 0) / sqrt(2) = (%.4f, 0) -> %.4f; unscaled -> %.4f\n",
		2/math.Sqrt2, probs[0].RawRowView(1), unscaled)

	// The mask at work: give token 1 another key and value; token 0's output does not move.
	k2 := mat.NewDense(2, 2, []float64{1, 0, 5, 5})
	v2 := mat.NewDense(2, 2, []float64{10, 0, -7, 3})
	ctx2, _ := attention.Attend(c, q, k2, v2, 0)
	fmt.Printf("token 0 after changing token 1: %.4f (before %.4f)\n", ctx2.RawRowView(0), ctx.RawRowView(0))
	noMask, _ := attention.AttendMask(c, q, k2, v2, mat.NewDense(2, 2, nil))
	fmt.Printf("the same without the mask:      %.4f\n", noMask.RawRowView(0))
	// Output:
	// mask                   [0 -Inf] | [0 0]
	// head 0 (KV head 0): P = [1 0] | [0.8044 0.1956]
	// head 1 (KV head 0): P = [1 0] | [0.1956 0.8044]
	// ctx [head 0 | head 1]  [10 0 10 0] | [8.044 1.956 1.956 8.044]
	// row 1 of head 0: scores (2, 0) / sqrt(2) = (1.4142, 0) -> [0.8044 0.1956]; unscaled -> [0.8808 0.1192]
	// token 0 after changing token 1: [10.0000 0.0000 10.0000 0.0000] (before [10.0000 0.0000 10.0000 0.0000])
	// the same without the mask:      [-6.9408 2.9896 -6.9856 2.9975]
}

// Example_scale shows why the scores are divided by sqrt(head_dim). For query and key entries of
// mean 0 and variance 1, q·k is a sum of head_dim products of variance 1: its standard deviation
// is sqrt(head_dim), 11.3 for Qwen3's 128. Softmax of scores that far apart puts almost all the
// weight on one key, and its gradient with respect to every other key is almost 0: a head that
// starts out saturated barely learns. Dividing by sqrt(head_dim) brings the spread back to 1,
// whatever head_dim is. Mean over 2000 random queries of the largest probability among 16 keys.
func Example_scale() {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{16, 128} {
		var spread, maxRaw, maxScaled float64
		const trials, keys = 2000, 16
		for range trials {
			q := make([]float64, d)
			for i := range q {
				q[i] = rng.NormFloat64()
			}
			raw := make([]float64, keys)
			for j := range raw {
				for i := range q {
					raw[j] += q[i] * rng.NormFloat64()
				}
				spread += raw[j] * raw[j]
			}
			scaled := make([]float64, keys)
			for j := range raw {
				scaled[j] = raw[j] / math.Sqrt(float64(d))
			}
			attention.Softmax(raw)
			attention.Softmax(scaled)
			maxRaw += slicesMax(raw)
			maxScaled += slicesMax(scaled)
		}
		fmt.Printf("head_dim %3d: q·k has standard deviation %.1f; largest of 16 probabilities %.2f unscaled, %.2f scaled\n",
			d, math.Sqrt(spread/(trials*keys)), maxRaw/trials, maxScaled/trials)
	}
	fmt.Printf("uniform would be %.4f\n", 1.0/16)
	// Output:
	// head_dim  16: q·k has standard deviation 4.0; largest of 16 probabilities 0.69 unscaled, 0.25 scaled
	// head_dim 128: q·k has standard deviation 11.4; largest of 16 probabilities 0.90 unscaled, 0.25 scaled
	// uniform would be 0.0625
}

func slicesMax(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}
