package plots

import (
	"bytes"
	"fmt"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// Helpers for notebook 02: spelling token ids, BPE's starting point, BPE without the
// pre-tokenizer's split, and a byte-by-byte picture of where tokens begin and end.

// ByHandMerges returns the five merges of chapter 02's worked example (its Example_byHand), in
// rank order 0 to 4: "l o", "lo w", "e r", "Ġ low", "low er".
func ByHandMerges() []string { return []string{"l o", "lo w", "e r", "Ġ low", "low er"} }

// ByHandTokenizer returns the tokenizer of chapter 02's worked example: the 256 byte tokens, with
// id = the byte value, then one token per merge of ByHandMerges (ids 256 to 260: "lo", "low",
// "er", "Ġlow", "lower"). Small enough to run BPE on paper.
func ByHandTokenizer() *tokenizer.Tokenizer {
	table := tokenizer.ByteToRune()
	merges := ByHandMerges()
	tokens := make([]string, 256, 256+len(merges))
	for b := range tokens {
		tokens[b] = string(table[b])
	}
	for _, m := range merges {
		tokens = append(tokens, strings.ReplaceAll(m, " ", ""))
	}
	return Must(tokenizer.New(tokens, nil, merges))
}

// Spell returns the vocabulary string of each id ("Ġthe" for id 279), the way the package doc of
// chapter 02 writes tokens. An id outside the vocabulary is spelled "#id".
func Spell(tok *tokenizer.Tokenizer, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		s, ok := tok.Token(id)
		if !ok {
			s = fmt.Sprintf("#%d", id)
		}
		out[i] = s
	}
	return out
}

// ByteTokens returns BPE's starting point for text: one token per UTF-8 byte, the token whose
// vocabulary string is that byte's ByteToRune spelling. Every tokenizer has all 256 of them
// (tokenizer.New refuses a vocabulary without), so every text has its byte tokens.
func ByteTokens(tok *tokenizer.Tokenizer, text string) []int {
	table := tokenizer.ByteToRune()
	ids := make([]int, len(text))
	for i := 0; i < len(text); i++ {
		ids[i], _ = tok.TokenID(string(table[text[i]]))
	}
	return ids
}

// MergeAll applies chapter 02's MergeStep until no adjacent pair merges: BPE on the whole
// sequence at once. On ByteTokens of a text it is BPE without the pre-tokenizer's split, which
// notebook 02 compares with Encode.
func MergeAll(tok *tokenizer.Tokenizer, ids []int) []int {
	for {
		out, _, ok := tok.MergeStep(ids)
		if !ok {
			return ids
		}
		ids = out
	}
}

// Token kinds of TokenCells, for a Categorical palette: tokens alternate between TokenEven and
// TokenOdd so that neighbours look different; a token that crosses a boundary between two
// pre-tokenizer pieces is TokenCrossing.
const (
	TokenEven     = 0
	TokenOdd      = 1
	TokenCrossing = 2
)

// TokenCells lays the tokens ids of text out byte by byte, for a heat map with one cell per byte:
// kinds[b] is the kind of the token that byte b belongs to (TokenEven and TokenOdd alternate from
// token to token; TokenCrossing marks a token that spans a boundary between two pieces of
// tokenizer.PreTokenize(text)), and labels[b] is the byte's ByteToRune spelling ("Ġ" for a space).
// It is an error when the bytes of ids do not spell text.
func TokenCells(tok *tokenizer.Tokenizer, text string, ids []int) (kinds []float64, labels []string, err error) {
	got, err := tok.DecodeBytes(ids, false)
	if err != nil {
		return nil, nil, fmt.Errorf("plots: %w", err)
	}
	if !bytes.Equal(got, []byte(text)) {
		return nil, nil, fmt.Errorf("plots: the tokens spell %q, not %q", got, text)
	}
	// cut[b] is true when a piece of the pre-tokenizer starts at byte b > 0.
	cut := make([]bool, len(text)+1)
	at := 0
	for _, p := range tokenizer.PreTokenize(text) {
		at += len(p)
		cut[at] = true
	}
	table := tokenizer.ByteToRune()
	at = 0
	for i, id := range ids {
		b, _ := tok.DecodeBytes([]int{id}, false)
		kind := float64(i % 2)
		for j := at + 1; j < at+len(b); j++ {
			if cut[j] {
				kind = TokenCrossing
			}
		}
		for j := range b {
			kinds = append(kinds, kind)
			labels = append(labels, string(table[text[at+j]]))
		}
		at += len(b)
	}
	return kinds, labels, nil
}
