package sampling

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Argmax returns the index of the largest value, the lowest index on ties (like torch.argmax).
// NaN values are never chosen. It returns -1 for an empty slice or one holding only NaN.
func Argmax(z []float64) int {
	best := -1
	for i, v := range z {
		if math.IsNaN(v) {
			continue
		}
		if best < 0 || v > z[best] {
			best = i
		}
	}
	return best
}

// Draw picks index i with probability probs[i], given u uniform in [0, 1): it walks the cumulative
// sum c_i = probs[0] + ... + probs[i] and returns the first i with u < c_i (inverse transform
// sampling). Indices with probability 0 are never returned. If rounding leaves the total slightly
// below 1 and u lands past it, the last index with a positive probability is returned. probs
// must be non-negative with at least one positive entry; otherwise Draw returns -1.
func Draw(probs []float64, u float64) int {
	// exercise: sampling.Draw — the first index whose cumulative sum exceeds u (u < c_i), skipping probability 0
	// tests: TestDraw TestChiSquare
	// difficulty: medium, 15 min
	last := -1
	cum := 0.0
	for i, p := range probs {
		if !(p > 0) {
			continue
		}
		last = i
		cum += p
		if u < cum {
			return i
		}
	}
	return last
	// hint: Lay the probabilities end to end on [0, 1): token i owns the stretch from c_{i-1} to
	// c_i. u falls in exactly one stretch; return its token. A token of probability 0 owns an empty
	// stretch and can never be returned.
	// hint: c_i = probs[0] + ... + probs[i]; return the first i with u < c_i (strict: u = c_i belongs
	// to the next token). Past the end (rounding), return the last i with probs[i] > 0; none: -1.
	// hint: The shape:
	//	last, cum := -1, 0.0
	//	for i, p := range probs {
	//		if !(p > 0) { continue }
	//		last = i; cum += p
	//		if ... { return i }
	//	}
	//	return last
	// mistake: u <= c_i instead of u < c_i, so a u exactly on a boundary picks the token before it
	// says: u = c_i belongs to the next token
	//	- if u < cum {
	//	+ if u <= cum {
	// mistake: tokens of probability 0 not skipped: one may be returned when u lands past the total
	// says: the last token of positive probability
	//	- if !(p > 0) {
	//	- continue
	//	- }
	// mistake: u compared with the sum before p[i] is added, which shifts every pick one token on
	// says: compared before probs[i] was added
	//	- cum += p
	//	- if u < cum {
	//	- return i
	//	- }
	//	+ if u < cum {
	//	+ 	return i
	//	+ }
	//	+ cum += p
	// end exercise
}

// A Sampler picks tokens from logits according to its Settings. Sampling uses its own random
// generator (math/rand/v2's PCG seeded from Settings.Seed), so the same seed and the same logits
// give the same tokens on every machine and every run; there is no global random state.
// A Sampler is not safe for concurrent use.
type Sampler struct {
	settings Settings
	rng      *rand.Rand
}

// pcgStream is PCG's second seed word (its "increment" selector); Settings.Seed is the first.
const pcgStream = 0x9e3779b97f4a7c15

// NewSampler validates s and returns a Sampler whose generator is seeded from s.Seed.
func NewSampler(s Settings) (*Sampler, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("sampling: %w", err)
	}
	return &Sampler{settings: s, rng: rand.New(rand.NewPCG(s.Seed, pcgStream))}, nil
}

// Settings returns the sampler's settings.
func (sm *Sampler) Settings() Settings { return sm.settings }

// Sample returns the next token id for a logits vector of length vocab. Greedy settings
// (Temperature 0) return Argmax(logits) without using the generator; otherwise it draws one
// uniform number u in [0, 1) and returns Draw(Distribution(logits, settings), u).
// Logits holding NaN or +Inf, or no finite value at all (empty, all -Inf), are an error.
func (sm *Sampler) Sample(logits []float64) (int, error) {
	if err := checkLogits(logits); err != nil {
		return 0, err
	}
	if sm.settings.IsGreedy() {
		return Argmax(logits), nil
	}
	id := Draw(Distribution(logits, sm.settings), sm.rng.Float64())
	if id < 0 {
		return 0, fmt.Errorf("sampling: the filtered distribution over %d logits has no positive probability", len(logits))
	}
	return id, nil
}

// checkLogits accepts logits with at least one finite value and no NaN or +Inf (either would make
// softmax NaN: they come from a broken model, not from a setting).
func checkLogits(logits []float64) error {
	finite := false
	for i, v := range logits {
		if math.IsNaN(v) || math.IsInf(v, 1) {
			return fmt.Errorf("sampling: logit %d of %d is %v", i, len(logits), v)
		}
		if !math.IsInf(v, -1) {
			finite = true
		}
	}
	if !finite {
		return fmt.Errorf("sampling: none of the %d logits is a finite number", len(logits))
	}
	return nil
}
