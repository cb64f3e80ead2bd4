package sampling

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

var inf = math.Inf(-1)

// sameWarp compares filtered positions exactly and finite values within 1e-12 (hand-computed
// cases in float64: only rounding of one division separates them).
func sameWarp(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
	for i := range want {
		if math.IsInf(want[i], -1) != math.IsInf(got[i], -1) || (!math.IsInf(want[i], -1) && math.Abs(got[i]-want[i]) > 1e-12) {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

// The expected values of the tie cases below were checked by hand against transformers 4.x
// (TopKLogitsWarper, TopPLogitsWarper on CPU tensors). For top-p that holds for short rows only:
// torch.sort, which TopPLogitsWarper calls without stable=True, keeps tied values in index order
// up to 16 values on a CPU (torch 2.15 on a 2-vCPU AMD EPYC, 2026-11-27) and not beyond.
func TestTiesLikeTransformers(t *testing.T) {
	z := []float64{0, 1, 1, 1, 1, 0.5}
	// top-k keeps everything >= the k-th largest value: all four tied 1s survive k = 2.
	sameWarp(t, "TopK(k=2)", TopK(z, 2), []float64{inf, 1, 1, 1, 1, inf})
	// top-p sorts ascending with a stable sort: ids 0, 5, 1, 2, 3, 4. Probabilities
	// 0.074, 0.122, 0.201 x 4; cumulative 0.074, 0.196, 0.397, 0.598, ...: everything with
	// cumulative <= 0.5 goes, which cuts the tied group and removes its LOWEST id, 1.
	sameWarp(t, "TopP(p=0.5) (ascending stable order: ids 0, 5, 1, 2, 3, 4; drop while the cumulative sum is <= 1-p)",
		TopP(z, 0.5), []float64{inf, inf, 1, 1, 1, inf})

	u := []float64{math.Log(0.25), math.Log(0.25), math.Log(0.25), math.Log(0.25)}
	// uniform: cumulative 0.25, 0.5, 0.75, 1; "<= 1-p" removes the exact boundary too.
	sameWarp(t, "TopP uniform p=0.5 (cumulative 0.25, 0.5, ...: <= 1-p drops the exact boundary too)", TopP(u, 0.5), []float64{inf, inf, u[2], u[3]})
	sameWarp(t, "TopP uniform p=0.6", TopP(u, 0.6), []float64{inf, u[1], u[2], u[3]})
}

func TestFiltersHandComputed(t *testing.T) {
	z := []float64{2, 0, 1, -1, 3}
	sameWarp(t, "Temperature 2", Temperature(z, 2), []float64{1, 0, 0.5, -0.5, 1.5})
	sameWarp(t, "Temperature 0", Temperature(z, 0), []float64{inf, inf, inf, inf, 3})
	sameWarp(t, "TopK 2", TopK(z, 2), []float64{2, inf, inf, inf, 3})
	sameWarp(t, "TopK 0 (off)", TopK(z, 0), z)
	sameWarp(t, "TopK 9 (> vocab)", TopK(z, 9), z)
	// softmax(z) = [0.2341, 0.0317, 0.0861, 0.0117, 0.6364]
	for _, c := range []struct {
		p    float64
		want []float64
	}{{0.8, []float64{2, inf, inf, inf, 3}}, {0.9, []float64{2, inf, 1, inf, 3}}} {
		if got := TopP(z, c.p); !warpEqual(got, c.want) {
			t.Fatalf("TopP %g: got %v, want %v:\n%s", c.p, got, c.want, topPWalk(z, c.p))
		}
	}
	sameWarp(t, "TopP tiny", TopP(z, 1e-9), []float64{inf, inf, inf, inf, 3})
	sameWarp(t, "TopP 1 (off)", TopP(z, 1), z)
}

// topPWalk writes out, for a failure message, the walk TopP should take on z: the ids in
// ascending order of logit, their probabilities and the cumulative sums, and where 1-p cuts.
func topPWalk(z []float64, p float64) string {
	ids := make([]int, len(z))
	for i := range ids {
		ids[i] = i
	}
	slices.SortStableFunc(ids, func(a, b int) int { return -cmpDesc(z[a], z[b]) })
	probs := make([]float64, len(z))
	for r, id := range ids {
		probs[r] = z[id]
	}
	probs = Softmax(probs)
	s := fmt.Sprintf("softmax(z) = %.4f; ascending, id: probability, cumulative sum:\n ", Softmax(z))
	cum := 0.0
	for r, id := range ids {
		cum += probs[r]
		s += fmt.Sprintf(" %d: %.4f, %.4f;", id, probs[r], cum)
	}
	return s + fmt.Sprintf("\ndrop each token whose cumulative sum is <= 1-p = %.2g, and keep the last (most likely) one", 1-p)
}

// checkMinP runs MinP on hand-computed cases and, when it is wrong, fails t naming the classic
// mistake its output comes from (each computed here from Softmax, which the exercises before it
// provide).
func checkMinP(t *testing.T) {
	t.Helper()
	z := []float64{2, 0, 1, -1, 3}
	// softmax(z) = [0.2341 0.0317 0.0861 0.0117 0.6364]; min-p 0.1: floor 0.1*0.6364 = 0.0636,
	// keeps 0.2341, 0.0861, 0.6364.
	// min-p 0.2: floor 0.1273, keeps 0.2341 and 0.6364 (a floor half as high would keep 0.0861 too).
	for _, c := range []struct {
		minP float64
		want []float64
	}{{0.1, []float64{2, inf, 1, inf, 3}}, {0.2, []float64{2, inf, inf, inf, 3}}} {
		got := MinP(z, c.minP)
		if warpEqual(got, c.want) {
			continue
		}
		// keep filters z with a floor computed from some scores (the probabilities, or the logits). On
		// this z, a floor on the logits passes min-p 0.1 and gives at 0.2 what a floor relative to
		// the first token gives; that one already fails at 0.1, so the logits are named first.
		keep := func(scores []float64, floor float64) []float64 {
			out := slices.Clone(z)
			for i := range scores {
				if scores[i] < floor {
					out[i] = inf
				}
			}
			return out
		}
		p := Softmax(z)
		why := "keep token i when probs[i] >= min_p * max(probs)"
		switch {
		case warpEqual(got, keep(p, c.minP)):
			why = fmt.Sprintf("a threshold taken as absolute (probs[i] < %g): min-p's floor is relative to the top token, min_p * max(probs) = %.4f",
				c.minP, c.minP*slices.Max(p))
		case warpEqual(got, keep(z, c.minP*slices.Max(z))):
			why = fmt.Sprintf("that compares the logits with min_p * max(logits) = %.3g: min-p compares probabilities, probs = softmax(z), given as probs",
				c.minP*slices.Max(z))
		case warpEqual(got, keep(p, c.minP*p[0])):
			why = fmt.Sprintf("the floor is %g times the first token's probability: it is %g times the most likely token's, max(probs)", c.minP, c.minP)
		}
		t.Fatalf("MinP(%v, %g) = %v, want %v (probabilities 0.2341 0.0317 0.0861 0.0117 0.6364): %s", z, c.minP, got, c.want, why)
	}
	sameWarp(t, "MinP 1", MinP(z, 1), []float64{inf, inf, inf, inf, 3})
	sameWarp(t, "MinP 0 (off)", MinP(z, 0), z)
	// The floor is strict, as in transformers (probs < min_p * top are removed): tokens tied
	// with the top one survive min_p 1, and a floor exactly at a probability keeps it.
	tied := []float64{0, 0, -1}
	if got := MinP(tied, 1); !warpEqual(got, []float64{0, 0, inf}) {
		t.Fatalf("MinP(%v, 1) = %v, want [0 0 -Inf]: the two tokens tied at the top sit exactly at the floor 1 * max(probs), "+
			"and a token exactly at the floor stays (probs[i] < floor goes, as in transformers)", tied, got)
	}
	// NaN logits leave nothing to keep; min-p must not index with Argmax's -1.
	if out := MinP([]float64{math.NaN(), math.NaN()}, 0.1); len(out) != 2 {
		t.Fatalf("MinP on NaN logits: %v", out)
	}
}

// warpEqual says whether two warped logit vectors filter the same positions and agree elsewhere
// within 1e-12 (sameWarp's comparison).
func warpEqual(got, want []float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range want {
		if math.IsInf(want[i], -1) != math.IsInf(got[i], -1) || (!math.IsInf(want[i], -1) && !(math.Abs(got[i]-want[i]) <= 1e-12)) {
			return false
		}
	}
	return true
}

// TestMinP checks min-p on hand-computed cases (see checkMinP).
func TestMinP(t *testing.T) { checkMinP(t) }

// checkWarp runs Warp on hand-computed settings where the order of the filters shows, and when it
// is wrong, fails t naming the wrong pipeline its output comes from (each computed here from the
// filters themselves, which the exercises before it provide).
func checkWarp(t *testing.T) {
	t.Helper()
	checkMinP(t) // Warp calls it: a wrong min-p is named as such, not as a wrong order
	z := []float64{2, 0, 1, -1, 3}
	lp := []float64{math.Log(0.6), math.Log(0.2), math.Log(0.1), math.Log(0.1)}
	for _, c := range []struct {
		z    []float64
		s    Settings
		want []float64
		why  string
	}{
		// Temperature alone divides the logits.
		{z, Settings{Temperature: 0.5, TopP: 1}, []float64{4, 0, 2, -2, 6}, "T = 0.5 divides each logit by 0.5"},
		// Temperature 0 is greedy: Temperature(z, 0) keeps the argmax alone.
		{z, Settings{Temperature: 0, TopP: 1}, []float64{inf, inf, inf, inf, 3}, "T = 0 is greedy: only the argmax stays"},
		// softmax(z/0.5) = [0.1170 0.0021 0.0158 0.0003 0.8646]: top-p 0.9 keeps 2 tokens (top-p
		// before temperature would keep 3).
		{z, Settings{Temperature: 0.5, TopP: 0.9}, []float64{4, inf, inf, inf, 6}, "temperature first, then top-p on z/T"},
		// probabilities 0.6 0.2 0.1 0.1: top-p 0.7 keeps {0.6, 0.2}; then min-p 0.3 on those
		// (0.75, 0.25: floor 0.225) keeps both. min-p first would keep {0.6, 0.2}, and top-p on
		// them (0.75 >= 0.7) only 0.6.
		{lp, Settings{Temperature: 1, TopP: 0.7, MinP: 0.3}, []float64{lp[0], lp[1], inf, inf}, "top-p, then min-p on top-p's output"},
		// top-k 3 keeps {3, 2, 1}; top-p 0.9 of those (0.6652 0.2447 0.0900) keeps {3, 2}.
		{z, Settings{Temperature: 1, TopK: 3, TopP: 0.9}, []float64{2, inf, inf, inf, 3}, "top-k, then top-p on top-k's output"},
	} {
		got := Warp(c.z, c.s)
		if warpEqual(got, c.want) {
			continue
		}
		// The wrong pipelines, from the filters themselves.
		s := c.s
		chain := func(in []float64, steps ...func([]float64) []float64) []float64 {
			out := slices.Clone(in)
			for _, f := range steps {
				out = f(out)
			}
			return out
		}
		temp := func(v []float64) []float64 {
			if s.Temperature == 1 {
				return v
			}
			return Temperature(v, s.Temperature)
		}
		topK := func(v []float64) []float64 { return TopK(v, s.TopK) }
		topP := func(v []float64) []float64 { return TopP(v, s.TopP) }
		minP := func(v []float64) []float64 { return MinP(v, s.MinP) }
		probsPow := func(v []float64) []float64 {
			if s.Temperature == 1 {
				return v
			}
			p := Softmax(v)
			for i := range p {
				p[i] = math.Pow(p[i], 1/s.Temperature)
			}
			return p
		}
		var fromInput []float64 // each filter on the input: only the last one that is on counts
		switch {
		case s.MinP > 0:
			fromInput = MinP(c.z, s.MinP)
		case s.TopP < 1:
			fromInput = TopP(c.z, s.TopP)
		case s.TopK > 0:
			fromInput = TopK(c.z, s.TopK)
		}
		why := "want temperature (z/T), then top-k, top-p, min-p, each on the previous one's output"
		tempOn, both := s.Temperature != 1, s.TopP < 1 && s.MinP > 0
		switch pw := chain(c.z, probsPow, topK, topP, minP); {
		case warpEqual(got, chain(c.z, temp, topK, topP, minP)):
			why = "the order is right, but a filter Warp calls gives other values than the ones this test expects: run the filters' own tests (TestTiesLikeTransformers, TestMinP)"
		case s.Temperature == 0 && warpEqual(got, chain(c.z, topK, topP, minP)):
			why = "temperature 0 was skipped: T = 0 means greedy, and Temperature(z, 0) keeps only the argmax; skip the filter only at its neutral T = 1"
		case tempOn && warpEqual(got, pw):
			sum := 0.0
			for _, v := range pw {
				if !math.IsInf(v, -1) {
					sum += v
				}
			}
			why = fmt.Sprintf("these are probabilities raised to 1/T (they sum to %.4g, not renormalised), used as logits: "+
				"temperature divides the logits, z/T; the softmax at the end renormalises", sum)
		case tempOn && warpEqual(got, chain(c.z, topK, topP, minP, temp)):
			why = "that is temperature applied after the filters: temperature comes first, so that top-p and min-p see the sharpened distribution"
		case both && warpEqual(got, chain(c.z, temp, topK, minP, topP)):
			why = "that is min-p before top-p: transformers applies top-p, then min-p comes after top-p, on its output"
		case fromInput != nil && warpEqual(got, fromInput):
			why = "that is the last filter applied to the input logits: each filter takes the previous one's output"
		}
		t.Fatalf("Warp(%.4g, %+v) = %.4g, want %.4g (%s):\n%s", c.z, c.s, got, c.want, c.why, why)
	}
}

// TestWarpPipeline checks the order and the plumbing of Warp on hand-computed cases (see
// checkWarp).
func TestWarpPipeline(t *testing.T) { checkWarp(t) }

// TestWarpOrder shows that order matters: top-p after temperature 0.5 sees a sharper distribution
// than top-p alone, and Warp applies temperature first, as transformers does.
func TestWarpOrder(t *testing.T) {
	z := []float64{2, 0, 1, -1, 3}
	s := Settings{Temperature: 0.5, TopP: 0.9}
	want := TopP(Temperature(z, 0.5), 0.9)
	sameWarp(t, "Warp", Warp(z, s), want)
	// softmax(z/0.5) = [0.1170, 0.0021, 0.0158, 0.0003, 0.8646]: 0.8646 < 0.9, so 2 tokens.
	sameWarp(t, "Warp T=0.5 p=0.9", want, []float64{4, inf, inf, inf, 6})
	// the other order would keep three.
	if n := countKept(Temperature(TopP(z, 0.9), 0.5)); n != 3 {
		t.Fatalf("top-p before temperature kept %d tokens, want 3", n)
	}
}

func countKept(z []float64) int {
	n := 0
	for _, v := range z {
		if !math.IsInf(v, -1) {
			n++
		}
	}
	return n
}

func TestSoftmax(t *testing.T) {
	hint := func(p []float64) string {
		// exp(max - z_i) instead of exp(z_i - max): the larger logit gets the smaller probability,
		// and a -Inf logit gives exp(+Inf).
		if q := Softmax([]float64{0, math.Log(3)}); math.Abs(q[0]-0.75) < 1e-9 && math.Abs(q[1]-0.25) < 1e-9 {
			return "Softmax([0 ln3]) = [0.75 0.25]: the larger logit got the smaller probability; that is exp(max - z_i), softmax(-z):\n" +
				"take exp(z_i - max)"
		}
		sum := 0.0
		for _, v := range p {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return "exp(1000) overflows: subtract the maximum logit from every logit first"
			}
			sum += v
		}
		float32s := true
		for _, v := range p {
			float32s = float32s && float64(float32(v)) == v
		}
		switch {
		case float32s && math.Abs(sum-1) < 1e-6:
			return "every probability is a float32 number, off by float32's rounding: compute in float64 (the chapter's\n" +
				"tests hold the softmax to 1e-15; transformers' float32 is what the 1e-5 golden tolerance allows for)"
		case math.Abs(sum-1) > 1e-12:
			return fmt.Sprintf("the probabilities sum to %.17g: divide each exp(z_i - max) by their sum", sum)
		}
		return "p_i = exp(z_i - max) / Σ_j exp(z_j - max)"
	}
	p := Softmax([]float64{1000, 1000, inf})
	if p[0] != 0.5 || p[1] != 0.5 || p[2] != 0 {
		t.Fatalf("Softmax([1000 1000 -Inf]) = %v, want [0.5 0.5 0]: %s", p, hint(p))
	}
	p = Softmax([]float64{0, math.Log(3)})
	if math.Abs(p[0]-0.25) > 1e-15 || math.Abs(p[1]-0.75) > 1e-15 {
		t.Fatalf("Softmax([0 ln3]):\n got  %.17g\n want [0.25 0.75]\n%s", p, hint(p))
	}
	// e^0, e^1, e^2 over their sum: values no float32 holds exactly, so a softmax rounded to
	// float32 differs by about 1e-8; 17 digits show it.
	p = Softmax([]float64{0, 1, 2})
	e := math.E
	want := []float64{1 / (1 + e + e*e), e / (1 + e + e*e), e * e / (1 + e + e*e)}
	for i := range want {
		if math.Abs(p[i]-want[i]) > 1e-15 {
			t.Fatalf("Softmax([0 1 2]):\n got  %.17g\n want %.17g\n%s", p, want, hint(p))
		}
	}
}

// Properties on random logits: warpers never change a kept value (except temperature), never
// drop the argmax, never touch their input, and the distribution sums to 1.
func TestWarpProperties(t *testing.T) {
	logits, _ := loadGoldenLogits(t)
	for i := range logits.Shape[0] {
		z := row(logits, i)
		orig := slices.Clone(z)
		top := Argmax(z)
		for _, s := range []Settings{
			{Temperature: 1, TopK: 5, TopP: 1}, {Temperature: 1, TopP: 0.3}, {Temperature: 1, TopP: 1, MinP: 0.5},
			QwenThinking(0), QwenNonThinking(0), Greedy(),
		} {
			w := Warp(z, s)
			if math.IsInf(w[top], -1) {
				t.Fatalf("row %d %+v: the argmax was filtered", i, s)
			}
			p := Distribution(z, s)
			sum := 0.0
			for j := range p {
				sum += p[j]
				if (p[j] == 0) != math.IsInf(w[j], -1) {
					t.Fatalf("row %d %+v token %d: p=%v but warped logit %v", i, s, j, p[j], w[j])
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("row %d %+v: sum %v", i, s, sum)
			}
			// top-k, top-p and min-p only filter: survivors keep their (temperature-scaled) value.
			if s.Temperature == 1 {
				for j := range w {
					if !math.IsInf(w[j], -1) && w[j] != z[j] {
						t.Fatalf("row %d %+v token %d: kept value changed %v -> %v", i, s, j, z[j], w[j])
					}
				}
			}
		}
		if !slices.Equal(z, orig) {
			t.Fatalf("row %d: Warp modified its input", i)
		}
		if g := Distribution(z, Greedy()); g[top] != 1 {
			t.Fatalf("row %d: greedy distribution %v at the argmax, want 1: Settings Greedy() has temperature 0, and Temperature(z, 0) keeps only the argmax", i, g[top])
		}
	}
}

// Top-p keeps the smallest prefix of the ranking whose mass reaches p: the kept mass is >= p, and
// dropping the least likely kept token would fall below p.
func TestTopPNucleusIsMinimal(t *testing.T) {
	logits, _ := loadGoldenLogits(t)
	for i := range logits.Shape[0] {
		z := row(logits, i)
		probs := Softmax(z)
		for _, p := range []float64{0.1, 0.5, 0.8, 0.95, 0.999} {
			w := TopP(z, p)
			kept, smallest := 0.0, 1.0
			for j := range w {
				if !math.IsInf(w[j], -1) {
					kept += probs[j]
					smallest = min(smallest, probs[j])
				}
			}
			if kept < p-1e-12 {
				t.Fatalf("row %d p=%v: the kept tokens hold %.4g < p: the token whose probability makes the mass reach p stays", i, p, kept)
			}
			if kept-smallest >= p+1e-12 {
				t.Fatalf("row %d p=%v: the kept tokens hold %.4g, %.4g without the least likely one: keep the SMALLEST set reaching p", i, p, kept, kept-smallest)
			}
		}
	}
}

// TestTopKAgainstSort compares TopK with the obvious definition (sort, take the k-th value, keep
// everything >= it) on logits with many ties, for every k.
func TestTopKAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 300)
	for i := range z {
		z[i] = float64(rng.IntN(40)) / 4 // about 7 copies of each value
	}
	sorted := slices.Clone(z)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	for k := 1; k <= len(z); k++ {
		got := TopK(z, k)
		for i, v := range z {
			if want := v >= sorted[k-1]; want == math.IsInf(got[i], -1) {
				t.Fatalf("k=%d token %d (logit %v, k-th value %v): got %v", k, i, v, sorted[k-1], got[i])
			}
		}
	}
}
