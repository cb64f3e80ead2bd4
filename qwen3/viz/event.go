package viz

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
)

// DefaultTop is how many candidates an Event lists when NewEvent is given top <= 0: the page's
// bar chart.
const DefaultTop = 20

// Event is one decode step as the page draws it and `qwen3 run -trace` writes it, one JSON
// object a line: the settings, the drawn token, the nucleus (the tokens the warpers kept) and the
// tail (the ones they cut), the entropies, the step's time, and the most likely candidates with
// their probabilities before and after each warper.
//
// Every probability comes from chapter 09's functions on the engine's own logits: P is
// sampling.Softmax of the logits, PT of sampling.Temperature's output, PK of sampling.Warp with
// temperature and top-k only (the distribution top-p measures its mass on), and Q is the
// distribution the engine drew the token from (qwen3.Step.Probs), so that the page never shows a
// distribution the engine did not sample from. Probabilities are fractions; entropies are in
// bits.
type Event struct {
	Seq      int      `json:"seq"`      // the sequence, in a batch; 0 otherwise
	Step     int      `json:"step"`     // the token's index in the reply, 0 for the first
	Position int      `json:"position"` // its position in the context (tokens before it)
	ID       int      `json:"id"`       // the token drawn
	Token    string   `json:"token"`    // its text (bytes that are not UTF-8 written \xNN)
	Stop     bool     `json:"stop"`     // a stop token: it ends the reply and is not part of it
	TimeMS   float64  `json:"time_ms"`  // the step's time: forward pass and pick (qwen3.Step.Time)
	Settings Settings `json:"settings"` // the sampling settings it was drawn with
	Vocab    int      `json:"vocab"`    // the logits' length
	Rank     int      `json:"rank"`     // the drawn token's rank by logit, 1 for the most likely

	Kept      int     `json:"kept"`        // the nucleus: tokens of probability > 0 after every warper
	KeptMass  float64 `json:"kept_mass"`   // their share of the model's probability P
	KeptMassT float64 `json:"kept_mass_t"` // their share after temperature, PT
	Tail      int     `json:"tail"`        // tokens cut, Vocab - Kept
	TailMass  float64 `json:"tail_mass"`   // the model's probability of the cut tokens (summed, not 1 - KeptMass)
	TailMassT float64 `json:"tail_mass_t"` // the same after temperature
	CutTopK   int     `json:"cut_top_k"`   // tokens removed by top-k (with temperature 0: by greedy, all but one)
	CutTopP   int     `json:"cut_top_p"`   // by top-p, among those top-k kept
	CutMinP   int     `json:"cut_min_p"`   // by min-p, among those top-p kept

	Entropy     float64 `json:"entropy"`      // of the model's distribution P, in bits
	EntropyT    float64 `json:"entropy_t"`    // of PT
	EntropyKept float64 `json:"entropy_kept"` // of Q, the distribution drawn from

	Candidates []Candidate `json:"candidates"` // the most likely tokens by logit, and the drawn one if it is not among them
	Rest       Rest        `json:"rest"`       // the kept tokens not in Candidates
}

// Settings are chapter 09's sampling.Settings with JSON names.
type Settings struct {
	Temperature float64 `json:"temperature"`
	TopK        int     `json:"top_k"`
	TopP        float64 `json:"top_p"`
	MinP        float64 `json:"min_p"`
	Seed        uint64  `json:"seed"`
}

// SettingsOf and Sampling convert between chapter 09's settings and their JSON form.
func SettingsOf(s sampling.Settings) Settings {
	return Settings{Temperature: s.Temperature, TopK: s.TopK, TopP: s.TopP, MinP: s.MinP, Seed: s.Seed}
}

// Sampling returns s as chapter 09's settings.
func (s Settings) Sampling() sampling.Settings {
	return sampling.Settings{Temperature: s.Temperature, TopK: s.TopK, TopP: s.TopP, MinP: s.MinP, Seed: s.Seed}
}

// Candidate is one token of an Event's chart.
type Candidate struct {
	ID    int     `json:"id"`
	Token string  `json:"token"`
	Rank  int     `json:"rank"`  // by logit, 1 for the most likely
	Logit float64 `json:"logit"` // the model's logit (float32, widened)
	P     float64 `json:"p"`     // the model's probability: softmax of the logits
	PT    float64 `json:"p_t"`   // after temperature: softmax(z/T)
	PK    float64 `json:"p_k"`   // after temperature and top-k: what top-p sums (0 when top-k cut it)
	Q     float64 `json:"q"`     // the probability the token was drawn with: 0 when cut, the kept ones sum to 1
	Cut   string  `json:"cut"`   // "" kept, or the warper that removed it: "top-k", "top-p", "min-p", "greedy"
	Drawn bool    `json:"drawn"` // the token drawn
}

// Rest sums the kept tokens that Candidates does not list.
type Rest struct {
	Count int     `json:"count"`
	Q     float64 `json:"q"` // their probability in the distribution drawn from
	P     float64 `json:"p"` // their probability under the model
}

// The names of the warpers in Candidate.Cut.
const (
	CutTopK   = "top-k"
	CutTopP   = "top-p"
	CutMinP   = "min-p"
	CutGreedy = "greedy" // temperature 0 keeps the argmax alone
)

// cutBy says which warper cut a token (kept: none), one byte a token of the vocabulary.
type cutBy uint8

const (
	kept cutBy = iota
	byTopK
	byTopP
	byMinP
	byGreedy
)

// String is the warper's name in Candidate.Cut.
func (c cutBy) String() string {
	return [...]string{"", CutTopK, CutTopP, CutMinP, CutGreedy}[c]
}

// NewEvent summarises a decode step of the engine for the page and the trace: the top
// candidates by logit (top of them, DefaultTop when top <= 0) and the drawn token, with chapter
// 09's probabilities (see Event). tok gives the tokens' text. It reads s's slices during the
// call only. The error reports a step that contradicts itself (a drawn token of probability 0,
// Probs that do not match Candidates, a warper that kept a token an earlier one cut): the
// event is not drawn rather than drawn wrong.
//
// Cost: a float64 copy of the logits and two softmaxes over the whole vocabulary, and chapter 09's
// Warp twice over the sampler's input (a sort of the whole vocabulary each when there is no
// top-k): a few milliseconds for Qwen3's 151,936 tokens.
func NewEvent(s qwen3.Step, tok *tokenizer.Tokenizer, top int) (Event, error) {
	if top <= 0 {
		top = DefaultTop
	}
	v := len(s.Logits)
	if v == 0 || s.ID < 0 || s.ID >= v {
		return Event{}, fmt.Errorf("viz: step %d: drawn id %d of %d logits", s.Index, s.ID, v)
	}
	set := s.Settings
	e := Event{
		Seq: s.Seq, Step: s.Index, Position: s.Position, ID: s.ID, Token: TokenText(tok, s.ID), Stop: s.Stop,
		TimeMS: float64(s.Time.Nanoseconds()) / 1e6, Settings: SettingsOf(set), Vocab: v,
	}
	z := make([]float64, v)
	for i, x := range s.Logits {
		z[i] = float64(x)
	}
	p := sampling.Softmax(z)
	pt, zt := p, z
	if set.Temperature != 1 {
		zt = sampling.Temperature(z, set.Temperature)
		pt = sampling.Softmax(zt)
	}

	// q: the distribution the token was drawn from, over the whole vocabulary.
	q := make([]float64, v)
	switch {
	case s.Candidates == nil && len(s.Probs) == v:
		copy(q, s.Probs)
	case s.Candidates != nil && len(s.Candidates) == len(s.Probs):
		for k, id := range s.Candidates {
			if id < 0 || id >= v {
				return Event{}, fmt.Errorf("viz: step %d: candidate id %d of %d logits", s.Index, id, v)
			}
			q[id] = s.Probs[k]
		}
	default:
		return Event{}, fmt.Errorf("viz: step %d: %d candidates with %d probabilities over %d logits", s.Index, len(s.Candidates), len(s.Probs), v)
	}
	if !(q[s.ID] > 0) {
		return Event{}, fmt.Errorf("viz: step %d: the drawn token %d has probability %g in the distribution drawn from", s.Index, s.ID, q[s.ID])
	}

	// Which warper cut each token: chapter 09's Warp with the warpers up to top-k, then up to
	// top-p, on the sampler's own input (top-k's survivors, or the whole vocabulary); what min-p
	// cut is what the engine's distribution gives 0 among the rest.
	cut := make([]cutBy, v) // kept, or the warper that cut the token
	pk := make([]float64, v)
	if set.IsGreedy() {
		for i := range cut {
			cut[i] = byGreedy
		}
		cut[s.ID] = kept
		pk[s.ID] = 1
		e.CutTopK = v - 1
	} else {
		input, ids := z, []int(nil)
		if s.Candidates != nil {
			ids = s.Candidates
			input = make([]float64, len(ids))
			for k, id := range ids {
				input[k] = z[id]
			}
			for i := range cut {
				cut[i] = byTopK // the engine handed the sampler only top-k's survivors
			}
		}
		upToK, upToP := set, set
		upToK.TopP, upToK.MinP = 1, 0
		upToP.MinP = 0
		a := sampling.Warp(input, upToK)
		b := a
		if set.TopP < 1 {
			b = sampling.Warp(input, upToP)
		}
		pa := sampling.Softmax(a)
		for k := range input {
			id := k
			if ids != nil {
				id = ids[k]
			}
			switch {
			case math.IsInf(a[k], -1):
				cut[id] = byTopK
			case math.IsInf(b[k], -1):
				cut[id] = byTopP
			case q[id] == 0:
				cut[id] = byMinP
			default:
				cut[id] = kept
			}
			pk[id] = pa[k]
		}
		for id := range v {
			switch cut[id] {
			case byTopK:
				e.CutTopK++
			case byTopP:
				e.CutTopP++
			case byMinP:
				e.CutMinP++
			}
		}
	}

	// The nucleus and the tail, checked against the distribution drawn from.
	for id := range v {
		in := q[id] > 0
		if in != (cut[id] == kept) {
			return Event{}, fmt.Errorf("viz: step %d: token %d has probability %g in the distribution drawn from, but the warpers replayed say %q", s.Index, id, q[id], cut[id])
		}
		if in {
			e.Kept++
			e.KeptMass += p[id]
			e.KeptMassT += pt[id]
		} else {
			e.TailMass += p[id]
			e.TailMassT += pt[id]
		}
	}
	e.Tail = v - e.Kept
	e.Entropy, e.EntropyT, e.EntropyKept = softmaxEntropy(p, z), softmaxEntropy(pt, zt), entropy(q)

	// The candidates: the top by logit (the lower id first on ties, as the sort of every warper
	// is stable), and the drawn token wherever it ranks.
	order := topIDs(z, top)
	if k := slices.Index(order, s.ID); k >= 0 {
		e.Rank = k + 1
	} else {
		e.Rank = rank(z, s.ID)
		order = append(order, s.ID)
	}
	listed := make(map[int]bool, len(order))
	for k, id := range order {
		listed[id] = true
		r := k + 1
		if id == s.ID {
			r = e.Rank
		}
		e.Candidates = append(e.Candidates, Candidate{
			ID: id, Token: TokenText(tok, id), Rank: r, Logit: z[id],
			P: p[id], PT: pt[id], PK: pk[id], Q: q[id], Cut: cut[id].String(), Drawn: id == s.ID,
		})
	}
	for id := range v {
		if q[id] > 0 && !listed[id] {
			e.Rest.Count++
			e.Rest.Q += q[id]
			e.Rest.P += p[id]
		}
	}
	return e, nil
}

// entropy is -Σ p log2 p over the positive entries, in bits.
func entropy(p []float64) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log2(x)
		}
	}
	return h
}

// softmaxEntropy is entropy(p) for p = softmax(z), without a logarithm per token: log p_i =
// z_i - max(z) + log p_max, so H = max(z) - log p_max - Σ p_i z_i (in nats; returned in bits).
// Tokens of probability 0 (a logit of -Inf, or one that underflows) add nothing.
func softmaxEntropy(p, z []float64) float64 {
	best, dot := 0, 0.0
	for i, x := range p {
		if x > p[best] {
			best = i
		}
		if x > 0 {
			dot += x * z[i]
		}
	}
	return max(0, (z[best]-math.Log(p[best])-dot)/math.Ln2)
}

// topIDs returns the ids of the n largest values of z, largest first, the lower id first on ties.
func topIDs(z []float64, n int) []int {
	n = min(n, len(z))
	best := make([]int, 0, n+1)
	before := func(i, j int) bool { return z[i] > z[j] || (z[i] == z[j] && i < j) }
	for i := range z {
		if len(best) == n && !before(i, best[n-1]) {
			continue
		}
		k, _ := slices.BinarySearchFunc(best, i, func(a, b int) int {
			if before(a, b) {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, k, i)
		if len(best) > n {
			best = best[:n]
		}
	}
	return best
}

// rank is 1 + the number of ids ordered before id (a larger logit, or the same with a lower id).
func rank(z []float64, id int) int {
	r := 1
	for i, x := range z {
		if x > z[id] || (x == z[id] && i < id) {
			r++
		}
	}
	return r
}

// TokenText is the text of one token as the page shows it: its bytes as UTF-8, a byte that is
// not part of a valid character written \xNN (a character can span several tokens), special
// tokens by name, and an id the tokenizer has no token for as [id N].
func TokenText(tok *tokenizer.Tokenizer, id int) string {
	b, err := tok.DecodeBytes([]int{id}, false)
	var unknown *tokenizer.UnknownIDError
	if errors.As(err, &unknown) || (err == nil && len(b) == 0) {
		return fmt.Sprintf("[id %d]", id)
	} else if err != nil {
		return fmt.Sprintf("[id %d: %v]", id, err)
	}
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&sb, `\x%02x`, b[0])
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}
