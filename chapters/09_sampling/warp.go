package sampling

import (
	"math"
	"slices"
)

// The warpers below take a logits vector (one score per vocabulary entry, length vocab) and return
// a new vector of the same length; they never modify their input. A filtered token gets -Inf,
// transformers' filter_value, so that softmax gives it probability exactly 0.

// Softmax returns p[i] = exp(z[i] - m) / sum_j exp(z[j] - m), with m = max(z).
//
// Subtracting the maximum changes nothing mathematically (it cancels between numerator and
// denominator) but keeps exp from overflowing: the largest term is exp(0) = 1. Entries at -Inf
// get probability 0. z must hold at least one finite value; otherwise every p[i] is NaN.
func Softmax(z []float64) []float64 {
	p := make([]float64, len(z))
	// exercise: sampling.Softmax — subtract the max, exponentiate, divide by the sum
	// tests: TestSoftmax ExampleSoftmax
	// difficulty: easy, 10 min
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	sum := 0.0
	for i, v := range z {
		p[i] = math.Exp(v - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	// hint: exp(1000) overflows, and logits can be that large. Subtracting the same number from
	// every logit changes nothing in the result, so subtract the largest.
	// hint: m = max_i z_i; p_i = exp(z_i - m) / Σ_j exp(z_j - m); exp(-Inf) is 0, so filtered tokens
	// get 0 with no special case.
	// hint: Three passes: the maximum; exp(z_i - m) into p with a running sum; divide by the sum.
	// mistake: exp of the raw logits, without subtracting the maximum
	// says: subtract the maximum logit
	//	- p[i] = math.Exp(v - m)
	//	+ p[i] = math.Exp(v)
	// mistake: the exponentials never divided by their sum
	// says: divide each exp(z_i - max) by their sum
	//	- for i := range p {
	//	- p[i] /= sum
	//	- }
	// mistake: computed in float32, as transformers' softmax does
	// says: compute in float64
	//	- p[i] = math.Exp(v - m)
	//	- sum += p[i]
	//	+ p[i] = float64(float32(math.Exp(v - m)))
	//	+ sum = float64(float32(sum + p[i]))
	//
	//	- p[i] /= sum
	//	+ p[i] = float64(float32(p[i]) / float32(sum))
	// end exercise
	return p
}

// Temperature returns z / t (transformers' TemperatureLogitsWarper).
//
// softmax(z/t) is the model's distribution raised to the power 1/t and renormalised: t < 1
// sharpens it towards the argmax, t > 1 flattens it towards uniform. As t -> 0 all the mass goes
// to the largest logit, so t = 0 is taken to mean greedy: Temperature(z, 0) keeps only the first
// largest logit (unchanged) and sets every other entry to -Inf. t must not be negative.
func Temperature(z []float64, t float64) []float64 {
	out := make([]float64, len(z))
	if t == 0 {
		for i := range out {
			out[i] = math.Inf(-1)
		}
		if len(z) > 0 {
			i := Argmax(z)
			out[i] = z[i]
		}
		return out
	}
	for i, v := range z {
		out[i] = v / t
	}
	return out
}

// TopK keeps the k largest logits and sets the others to -Inf (transformers' TopKLogitsWarper).
//
// Like transformers, it finds the k-th largest value v_k (torch.topk) and removes every logit
// strictly smaller than v_k: logits tied with v_k all stay, so more than k tokens can survive.
// k <= 0 or k >= len(z) keeps everything. It costs one pass over z (see kthLargest), not a sort
// of the whole vocabulary.
func TopK(z []float64, k int) []float64 {
	out := slices.Clone(z)
	if k <= 0 || k >= len(z) {
		return out
	}
	kth := kthLargest(z, k)
	for i, v := range out {
		if v < kth {
			out[i] = math.Inf(-1)
		}
	}
	return out
}

// TopP is nucleus filtering (transformers' TopPLogitsWarper): keep the smallest set of most likely
// tokens whose probabilities add up to at least p, and set the others to -Inf.
//
// It follows transformers step by step: sort the logits ASCENDING, take the cumulative sum of
// their softmax probabilities, remove every token whose cumulative probability is <= 1-p (the
// unlikely tail whose mass is at most 1-p), and always keep the last, most likely token.
// Consequences: a token is kept exactly when the mass of the tokens ranked above it is < p; and
// when the cut falls inside a group of tied logits, the tokens with the LOWER ids are removed
// first, because this sort is stable (tied logits keep their index order). transformers' torch.sort
// is not stable: it agrees on short rows, as TestTiesLikeTransformers's, but on a whole vocabulary
// which tied tokens it removes is not defined. p >= 1 keeps everything (transformers skips the
// warper).
func TopP(z []float64, p float64) []float64 {
	out := slices.Clone(z)
	if p >= 1 || len(z) == 0 {
		return out
	}
	// exercise: sampling.TopP — sort ascending, cumulate the softmax, drop mass <= 1-p, keep the top
	// tests: TestFiltersHandComputed TestTiesLikeTransformers TestTopPNucleusIsMinimal ExampleTopP
	// difficulty: hard, 30 min
	// Tokens already at -Inf (filtered by temperature 0 or top-k) have probability 0: they would
	// come first in the ascending order and be removed anyway, so only the others are sorted.
	var order []int // token ids from least to most likely
	for i, v := range z {
		if !math.IsInf(v, -1) {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return out
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpDesc(z[a], z[b]) })
	sortedLogits := make([]float64, len(order))
	for r, id := range order {
		sortedLogits[r] = z[id]
	}
	probs := Softmax(sortedLogits)
	cum := 0.0
	for r, id := range order[:len(order)-1] { // the most likely token is always kept
		cum += probs[r]
		if cum <= 1-p {
			out[id] = math.Inf(-1)
		}
	}
	// hint: Follow transformers literally: rank the tokens from least to most likely, walk up from
	// the unlikely end adding probabilities, and drop tokens while the tail's mass is still at most
	// 1-p. The most likely token always stays; ties keep their index order (a stable sort).
	// hint: order = ids sorted by logit ascending (stable; -Inf ones can be left out); probs =
	// Softmax of the logits in that order; cum_r = probs_0 + ... + probs_r; drop order[r] while
	// cum_r <= 1-p, for r < last.
	// hint: The shape:
	//	slices.SortStableFunc(order, func(a, b int) int { return -cmpDesc(z[a], z[b]) })
	//	probs := Softmax(logits in that order)
	//	for r, id := range order[:len(order)-1] { cum += probs[r]; if ... { out[id] = math.Inf(-1) } }
	// mistake: mass < 1-p dropped instead of <= 1-p: a tail of exactly 1-p stays
	// says: <= 1-p drops the exact boundary too
	//	- if cum <= 1-p {
	//	+ if cum < 1-p {
	// mistake: sorted descending, so the cumulative sum runs from the most likely token and drops it
	// says: ascending stable order
	//	- slices.SortStableFunc(order, func(a, b int) int { return -cmpDesc(z[a], z[b]) })
	//	+ slices.SortStableFunc(order, func(a, b int) int { return cmpDesc(z[a], z[b]) })
	// mistake: from the top down, the token whose probability crosses p dropped instead of kept
	// says: drop while the cumulative sum is <= 1-p
	//	- for r, id := range order[:len(order)-1] { // the most likely token is always kept
	//	- cum += probs[r]
	//	- if cum <= 1-p {
	//	- out[id] = math.Inf(-1)
	//	- }
	//	- }
	//	+ for r := len(order) - 2; r >= 0; r-- {
	//	+ 	cum += probs[r+1]
	//	+ 	if cum+probs[r] > p {
	//	+ 		out[order[r]] = math.Inf(-1)
	//	+ 	}
	//	+ }
	// end exercise
	return out
}

// MinP removes tokens much less likely than the best one (transformers' MinPLogitsWarper):
// with probs = softmax(z), every token with probs[i] < minP * max(probs) gets -Inf.
//
// The threshold scales with the model's confidence: when one token dominates, the floor is high
// and few alternatives survive; when the distribution is flat, many do. The most likely token is
// never removed (minP <= 1). minP <= 0 keeps everything.
func MinP(z []float64, minP float64) []float64 {
	out := slices.Clone(z)
	if minP <= 0 || len(z) == 0 {
		return out
	}
	probs := Softmax(z)
	// exercise: sampling.MinP — remove every token whose probability is below min_p times the top token's
	// tests: TestMinP
	// difficulty: easy, 10 min
	top := slices.Max(probs)
	for i, pr := range probs {
		if pr < minP*top {
			out[i] = math.Inf(-1)
		}
	}
	// hint: min-p's floor moves with the model's confidence: it is a fraction of the most likely
	// token's probability, not a fixed probability. probs holds the probabilities already.
	// hint: floor = minP * max(probs); token i goes (gets -Inf) when probs[i] < floor, strictly: a
	// token exactly at the floor stays.
	// hint: The shape:
	//	top := slices.Max(probs)
	//	for i, pr := range probs {
	//		if ... { out[i] = math.Inf(-1) }
	//	}
	// mistake: the threshold taken as an absolute probability, not relative to the top token
	// says: a threshold taken as absolute
	//	- if pr < minP*top {
	//	+ if _ = top; pr < minP {
	// mistake: the floor relative to the first token's probability, not the most likely one's
	// says: the first token's probability
	//	- top := slices.Max(probs)
	//	+ top := probs[0]
	// mistake: a token exactly at the floor removed too (<=)
	// says: a token exactly at the floor stays
	//	- if pr < minP*top {
	//	+ if pr <= minP*top {
	// end exercise
	best := Argmax(probs) // keep at least one token (min_tokens_to_keep = 1)
	if best < 0 {         // every probability is NaN (z held NaN or +Inf): nothing to keep
		return out
	}
	out[best] = z[best]
	return out
}

// Warp applies s's filters in the order of transformers' generate(): temperature, top-k, top-p,
// min-p. Each filter sees the output of the previous one: top-p's probabilities are computed
// after temperature and top-k, and min-p's after all three. A filter at its neutral value
// (T=1, TopK=0, TopP=1, MinP=0) is skipped. Temperature 0 keeps only the argmax (see Temperature).
// s should be valid (Validate); z has length vocab, and so has the result.
func Warp(z []float64, s Settings) []float64 {
	out := slices.Clone(z)
	// exercise: sampling.Warp — temperature on the logits first, then top-k, top-p, min-p, each on the one before's output
	// tests: TestWarpPipeline TestWarpOrder TestWarpProperties TestWarpGolden TestDistributionGolden ExampleWarp
	// difficulty: medium, 15 min
	if s.Temperature != 1 {
		out = Temperature(out, s.Temperature)
	}
	if s.TopK > 0 {
		out = TopK(out, s.TopK)
	}
	if s.TopP < 1 {
		out = TopP(out, s.TopP)
	}
	if s.MinP > 0 {
		out = MinP(out, s.MinP)
	}
	// hint: The filters are given (Temperature, TopK, TopP, MinP): this exercise is their order and
	// their plumbing. Each works on logits and hands logits on; the one softmax comes at the very
	// end (Distribution). A filter at its neutral value is skipped.
	// hint: transformers' order: temperature (z/T), top-k, top-p, min-p; each one's input is the
	// previous one's output, so top-p and min-p see the distribution after temperature.
	// hint: The shape, four times:
	//	if s.Temperature != 1 { out = Temperature(out, s.Temperature) }
	//	if s.TopK > 0 { out = ... }
	// mistake: temperature applied to the probabilities, p^(1/T), which are not renormalised and are then used as logits
	// says: temperature divides the logits
	//	- out = Temperature(out, s.Temperature)
	//	+ p := Softmax(out)
	//	+ for i := range p {
	//	+ 	p[i] = math.Pow(p[i], 1/s.Temperature)
	//	+ }
	//	+ out = p
	// mistake: temperature applied last, after the filters chose their tokens
	// says: temperature comes first
	//	- if s.Temperature != 1 {
	//	- out = Temperature(out, s.Temperature)
	//	- }
	//
	//	- if s.MinP > 0 {
	//	- out = MinP(out, s.MinP)
	//	- }
	//	+ if s.MinP > 0 {
	//	+ 	out = MinP(out, s.MinP)
	//	+ }
	//	+ if s.Temperature != 1 {
	//	+ 	out = Temperature(out, s.Temperature)
	//	+ }
	// mistake: min-p before top-p
	// says: min-p comes after top-p
	//	- if s.TopP < 1 {
	//	- out = TopP(out, s.TopP)
	//	- }
	//	- if s.MinP > 0 {
	//	- out = MinP(out, s.MinP)
	//	- }
	//	+ if s.MinP > 0 {
	//	+ 	out = MinP(out, s.MinP)
	//	+ }
	//	+ if s.TopP < 1 {
	//	+ 	out = TopP(out, s.TopP)
	//	+ }
	// mistake: every filter applied to the input logits, so each one undoes the one before
	// says: each filter takes the previous one's output
	//	- out = TopK(out, s.TopK)
	//	+ out = TopK(z, s.TopK)
	//
	//	- out = TopP(out, s.TopP)
	//	+ out = TopP(z, s.TopP)
	//
	//	- out = MinP(out, s.MinP)
	//	+ out = MinP(z, s.MinP)
	// end exercise
	return out
}

// Distribution returns the probabilities the sampler draws from: softmax(Warp(z, s)). Filtered
// tokens have probability exactly 0; the rest sum to 1.
func Distribution(z []float64, s Settings) []float64 {
	return Softmax(Warp(z, s))
}

// cmpDesc orders larger values first (NaN last), for sorting logits from most to least likely.
func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	case a == b:
		return 0
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	}
	return -1
}

// kthLargest returns the k-th largest value of z (1 <= k <= len(z)), counting repeated values
// separately as torch.topk does; NaN values are skipped (-Inf if fewer than k remain). It keeps the k largest values seen so far in a sorted buffer,
// so one pass over a 151,936-entry vocabulary replaces a full sort when k is small.
func kthLargest(z []float64, k int) float64 {
	best := make([]float64, 0, k) // descending
	for _, v := range z {
		if math.IsNaN(v) || (len(best) == k && v <= best[k-1]) {
			continue
		}
		// insert v after the values >= v, so that ties keep their count
		i, _ := slices.BinarySearchFunc(best, v, func(e, t float64) int {
			if e >= t {
				return -1
			}
			return 1
		})
		if len(best) < k {
			best = append(best, 0)
		}
		copy(best[i+1:], best[i:len(best)-1])
		best[i] = v
	}
	if len(best) < k {
		return math.Inf(-1)
	}
	return best[k-1]
}
