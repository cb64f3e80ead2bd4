package sampling

import (
	"errors"
	"fmt"
	"math"
)

// Settings choose how the next token is picked from the model's logits.
//
// Temperature 0 means greedy decoding: always the most likely token (argmax of the raw logits,
// the lowest id on ties, like torch.argmax); TopK, TopP, MinP and Seed are then ignored, but
// they must still be valid. Any other temperature means sampling from Distribution(logits, s)
// with a random generator seeded from Seed.
//
// The neutral values switch a filter off: TopK 0 (keep every token), TopP 1 (keep the whole
// probability mass), MinP 0 (no floor), Temperature 1 (logits unchanged). The zero Settings is
// NOT neutral: TopP 0 is invalid. Start from Greedy, Neutral, QwenThinking or QwenNonThinking.
type Settings struct {
	Temperature float64 // T >= 0; logits are divided by T; 0 means greedy
	TopK        int     // keep the TopK most likely tokens (ties at the k-th value kept); 0 = off
	TopP        float64 // keep the smallest set of most likely tokens with mass >= TopP; in (0, 1], 1 = off
	MinP        float64 // drop tokens with prob < MinP * (largest prob); in [0, 1], 0 = off
	Seed        uint64  // seed of the random generator; the same seed draws the same tokens
}

// Greedy returns settings for greedy decoding (temperature 0). Qwen warns against greedy
// decoding in thinking mode: it tends to loop and repeat itself.
func Greedy() Settings { return Settings{Temperature: 0, TopP: 1} }

// Neutral returns plain sampling from the model's own distribution: T=1, no filters.
func Neutral(seed uint64) Settings { return Settings{Temperature: 1, TopP: 1, Seed: seed} }

// QwenThinking returns Qwen3's recommended settings for thinking mode (enable_thinking=True),
// the values of Qwen3-0.6B's generation_config.json: T=0.6, top_p=0.95, top_k=20, min_p=0.
func QwenThinking(seed uint64) Settings {
	return Settings{Temperature: 0.6, TopK: 20, TopP: 0.95, Seed: seed}
}

// QwenNonThinking returns the model card's settings for non-thinking mode:
// T=0.7, top_p=0.8, top_k=20, min_p=0.
func QwenNonThinking(seed uint64) Settings {
	return Settings{Temperature: 0.7, TopK: 20, TopP: 0.8, Seed: seed}
}

// IsGreedy reports whether s picks the argmax (Temperature 0).
func (s Settings) IsGreedy() bool { return s.Temperature == 0 }

// ErrInvalidSettings is wrapped by every error Validate returns.
var ErrInvalidSettings = errors.New("invalid sampling settings")

// MinTemperature is the smallest positive temperature accepted. Below it z/T can overflow to
// ±Inf for ordinary logits and the distribution is NaN; such a temperature is greedy in all
// but name, so 0 says it plainly.
const MinTemperature = 1e-6

// Validate reports the first setting that is out of range: a temperature that is negative,
// infinite, NaN or positive but below MinTemperature; a negative top_k; a top_p outside (0, 1] or NaN; a min_p outside [0, 1] or NaN.
// The error wraps ErrInvalidSettings and names the field and its value.
func (s Settings) Validate() error {
	switch {
	case math.IsNaN(s.Temperature) || math.IsInf(s.Temperature, 0) || s.Temperature < 0:
		return fmt.Errorf("%w: temperature %v must be a finite number >= 0 (0 = greedy)", ErrInvalidSettings, s.Temperature)
	case s.Temperature > 0 && s.Temperature < MinTemperature:
		return fmt.Errorf("%w: temperature %v is below %v: logits/T would overflow; use 0 for greedy", ErrInvalidSettings, s.Temperature, MinTemperature)
	case s.TopK < 0:
		return fmt.Errorf("%w: top_k %d must be >= 0 (0 = off)", ErrInvalidSettings, s.TopK)
	case math.IsNaN(s.TopP) || s.TopP <= 0 || s.TopP > 1:
		return fmt.Errorf("%w: top_p %v must be in (0, 1] (1 = off)", ErrInvalidSettings, s.TopP)
	case math.IsNaN(s.MinP) || s.MinP < 0 || s.MinP > 1:
		return fmt.Errorf("%w: min_p %v must be in [0, 1] (0 = off)", ErrInvalidSettings, s.MinP)
	}
	return nil
}
