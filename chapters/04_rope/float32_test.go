package rope_test

import (
	"fmt"
	"math"

	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"github.com/qwen3go/qwen3go/reference"
)

// Example_float32 measures the package doc's "float32 detail" against the golden data of
// transformers' Qwen3RotaryEmbedding (head_dim 128, theta 1e6, 96 positions up to 40959): first the
// largest gap between a float32 angle and the exact one at any position, split into its two
// sources; then the largest |cos/sin| error of the float32-angle table (NewTable), of the textbook float64 table
// (NewExactTable), and of the float32 arithmetic fed transformers' own inv_freq; then the one
// inv_freq value that differs, and why.
func Example_float32() {
	hf, err := reference.LoadArray("04_rope", "inv_freq.npy")
	if err != nil {
		panic(err)
	}
	pos, err := reference.LoadInts("04_rope", "positions.npy")
	if err != nil {
		panic(err)
	}
	wantCos, err := reference.LoadArray("04_rope", "cos.npy")
	if err != nil {
		panic(err)
	}
	wantSin, err := reference.LoadArray("04_rope", "sin.npy")
	if err != nil {
		panic(err)
	}
	const d, theta = 128, 1e6
	last := pos[0]
	for _, p := range pos {
		last = max(last, p)
	}
	// worst is the largest |cos/sin error| against transformers over the golden positions, for the
	// angle of pair i at position p that angle(p, i) gives. transformers' cos and sin are
	// cat(freqs, freqs): columns i and i+64 both hold pair i.
	worst := func(angle func(p, i int) float64) float64 {
		e := 0.0
		for r, p := range pos {
			for c := range d {
				a := angle(p, c%(d/2))
				e = max(e, math.Abs(math.Cos(a)-wantCos.Data[r*d+c]), math.Abs(math.Sin(a)-wantSin.Data[r*d+c]))
			}
		}
		return e
	}
	inv32, inv64 := rope.InvFreq(d, theta), rope.InvFreq64(d, theta)
	// The largest gap between the float32 angle and the exact one, and its two sources: the
	// rounding of the product, and inv_freq's own distance from the exact value times the position.
	gap, gapPos, gapPair := 0.0, 0, 0
	for p := 1; p <= last; p++ {
		for i := range inv32 {
			if g := math.Abs(rope.Angle32(p, inv32[i]) - float64(p)*inv64[i]); g > gap {
				gap, gapPos, gapPair = g, p, i
			}
		}
	}
	step := float64(math.Nextafter32(float32(inv32[gapPair]), 2)) - inv32[gapPair]
	fmt.Printf("largest angle gap %.1e rad (pair %d, position %d): %.1e from rounding the angle,\n", gap, gapPair, gapPos,
		math.Abs(rope.Angle32(gapPos, inv32[gapPair])-float64(gapPos)*inv32[gapPair]))
	fmt.Printf("  %.1e from inv_freq[%d], which is %.2f of a float32 step off the exact value\n",
		math.Abs(float64(gapPos)*(inv32[gapPair]-inv64[gapPair])), gapPair, math.Abs(inv32[gapPair]-inv64[gapPair])/step)
	f32 := worst(func(p, i int) float64 { return rope.Angle32(p, inv32[i]) })
	exact := worst(func(p, i int) float64 { return float64(p) * inv64[i] })
	theirs := worst(func(p, i int) float64 { return rope.Angle32(p, hf.Data[i]) })
	fmt.Printf("%d positions up to %d: float32 table within %.1e, exact table off by %.1e (%.0f times the 1e-5 tolerance)\n",
		len(pos), last, f32, exact, exact/1e-5)
	fmt.Printf("the same float32 arithmetic on transformers' own inv_freq: within %.1e\n", theirs)

	same := 0
	for i := range inv32 {
		if float32(inv32[i]) == float32(hf.Data[i]) {
			same++
			continue
		}
		// p = theta^(2i/d) in float64, and where it lies between its two float32 neighbours.
		p := math.Pow(theta, float64(float32(2*i)/float32(d)))
		lo := float64(float32(p))
		if lo > p {
			lo = float64(math.Nextafter32(float32(p), 0))
		}
		ulp := float64(math.Nextafter32(float32(lo), float32(math.Inf(1)))) - lo
		frac := (p - lo) / ulp
		fmt.Printf("inv_freq[%d] differs by one float32 ulp: 1e6^(%d/128) lies %.3f ulp from its nearest float32;\n", i, 2*i, min(frac, 1-frac))
		fmt.Printf("  pair %d turns %.1e rad per token, so the ulp costs %.1e rad at position %d\n",
			i, inv32[i], math.Abs(inv32[i]-hf.Data[i])*float64(last), last)
	}
	fmt.Printf("%d of %d inv_freq values are bit-identical to transformers'\n", same, len(inv32))
	// The shortcut a learner tries first, theta^(-e) rounded once, against transformers' bits.
	oneStep := 0
	for i := range inv32 {
		e := float64(float32(2*i) / float32(d))
		if float32(math.Pow(theta, -e)) != float32(hf.Data[i]) {
			oneStep++
		}
	}
	fmt.Printf("theta^(-e) rounded once: %d of %d values one ulp off transformers'\n", oneStep, len(inv32))
	// Output:
	// largest angle gap 3.3e-03 rad (pair 1, position 40897): 1.9e-03 from rounding the angle,
	//   1.4e-03 from inv_freq[1], which is 0.55 of a float32 step off the exact value
	// 96 positions up to 40959: float32 table within 1.9e-06, exact table off by 3.2e-03 (315 times the 1e-5 tolerance)
	// the same float32 arithmetic on transformers' own inv_freq: within 3.6e-08
	// inv_freq[37] differs by one float32 ulp: 1e6^(74/128) lies 0.486 ulp from its nearest float32;
	//   pair 37 turns 3.4e-04 rad per token, so the ulp costs 1.2e-06 rad at position 40959
	// 63 of 64 inv_freq values are bit-identical to transformers'
	// theta^(-e) rounded once: 24 of 64 values one ulp off transformers'
}
