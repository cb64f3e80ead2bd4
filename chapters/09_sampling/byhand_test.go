package sampling_test

import (
	"fmt"
	"math"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// Example_byHand is the worked example of the package doc: a vocabulary of five, logits
// [2 1 0 -1 -3], through each warper and the draw.
func Example_byHand() {
	z := []float64{2, 1, 0, -1, -3}
	show := func(name string, w []float64) {
		fmt.Printf("%-24s logits %5.2f -> p %.4f\n", name, w, sampling.Softmax(w))
	}
	show("raw", z)
	show("temperature 0.5", sampling.Temperature(z, 0.5))
	show("temperature 2", sampling.Temperature(z, 2))
	show("top-k 2", sampling.TopK(z, 2))
	show("top-p 0.9", sampling.TopP(z, 0.9))
	show("min-p 0.2", sampling.MinP(z, 0.2))
	show("T 0.5, top-k 3, top-p 0.9", sampling.Warp(z, sampling.Settings{Temperature: 0.5, TopK: 3, TopP: 0.9}))
	p := sampling.Softmax(z)
	for _, u := range []float64{0.1, 0.7, 0.9, 0.99} {
		fmt.Printf("u = %.2f -> token %d\n", u, sampling.Draw(p, u))
	}
	// Output:
	// raw                      logits [ 2.00  1.00  0.00 -1.00 -3.00] -> p [0.6411 0.2359 0.0868 0.0319 0.0043]
	// temperature 0.5          logits [ 4.00  2.00  0.00 -2.00 -6.00] -> p [0.8649 0.1171 0.0158 0.0021 0.0000]
	// temperature 2            logits [ 1.00  0.50  0.00 -0.50 -1.50] -> p [0.4387 0.2661 0.1614 0.0979 0.0360]
	// top-k 2                  logits [ 2.00  1.00  -Inf  -Inf  -Inf] -> p [0.7311 0.2689 0.0000 0.0000 0.0000]
	// top-p 0.9                logits [ 2.00  1.00  0.00  -Inf  -Inf] -> p [0.6652 0.2447 0.0900 0.0000 0.0000]
	// min-p 0.2                logits [ 2.00  1.00  -Inf  -Inf  -Inf] -> p [0.7311 0.2689 0.0000 0.0000 0.0000]
	// T 0.5, top-k 3, top-p 0.9 logits [ 4.00  2.00  -Inf  -Inf  -Inf] -> p [0.8808 0.1192 0.0000 0.0000 0.0000]
	// u = 0.10 -> token 0
	// u = 0.70 -> token 1
	// u = 0.90 -> token 2
	// u = 0.99 -> token 3
}

// Example_whichWarper shows when each filter helps, on two made-up distributions over 1000
// tokens with a Zipf-like tail (logit -1.1·ln(rank)): "open", where many continuations are
// plausible, and "sure", the same with the first token 5 logits higher. For each setting it
// prints how many tokens stay, the probability of the first, and the share of the draw that
// goes to the tail (tokens whose raw probability was below 1e-3): nonsense, mostly.
func Example_whichWarper() {
	open := make([]float64, 1000)
	for i := range open {
		open[i] = -1.1 * math.Log(float64(i+1))
	}
	sure := append([]float64(nil), open...)
	sure[0] += 5
	for _, s := range []struct {
		name string
		set  sampling.Settings
	}{
		{"none", sampling.Settings{Temperature: 1, TopP: 1}},
		{"top-k 20", sampling.Settings{Temperature: 1, TopK: 20, TopP: 1}},
		{"top-p 0.9", sampling.Settings{Temperature: 1, TopP: 0.9}},
		{"min-p 0.05", sampling.Settings{Temperature: 1, TopP: 1, MinP: 0.05}},
		{"T 1.5", sampling.Settings{Temperature: 1.5, TopP: 1}},
		{"T 1.5, top-p 0.9", sampling.Settings{Temperature: 1.5, TopP: 0.9}},
		{"T 1.5, min-p 0.05", sampling.Settings{Temperature: 1.5, TopP: 1, MinP: 0.05}},
	} {
		fmt.Printf("%-18s", s.name)
		for _, z := range [][]float64{open, sure} {
			raw, p := sampling.Softmax(z), sampling.Distribution(z, s.set)
			kept, tail := 0, 0.0
			for i := range p {
				if p[i] > 0 {
					kept++
				}
				if raw[i] < 1e-3 {
					tail += p[i]
				}
			}
			fmt.Printf("  %4d kept, first %.2f, tail %.3f", kept, p[0], tail)
		}
		fmt.Println()
	}
	// Output:
	// none                1000 kept, first 0.18, tail 0.221  1000 kept, first 0.97, tail 0.022
	// top-k 20              20 kept, first 0.31, tail 0.000    20 kept, first 0.99, tail 0.007
	// top-p 0.9            349 kept, first 0.20, tail 0.134     1 kept, first 1.00, tail 0.000
	// min-p 0.05            15 kept, first 0.34, tail 0.000     1 kept, first 1.00, tail 0.000
	// T 1.5               1000 kept, first 0.05, tail 0.512  1000 kept, first 0.59, tail 0.374
	// T 1.5, top-p 0.9     713 kept, first 0.05, tail 0.458   432 kept, first 0.66, tail 0.304
	// T 1.5, min-p 0.05     59 kept, first 0.13, tail 0.000     1 kept, first 1.00, tail 0.000
}
