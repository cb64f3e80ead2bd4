package plots

import (
	"slices"
	"testing"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

func TestSpellByteTokensMergeAll(t *testing.T) {
	tok := ByHandTokenizer()
	if got := Spell(tok, []int{256, 257, 258, 259, 260}); !slices.Equal(got, []string{"lo", "low", "er", "Ġlow", "lower"}) {
		t.Errorf("the worked example's merged tokens are %q", got)
	}
	ids := ByteTokens(tok, "lower low")
	if want := []int{108, 111, 119, 101, 114, 32, 108, 111, 119}; !slices.Equal(ids, want) {
		t.Errorf("ByteTokens(%q) = %v, want the bytes %v", "lower low", ids, want)
	}
	if got := Spell(tok, ids[4:6]); !slices.Equal(got, []string{"r", "Ġ"}) {
		t.Errorf("Spell of the bytes r and space = %q, want [r Ġ]", got)
	}
	// Without the split, "Ġ low" (rank 3) merges before "low er" (rank 4) could join the second
	// low to anything; with it (Encode), the same here: [lower Ġlow].
	merged := MergeAll(tok, ids)
	if got := Spell(tok, merged); !slices.Equal(got, []string{"lower", "Ġlow"}) {
		t.Errorf("MergeAll = %q, want [lower Ġlow]", got)
	}
	if got := Spell(tok, []int{1 << 20}); got[0] != "#1048576" {
		t.Errorf("Spell of an id outside the vocabulary = %q", got)
	}
	if got := ByteTokens(tok, "é\n"); !slices.Equal(got, []int{0xc3, 0xa9, '\n'}) {
		t.Errorf("ByteTokens(%q) = %v, want its UTF-8 bytes [195 169 10]", "é\n", got)
	}
}

func TestTokenCells(t *testing.T) {
	tok := ByHandTokenizer()
	// "lo lo" is cut into "lo" and " lo"; no merge joins Ġ and lo, so Encode gives [lo Ġ lo]:
	// three tokens, alternating kinds, none crossing a piece boundary.
	text := "lo lo"
	split := tok.Encode(text)
	kinds, labels, err := TokenCells(tok, text, split)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0, 1, 0, 0}; !slices.Equal(kinds, want) {
		t.Errorf("kinds of Encode(%q) = %v (tokens %q), want %v", text, kinds, Spell(tok, split), want)
	}
	if want := []string{"l", "o", "Ġ", "l", "o"}; !slices.Equal(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
	// A token that crosses the boundary between "lo" and " lo": a vocabulary with "oĠ".
	table := tokenizer.ByteToRune()
	tokens := make([]string, 256)
	for b := range tokens {
		tokens[b] = string(table[b])
	}
	tokens = append(tokens, "oĠ") // id 256
	cross, err := tokenizer.New(tokens, nil, []string{"o Ġ"})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int{'l', 256, 'l', 'o'} // [l oĠ l o]: "oĠ" spans the boundary between "lo" and " lo"
	kinds, _, err = TokenCells(cross, text, ids)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{TokenEven, TokenCrossing, TokenCrossing, TokenEven, TokenOdd}; !slices.Equal(kinds, want) {
		t.Errorf("kinds of [l oĠ l o] = %v, want %v", kinds, want)
	}
	if _, _, err := TokenCells(tok, "lo", []int{'l'}); err == nil {
		t.Error("TokenCells accepted tokens that spell another text")
	}
}
