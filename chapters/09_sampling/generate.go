package sampling

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Qwen3's stop tokens: generation ends when the model emits either (generation_config.json's
// eos_token_id [151645, 151643]).
const (
	ImEnd     = 151645 // <|im_end|>: the end of a chat turn
	EndOfText = 151643 // <|endoftext|>: the end of a document (also the padding token)
)

// DefaultStopTokens returns Qwen3's stop tokens, <|im_end|> and <|endoftext|>.
func DefaultStopTokens() []int { return []int{ImEnd, EndOfText} }

// Model is what Generate needs from a language model with a KV cache; chapter 08's *kvcache.Cache
// is one (kvcache.New(model, maxLen)), and a test fake is a dozen lines. Prefill runs
// the prompt and returns the logits that predict the token after it; Step appends one token and
// returns the logits that predict the next one. Each returns a vector of length vocab. Running
// past the model's context length must be an error, not a panic.
type Model interface {
	Prefill(ids []int) ([]float64, error)
	Step(id int) ([]float64, error)
}

// GenerateOptions control one call to Generate.
type GenerateOptions struct {
	Settings     Settings // how each token is picked (Greedy(), QwenThinking(seed), ...)
	MaxNewTokens int      // the budget: at most this many new tokens (> 0)
	// StopTokens end generation when drawn; nil means DefaultStopTokens(). Pass []int{} to
	// generate until the budget is spent.
	StopTokens []int
}

// Generate continues prompt one token at a time: Prefill(prompt), then pick a token from the
// logits with a Sampler built from opts.Settings, hand it to onToken (which may be nil), feed it
// back with Step, and repeat. It returns the new ids, exactly the ids passed to onToken, in order.
//
// It stops, returning the ids so far and:
//   - nil when a stop token is drawn. The stop token is NOT emitted: it is neither passed to
//     onToken nor included in the result (with err == nil, len(ids) < MaxNewTokens means a stop
//     token ended the turn; append ImEnd yourself if you keep a chat history of raw ids);
//   - nil after MaxNewTokens tokens (the last token is not fed back: no Step is wasted on it);
//   - ctx's error, wrapped, when ctx is cancelled or its deadline passes (checked before every step);
//   - onToken's error, wrapped, when the callback returns one (that token is in the result);
//   - the model's error, wrapped with the step and position, for example when the prompt or the
//     generated text no longer fits in the context.
//
// Invalid settings, a non-positive budget or an empty prompt are errors before any work is done.
func Generate(ctx context.Context, m Model, prompt []int, opts GenerateOptions, onToken func(id int) error) ([]int, error) {
	sampler, err := NewSampler(opts.Settings)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	if opts.MaxNewTokens <= 0 {
		return nil, fmt.Errorf("generate: max new tokens %d must be > 0", opts.MaxNewTokens)
	}
	if len(prompt) == 0 {
		return nil, errors.New("generate: empty prompt (the model needs at least one token to predict the next)")
	}
	stops := opts.StopTokens
	if stops == nil {
		stops = DefaultStopTokens()
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("generate: before the prompt: %w", err)
	}
	logits, err := m.Prefill(prompt)
	if err != nil {
		return nil, fmt.Errorf("generate: prefill of %d prompt tokens: %w", len(prompt), err)
	}
	var out []int
	for {
		id, err := sampler.Sample(logits)
		if err != nil {
			return out, fmt.Errorf("generate: new token %d (position %d): %w", len(out), len(prompt)+len(out), err)
		}
		if slices.Contains(stops, id) {
			return out, nil
		}
		out = append(out, id)
		if onToken != nil {
			if err := onToken(id); err != nil {
				return out, fmt.Errorf("generate: callback for new token %d (id %d): %w", len(out)-1, id, err)
			}
		}
		if len(out) == opts.MaxNewTokens {
			return out, nil
		}
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("generate: after %d new tokens: %w", len(out), err)
		}
		pos := len(prompt) + len(out) - 1
		if logits, err = m.Step(id); err != nil {
			return out, fmt.Errorf("generate: step for new token %d (id %d at position %d): %w", len(out)-1, id, pos, err)
		}
	}
}

// GenerateText is Generate for text: it encodes prompt with tok (special tokens written in the
// text, such as the chat template's <|im_start|>, become their ids), generates, and streams the
// reply through tok's StreamDecoder with skip_special_tokens, so onText (which may be nil) only
// ever receives complete UTF-8 characters, even when a character spans several tokens. It returns
// the whole reply text and the new ids. The stop token is not part of either.
func GenerateText(ctx context.Context, m Model, tok *tokenizer.Tokenizer, prompt string, opts GenerateOptions, onText func(text string) error) (string, []int, error) {
	dec := tok.NewStreamDecoder(true)
	var text strings.Builder
	ids, err := Generate(ctx, m, tok.Encode(prompt), opts, func(id int) error {
		piece, err := dec.Add(id)
		if err != nil {
			return fmt.Errorf("decoding id %d: %w", id, err)
		}
		text.WriteString(piece)
		if onText != nil && piece != "" {
			return onText(piece)
		}
		return nil
	})
	rest := dec.Flush()
	text.WriteString(rest)
	if onText != nil && rest != "" && err == nil {
		if cbErr := onText(rest); cbErr != nil {
			err = fmt.Errorf("generate: callback for the final text: %w", cbErr)
		}
	}
	return text.String(), ids, err
}
