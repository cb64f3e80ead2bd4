package tokenizer

// Go 1.26's unicode package has the tables of Unicode 15.0.0, but the Oniguruma regex engine inside
// Hugging Face tokenizers (0.23) knows Unicode 16.0. The two disagree on the characters added in
// Unicode 15.1 and 16.0 (CJK Extension I, Egyptian Hieroglyphs Extended-A, Garay, Kirat Rai, Ol
// Onal, Sunuwar, Todhri, Tulu-Tigalari, Gurung Khema, new Latin and Cyrillic letters, new digit
// sets): for Go they are unassigned (classOther), for \p{L} and \p{N} they are letters and numbers.
//
// These ranges were found by classifying every code point both ways: with Hugging Face's Split
// pre-tokenizer on probe strings ("a"+c+"a", "!"+c+"!") and with classify. Nothing else differs
// (no whitespace, and no character changed class between the versions).

// newerLetter reports whether r is a letter added after Unicode 15.0.
func newerLetter(r rune) bool {
	if r < 0x1C89 {
		return false
	}
	switch {
	case
		0x1C89 <= r && r <= 0x1C8A, 0xA7CB <= r && r <= 0xA7CD, 0xA7DA <= r && r <= 0xA7DC,
		0x105C0 <= r && r <= 0x105F3, 0x10D4A <= r && r <= 0x10D65, 0x10D6F <= r && r <= 0x10D85,
		0x10EC2 <= r && r <= 0x10EC4, 0x11380 <= r && r <= 0x11389, r == 0x1138B,
		r == 0x1138E, 0x11390 <= r && r <= 0x113B5, r == 0x113B7,
		r == 0x113D1, r == 0x113D3, 0x11BC0 <= r && r <= 0x11BE0,
		0x13460 <= r && r <= 0x143FA, 0x16100 <= r && r <= 0x1611D, 0x16D40 <= r && r <= 0x16D6C,
		r == 0x18CFF, 0x1E5D0 <= r && r <= 0x1E5ED, r == 0x1E5F0,
		0x2EBF0 <= r && r <= 0x2EE5D:
		return true
	}
	return false
}

// newerNumber reports whether r is a number added after Unicode 15.0.
func newerNumber(r rune) bool {
	switch {
	case
		0x10D40 <= r && r <= 0x10D49, 0x116D0 <= r && r <= 0x116E3, 0x11BF0 <= r && r <= 0x11BF9,
		0x16130 <= r && r <= 0x16139, 0x16D70 <= r && r <= 0x16D79, 0x1CCF0 <= r && r <= 0x1CCF9,
		0x1E5F1 <= r && r <= 0x1E5FA:
		return true
	}
	return false
}

// The NFC normalizer of Hugging Face tokenizers (the unicode-normalization-alignments crate) is
// older still, about Unicode 9: it gives combining class 0 to the combining marks encoded since,
// and does not know the one canonical composition added since (Dives Akuru U+11938 = U+11935
// U+11930). golang.org/x/text/unicode/norm (Unicode 15.0) would reorder those marks and compose
// that pair, so nfc normalizes the text between such characters separately and keeps the
// characters themselves as they are: for Hugging Face they are starters that never combine. The
// list was found by asking Hugging Face's NFD and NFC about every character with a combining class
// or a decomposition in Go's tables.

// hfUnnormalized reports whether r is normalized differently by Hugging Face (see above).
func hfUnnormalized(r rune) bool {
	if r < 0x7FD {
		return false
	}
	switch {
	case
		r == 0x7FD, 0x898 <= r && r <= 0x89F, 0x8CA <= r && r <= 0x8D3,
		r == 0x9FE, r == 0xC3C, 0xD3B <= r && r <= 0xD3C,
		r == 0xEBA, r == 0x1715, 0x1ABF <= r && r <= 0x1ACE,
		0x1DF6 <= r && r <= 0x1DFA, r == 0xA82C, 0x10D24 <= r && r <= 0x10D27,
		0x10EAB <= r && r <= 0x10EAC, 0x10EFD <= r && r <= 0x10EFF, 0x10F46 <= r && r <= 0x10F50,
		0x10F82 <= r && r <= 0x10F85, r == 0x11070, r == 0x1133B,
		r == 0x1145E, 0x11839 <= r && r <= 0x1183A, r == 0x11930,
		r == 0x11935, r == 0x11938, 0x1193D <= r && r <= 0x1193E,
		r == 0x11943, r == 0x119E0, r == 0x11A34,
		r == 0x11A47, r == 0x11A99, r == 0x11D42,
		0x11D44 <= r && r <= 0x11D45, r == 0x11D97, 0x11F41 <= r && r <= 0x11F42,
		0x16FF0 <= r && r <= 0x16FF1, r == 0x1E08F, 0x1E130 <= r && r <= 0x1E136,
		r == 0x1E2AE, 0x1E2EC <= r && r <= 0x1E2EF, 0x1E4EC <= r && r <= 0x1E4EF:
		return true
	}
	return false
}
