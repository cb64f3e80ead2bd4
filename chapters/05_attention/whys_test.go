package attention_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Example_normBeforeRoPE shows why QK-norm comes before RoPE. RoPE turns each pair (i, i+d/2) by
// a rotation, which keeps the pair's length and so the head's RMS: with a weight of ones, norm and
// rotation commute. The learned weight does not: it stretches element i and element i+d/2 by
// different amounts, and a stretch applied after the rotation lands on angles that depend on the
// absolute position. Then q·k is no longer a function of m-n alone, the property the KV cache and
// every relative-position argument of chapter 04 rest on. One head of 8, a random query and key,
// a weight between 0.2 and 2; the score at the same distance 2 over 1001 pairs of positions, on
// the exact table so that float32 angles play no part.
func Example_normBeforeRoPE() {
	const d = 8
	rng := rand.New(rand.NewPCG(7, 8))
	q, k, w, ones := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
	for i := range d {
		q[i], k[i], w[i], ones[i] = rng.NormFloat64(), rng.NormFloat64(), 0.2+1.8*rng.Float64(), 1
	}
	tab := rope.NewExactTable(d, 2048, 100)
	norm := func(x, w []float64) []float64 {
		return rmsnorm.NormHeads(mat.NewDense(1, d, append([]float64(nil), x...)), w, d, rmsnorm.Eps).RawRowView(0)
	}
	turn := func(x []float64, pos int) []float64 {
		y := append([]float64(nil), x...)
		tab.RotateHead(y, pos)
		return y
	}
	normThenRope := func(x, w []float64, pos int) []float64 { return turn(norm(x, w), pos) }
	ropeThenNorm := func(x, w []float64, pos int) []float64 { return norm(turn(x, pos), w) }
	for _, c := range []struct {
		name string
		f    func(x, w []float64, pos int) []float64
	}{{"norm, then RoPE (Qwen3)", normThenRope}, {"RoPE, then norm", ropeThenNorm}} {
		for _, wc := range []struct {
			name string
			w    []float64
		}{{"weight 1", ones}, {"learned weight", w}} {
			lo, hi := math.Inf(1), math.Inf(-1)
			for shift := range 1001 {
				s := floats.Dot(c.f(q, wc.w, 5+shift), c.f(k, wc.w, 3+shift))
				lo, hi = min(lo, s), max(hi, s)
			}
			fmt.Printf("%-24s %-15s q·k at distance 2, positions (5, 3) .. (1005, 1003): %7.4f .. %7.4f\n", c.name, wc.name, lo, hi)
		}
	}
	// Output:
	// norm, then RoPE (Qwen3)  weight 1        q·k at distance 2, positions (5, 3) .. (1005, 1003): -4.4089 .. -4.4089
	// norm, then RoPE (Qwen3)  learned weight  q·k at distance 2, positions (5, 3) .. (1005, 1003): -8.7157 .. -8.7157
	// RoPE, then norm          weight 1        q·k at distance 2, positions (5, 3) .. (1005, 1003): -4.4089 .. -4.4089
	// RoPE, then norm          learned weight  q·k at distance 2, positions (5, 3) .. (1005, 1003): -10.2807 .. -7.5206
}

// Example_rotatedValues shows why RoPE turns queries and keys but not values. The scores then
// depend on distances only, and so do the probabilities; a value is read as it was written,
// whatever its position. Rotate the values as well and what a token reads depends on where the
// tokens sit: moving all three tokens of one head 100 positions further changes the output by more
// than its largest value, where it changes nothing (up to rounding) when only q and k turn.
func Example_rotatedValues() {
	c := attention.Config{Hidden: 4, Heads: 1, KVHeads: 1, HeadDim: 4, Eps: 1e-6, Theta: 100}
	tab := rope.NewExactTable(c.HeadDim, 256, c.Theta)
	rng := rand.New(rand.NewPCG(3, 4))
	rnd := func() *mat.Dense {
		m := mat.NewDense(3, 4, nil)
		for i := range 3 {
			for j := range 4 {
				m.Set(i, j, rng.NormFloat64())
			}
		}
		return m
	}
	q, k, v := rnd(), rnd(), rnd()
	out := func(start int, turnValues bool) *mat.Dense {
		vv := v
		if turnValues {
			vv = tab.Rotate(v, start)
		}
		ctx, _ := attention.Attend(c, tab.Rotate(q, start), tab.Rotate(k, start), vv, 0)
		return ctx
	}
	for _, turnValues := range []bool{false, true} {
		var diff mat.Dense
		a, b := out(0, turnValues), out(100, turnValues)
		diff.Sub(b, a)
		name := map[bool]string{false: "q, k turned (Qwen3)", true: "q, k and v turned  "}[turnValues]
		change := fmt.Sprintf("%.2f", mat.Norm(&diff, math.Inf(1)))
		if mat.Norm(&diff, math.Inf(1)) < 1e-12 {
			change = "below 1e-12" // float64 rounding only
		}
		fmt.Printf("%s: last token's output at positions 0..2 %.3f, at 100..102 %.3f: largest change %s (max |out| %.2f)\n",
			name, a.RawRowView(2), b.RawRowView(2), change, mat.Norm(a, math.Inf(1)))
	}
	// Output:
	// q, k turned (Qwen3): last token's output at positions 0..2 [0.532 1.114 1.423 0.193], at 100..102 [0.532 1.114 1.423 0.193]: largest change below 1e-12 (max |out| 4.71)
	// q, k and v turned  : last token's output at positions 0..2 [-0.042 1.072 1.624 0.241], at 100..102 [0.786 -0.769 1.422 -0.785]: largest change 4.95 (max |out| 4.71)
}

// Example_attentionBiases shows what the projection biases that Qwen2 had and Qwen3 removed would
// add to attention. A key bias b adds the same vector to every key, so q·b to every score of a
// query's row, and softmax ignores a constant added to a row: without RoPE it changes nothing. A
// value bias adds b to every value, and since each row of probabilities sums to 1, exactly b to
// every context row: one constant vector for every token, whatever it attends to. With RoPE the key
// bias turns with each key's position and becomes a preference by distance instead. Attention of
// one head of 4 over 3 tokens, with the same bias vector b on keys, then on values.
func Example_attentionBiases() {
	c := attention.Config{Hidden: 4, Heads: 1, KVHeads: 1, HeadDim: 4, Eps: 1e-6, Theta: 100}
	tab := rope.NewExactTable(c.HeadDim, 16, c.Theta)
	q := mat.NewDense(3, 4, []float64{1, 0, 0.5, 0, 0, 1, 0, -1, 1, 1, 0, 0})
	k := mat.NewDense(3, 4, []float64{0, 1, 1, 0, 1, 0, 0, 1, -1, 0, 1, 0})
	v := mat.NewDense(3, 4, []float64{10, 0, 0, 0, 0, 10, 0, 0, 0, 0, 10, 0})
	b := []float64{2, -1, 0.5, 1}
	plusBias := func(m *mat.Dense) *mat.Dense {
		r := mat.DenseCopyOf(m)
		for i := range 3 {
			floats.Add(r.RawRowView(i), b)
		}
		return r
	}
	probs := func(q, k *mat.Dense) *mat.Dense { _, p := attention.Attend(c, q, k, v, 0); return p[0] }
	change := func(a, b *mat.Dense) float64 {
		var d mat.Dense
		d.Sub(a, b)
		return mat.Norm(&d, math.Inf(1))
	}
	fmt.Printf("key bias, no RoPE:   probabilities change by %.1g\n", change(probs(q, plusBias(k)), probs(q, k)))
	fmt.Printf("key bias, with RoPE: probabilities change by up to %.2f\n",
		change(probs(tab.Rotate(q, 0), tab.Rotate(plusBias(k), 0)), probs(tab.Rotate(q, 0), tab.Rotate(k, 0))))
	ctx, _ := attention.Attend(c, q, k, v, 0)
	ctxB, _ := attention.Attend(c, q, k, plusBias(v), 0)
	var d mat.Dense
	d.Sub(ctxB, ctx)
	for i := range 3 {
		fmt.Printf("value bias: context row %d moves by %.4g\n", i, d.RawRowView(i))
	}
	// Output:
	// key bias, no RoPE:   probabilities change by 0
	// key bias, with RoPE: probabilities change by up to 0.46
	// value bias: context row 0 moves by [2 -1 0.5 1]
	// value bias: context row 1 moves by [2 -1 0.5 1]
	// value bias: context row 2 moves by [2 -1 0.5 1]
}
