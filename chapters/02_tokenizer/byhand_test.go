package tokenizer_test

import (
	"fmt"
	"path/filepath"
	"strings"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/reference"
)

// spell writes ids as their vocabulary strings: [Ġ lo w].
func spell(tok *tokenizer.Tokenizer, ids []int) string {
	var s []string
	for _, id := range ids {
		t, _ := tok.Token(id)
		s = append(s, t)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// byteIDs returns the one-byte token of each byte of text, BPE's starting point.
func byteIDs(tok *tokenizer.Tokenizer, text string) []int {
	table := tokenizer.ByteToRune()
	var ids []int
	for i := 0; i < len(text); i++ {
		id, _ := tok.TokenID(string(table[text[i]]))
		ids = append(ids, id)
	}
	return ids
}

// Example_byHand is the worked example of the package doc: a vocabulary of the 256 byte tokens
// (id = the byte) and five merges, small enough to run BPE on paper.
func Example_byHand() {
	table := tokenizer.ByteToRune()
	tokens := make([]string, 256)
	for b := range tokens {
		tokens[b] = string(table[b])
	}
	merges := []string{"l o", "lo w", "e r", "Ġ low", "low er"} // ranks 0..4
	for _, m := range merges {
		tokens = append(tokens, strings.ReplaceAll(m, " ", "")) // ids 256..260
	}
	tok, err := tokenizer.New(tokens, nil, merges)
	if err != nil {
		panic(err)
	}

	fmt.Printf("pieces %q\n", tokenizer.PreTokenize("lower low"))
	ids := byteIDs(tok, "lower")
	fmt.Println(ids, spell(tok, ids))
	for {
		out, m, ok := tok.MergeStep(ids)
		if !ok {
			break
		}
		ids = out
		l, _ := tok.Token(m.Left)
		r, _ := tok.Token(m.Right)
		fmt.Printf("rank %d: %s + %s -> %v %s\n", m.Rank, l, r, ids, spell(tok, ids))
	}
	for _, text := range []string{"lower low", "lowest", "é"} {
		ids := tok.Encode(text)
		fmt.Printf("%-10q -> %v %s\n", text, ids, spell(tok, ids))
	}
	// Output:
	// pieces ["lower" " low"]
	// [108 111 119 101 114] [l o w e r]
	// rank 0: l + o -> [256 119 101 114] [lo w e r]
	// rank 1: lo + w -> [257 101 114] [low e r]
	// rank 2: e + r -> [257 258] [low er]
	// rank 4: low + er -> [260] [lower]
	// "lower low" -> [260 259] [lower Ġlow]
	// "lowest"   -> [257 101 115 116] [low e s t]
	// "é"        -> [195 169] [Ã ©]
}

// Example_noUnknownTokens shows, on Qwen's real vocabulary, the two choices of the package doc's
// "Why bytes, and why split first": any text becomes tokens, and the pre-tokenizer's split
// decides which ones.
func Example_noUnknownTokens() {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		panic(err)
	}
	// A cuneiform sign, surely rare in the training text: four UTF-8 bytes, never an unknown token.
	ids := tok.Encode("𒀀")
	back, _ := tok.Decode(ids, false)
	fmt.Printf("%q: bytes % x -> %v %s -> %q\n", "𒀀", "𒀀", ids, spell(tok, ids), back)

	// BPE on the whole text, without the split (MergeStep until nothing merges), against Encode.
	for _, text := range []string{"a  b", "   The", "if x {\n\t\treturn"} {
		ids := byteIDs(tok, text)
		for {
			out, _, ok := tok.MergeStep(ids)
			if !ok {
				break
			}
			ids = out
		}
		fmt.Printf("%-21q split %-22s unsplit %s\n", text, spell(tok, tok.Encode(text)), spell(tok, ids))
	}
	_, two := tok.TokenID("20")
	fmt.Printf("%q -> %s; is \"20\" a token? %v\n", "2024", spell(tok, tok.Encode("2024")), two)
	// Output:
	// "𒀀": bytes f0 92 80 80 -> [151268 222] [ðĴĢ Ģ] -> "𒀀"
	// "a  b"                split [a Ġ Ġb]               unsplit [a ĠĠ b]
	// "   The"              split [ĠĠ ĠThe]              unsplit [ĠĠĠ The]
	// "if x {\n\t\treturn"  split [if Ġx Ġ{Ċ ĉ ĉreturn]  unsplit [if Ġx Ġ{Ċ ĉĉ return]
	// "2024" -> [2 0 2 4]; is "20" a token? false
}
