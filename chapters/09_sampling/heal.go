package sampling

import (
	"bytes"
	"fmt"
	"math"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Token healing. A model learned from text cut into tokens the tokenizer's way, so a prompt that
// stops inside what the training text writes as one token ends on a token the model rarely saw
// in that place. Go code writes " {" and the newline after it as one token, " {\n" (id 341), so
// the prompt "func main() {" ends on the token " {" (id 314), which in Go comes before a one-line
// body: the tiny model then starts with " return" (notebook 09 prints the probabilities).
//
// Token healing (the name and the method of the guidance library: guidance-ai/guidance,
// notebooks/art_of_prompt_design/prompt_boundaries_and_token_healing.ipynb) backs the prompt up by
// its last token and makes the first generated token one whose text starts with the text removed:
// " {" may come back as itself, or as " {\n", " {}", ... whichever the model prefers where the
// training text had a token boundary. Heal does the backing up; HealMask restricts the logits.

// Heal returns prompt without its last token, and the bytes that token stood for: the prefix that
// the first generated token must start with (HealMask). A prompt of fewer than two tokens, or one
// that ends in a special token (a chat template's <|im_start|>assistant...), is returned as it is,
// with a nil prefix: there is nothing to heal.
func Heal(tok *tokenizer.Tokenizer, prompt []int) ([]int, []byte, error) {
	n := len(prompt)
	if n < 2 || tok.IsSpecial(prompt[n-1]) {
		return prompt, nil, nil
	}
	b, err := tok.DecodeBytes(prompt[n-1:], false)
	if err != nil {
		return nil, nil, fmt.Errorf("sampling: Heal: %w", err)
	}
	return prompt[:n-1], b, nil
}

// HealMask sets to -Inf, in place, every logit whose token's bytes do not start with prefix
// (special and unused ids too), and returns how many ids stay allowed. logits has one entry per
// id, at most the tokenizer's vocabulary size (a model's rows past the tokenizer's tokens are
// padding and are masked). With an empty prefix nothing is masked. Every id masked is an error,
// which cannot happen for a prefix Heal returned: the removed token itself is always allowed.
func HealMask(tok *tokenizer.Tokenizer, logits []float64, prefix []byte) (int, error) {
	if len(prefix) == 0 {
		return len(logits), nil
	}
	allowed := 0
	for id := range logits {
		b, err := tok.DecodeBytes([]int{id}, false)
		if err != nil || tok.IsSpecial(id) || !bytes.HasPrefix(b, prefix) {
			logits[id] = math.Inf(-1)
			continue
		}
		allowed++
	}
	if allowed == 0 {
		return 0, fmt.Errorf("sampling: HealMask: no token starts with %q", prefix)
	}
	return allowed, nil
}
