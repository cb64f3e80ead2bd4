package tokenizer

import (
	"fmt"

	"github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// FromGGUF builds the tokenizer stored in a GGUF file's metadata (chapter 01):
//
//	tokenizer.ggml.model       "gpt2" (byte-level BPE; anything else is an error)
//	tokenizer.ggml.pre         "qwen2" (the pre-tokenizer regular expression; anything else is an error)
//	tokenizer.ggml.tokens      [n]string, the vocabulary in id order
//	tokenizer.ggml.token_type  [n]int32, TokenType of each id
//	tokenizer.ggml.merges      [m]string, "left right" in rank order
//
// It gives the same ids as FromTokenizerJSON on the same model. One difference in Decode: llama.cpp's
// converter marks every added token that looks special ("<|...|>") as a control token, so
// <|fim_prefix|>, <|fim_middle|>, <|fim_suffix|>, <|fim_pad|>, <|repo_name|> and <|file_sep|>,
// which tokenizer.json does not flag as special, are skipped by Decode(ids, true) here.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	model, err := f.String("tokenizer.ggml.model")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if model != "gpt2" {
		return nil, fmt.Errorf("tokenizer: tokenizer.ggml.model is %q, only \"gpt2\" (byte-level BPE) is supported", model)
	}
	pre, err := f.String("tokenizer.ggml.pre")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if pre != "qwen2" {
		return nil, fmt.Errorf("tokenizer: tokenizer.ggml.pre is %q, only \"qwen2\" is supported", pre)
	}
	tokens, err := f.Strings("tokenizer.ggml.tokens")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	types, err := f.Ints("tokenizer.ggml.token_type")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if len(types) != len(tokens) {
		return nil, fmt.Errorf("tokenizer: tokenizer.ggml.token_type has %d entries for %d tokens", len(types), len(tokens))
	}
	types32 := make([]int32, len(types))
	for i, t := range types {
		if t < int(TypeNormal) || t > int(TypeByte) {
			return nil, fmt.Errorf("tokenizer: tokenizer.ggml.token_type[%d] = %d is not a token type", i, t)
		}
		types32[i] = int32(t)
	}
	merges, err := f.Strings("tokenizer.ggml.merges")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return New(tokens, types32, merges)
}
