package tokenizer

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// The expected strings are Hugging Face tokenizers' normalizers.NFC().normalize_str of the inputs.
func TestNFCLikeHuggingFace(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"compose", "e\u0301", "é"},
		{"reorder then compose", "a\u0301\u0316", "á\u0316"},
		{"Hangul", "\u1100\u1161\u11A8", "\uAC01"},
		// 40 marks in a row: x/text would insert U+034F after 30 of them, Hugging Face does not.
		{"long mark run", "a" + strings.Repeat("\u0301\u0316", 20) + "b",
			"\u00e1" + strings.Repeat("\u0316", 20) + strings.Repeat("\u0301", 19) + "b"},
		// U+1E132 (Unicode 12) has class 230, but Hugging Face's tables predate it: no reordering.
		{"mark newer than HF's tables", "\U0001E132\u0338", "\U0001E132\u0338"},
		// Dives Akuru U+11935 U+11930 composes to U+11938 in Unicode 13, not in Hugging Face.
		{"composition newer than HF's tables", "\U00011935\U00011930", "\U00011935\U00011930"},
	}
	for _, c := range cases {
		if got := nfc(c.in); got != c.want {
			t.Errorf("%s: nfc(%+q) = %+q, want %+q", c.name, c.in, got, c.want)
		}
	}
	// Without the special cases, nfc is x/text's NFC.
	for _, s := range []string{"Ångström", "ﬁ ① Ⅻ", "e\u0301\u0323", "한국어"} {
		if nfc(s) != norm.NFC.String(s) {
			t.Errorf("nfc(%q) differs from norm.NFC", s)
		}
	}
}

func TestComposeSlowMatchesXText(t *testing.T) {
	for _, c := range loadCorpus(t) {
		if got, want := composeSlow(c.Text), norm.NFC.String(c.Text); got != want {
			t.Errorf("composeSlow(%+q) = %+q, norm.NFC gives %+q", c.Text, got, want)
		}
	}
}
