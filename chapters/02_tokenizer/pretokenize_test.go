package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// The expected pieces were produced by Hugging Face tokenizers' pre_tokenize_str on the same strings
// (tokenizers 0.23.3, Qwen3's tokenizer.json; shown here as raw text instead of byte-level spellings).
func TestPreTokenize(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Hello world's  123!\n", []string{"Hello", " world", "'s", " ", " ", "1", "2", "3", "!\n"}},
		{"it's 'S 'LL x'Ll", []string{"it", "'s", " '", "S", " '", "LL", " x", "'Ll"}},
		{"x'ſx", []string{"x", "'ſ", "x"}}, // (?i) folds the long s
		// (?i) folds ASCII capitals too: the contraction ends after its letters even when more
		// letters follow, which rule 2 alone would swallow ("'Tis" would stay one piece).
		{"'Tis", []string{"'T", "is"}},
		{"HE'LLo", []string{"HE", "'LL", "o"}},
		{"SHE'SS X'VEe Y'Mm Z'DD WE'rEs", []string{"SHE", "'S", "S", " X", "'VE", "e", " Y", "'M", "m", " Z", "'D", "D", " WE", "'rE", "s"}},
		{"'ſs", []string{"'ſ", "s"}},
		{"a   b\n\n  c  \n", []string{"a", "  ", " b", "\n\n", " ", " c", "  \n"}},
		{"hello\t\tworld", []string{"hello", "\t", "\tworld"}},
		{"a \u0085b", []string{"a", " ", "\u0085b"}},                   // U+0085 is \s
		{"a\x1cb \x1c\x1db", []string{"a", "\x1cb", " \x1c\x1d", "b"}}, // U+001C is not
		{"x\u2028y", []string{"x", "\u2028y"}},
		{"  x", []string{" ", " x"}},
		{"   ", []string{"   "}},
		{" 7", []string{" ", "7"}},
		{"(x)", []string{"(x", ")"}},
		{"...\r\n\r\nok", []string{"...\r\n\r\n", "ok"}},
		{"नमस्ते", []string{"नमस", "्त", "े"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := PreTokenize(c.text); !slices.Equal(got, c.want) {
			t.Errorf("PreTokenize(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// The pieces always cover the text exactly, in order, and none is empty.
func TestPreTokenizeCovers(t *testing.T) {
	for _, c := range loadCorpus(t) {
		text := nfc(c.Text)
		pieces := PreTokenize(text)
		if strings.Join(pieces, "") != text {
			t.Fatalf("pieces of %q do not concatenate back", text)
		}
		for _, p := range pieces {
			if p == "" {
				t.Fatalf("empty piece in %q", text)
			}
		}
	}
}
