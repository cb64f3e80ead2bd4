package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// The Qwen pre-tokenizer cuts text into pieces before BPE; no token ever crosses a piece boundary.
// Hugging Face runs it as one regular expression (Oniguruma syntax), splitting with behavior
// "Isolated" (every match is a piece):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)          1. English contractions, any case
//	|[^\r\n\p{L}\p{N}]?\p{L}+             2. a word, with at most one leading non-letter (" the", "(x")
//	|\p{N}                                3. ONE digit (numbers are split digit by digit)
//	| ?[^\s\p{L}\p{N}]+[\r\n]*            4. a punctuation run, optional leading space, trailing newlines
//	|\s*[\r\n]+                           5. whitespace up to and including its last newline
//	|\s+(?!\S)                            6. whitespace not followed by a non-space
//	|\s+                                  7. any other whitespace
//
// At each position the first alternative that matches wins (not the longest). Go's regexp package
// has no lookahead for (?!\S), so this file hand-writes the expression as a scanner: nextPiece
// looks at the character under the cursor and tries the seven alternatives in order. Every rune
// falls in exactly one class, which is all the scanner needs to know about it.

// class is the category of a rune as the regular expression sees it.
type class uint8

const (
	classOther   class = iota // not \s, \p{L} or \p{N}: punctuation, symbols, marks, controls
	classLetter               // \p{L}: Lu, Ll, Lt, Lm, Lo
	classNumber               // \p{N}: Nd, Nl, No
	classSpace                // \s other than \r and \n (Unicode White_Space)
	classNewline              // \r or \n (also \s)
)

// classify returns the class of r; ASCII is decided without table lookups.
func classify(r rune) class {
	if r < utf8.RuneSelf {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
			return classLetter
		case '0' <= r && r <= '9':
			return classNumber
		case r == '\r' || r == '\n':
			return classNewline
		case r == ' ' || r == '\t' || r == '\v' || r == '\f':
			return classSpace
		}
		return classOther
	}
	switch {
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r): // the Unicode White_Space property, as Oniguruma's \s
		return classSpace
	case newerLetter(r): // see unicode16.go
		return classLetter
	case newerNumber(r):
		return classNumber
	}
	return classOther
}

// runeAt decodes the rune starting at byte i of s (ASCII fast path).
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// PreTokenize splits text (valid UTF-8, already NFC-normalized) into the pieces of the Qwen
// pre-tokenizer regular expression. The pieces concatenate back to text.
//
// Example: "Hello world's  123!\n" -> ["Hello", " world", "'s", " ", " ", "1", "2", "3", "!\n"].
func PreTokenize(text string) []string {
	return appendPieces(nil, text)
}

// appendPieces appends the pieces of text to dst. Pieces are substrings of text (no copies).
func appendPieces(dst []string, text string) []string {
	for i := 0; i < len(text); {
		j := nextPiece(text, i)
		dst = append(dst, text[i:j])
		i = j
	}
	return dst
}

// nextPiece returns the end of the piece that starts at byte i (i < len(s)); it always advances.
func nextPiece(s string, i int) int {
	c, n := runeAt(s, i)
	cc := classify(c)

	// 1. (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if c == '\'' {
		if end := contraction(s, i+n); end > 0 {
			return end
		}
	}
	// 2. [^\r\n\p{L}\p{N}]?\p{L}+
	if cc == classLetter {
		return skipClass(s, i+n, classLetter)
	}
	if cc != classNewline && cc != classNumber && i+n < len(s) {
		if r, m := runeAt(s, i+n); classify(r) == classLetter {
			return skipClass(s, i+n+m, classLetter)
		}
	}
	// 3. \p{N}
	if cc == classNumber {
		return i + n
	}
	// 4.  ?[^\s\p{L}\p{N}]+[\r\n]*
	start := i
	if c == ' ' && i+n < len(s) {
		if r, _ := runeAt(s, i+n); classify(r) == classOther {
			start = i + n
		}
	}
	if start > i || cc == classOther {
		end := skipClass(s, start, classOther)
		return skipClass(s, end, classNewline)
	}
	// Only whitespace is left: c is \s. Find the whole run [i, end) and its last rune.
	end, last, lastNewline := i, i, -1
	for end < len(s) {
		r, m := runeAt(s, end)
		k := classify(r)
		if k != classSpace && k != classNewline {
			break
		}
		if k == classNewline {
			lastNewline = end
		}
		last = end
		end += m
	}
	// 5. \s*[\r\n]+ : backtracking gives back runes until the match ends on the run's last newline.
	if lastNewline >= 0 {
		return lastNewline + 1
	}
	// 6. \s+(?!\S) : at the end of the text the whole run; before a non-space, all but its last
	// rune (which then leads the next piece, like the space of " world").
	if end == len(s) {
		return end
	}
	if last > i {
		return last
	}
	// 7. \s+ : a single whitespace rune before a non-space.
	return end
}

// skipClass returns the end of the run of runes of class k that starts at byte i.
func skipClass(s string, i int, k class) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if classify(r) != k {
			break
		}
		i += n
	}
	return i
}

// contraction matches the letters after an apostrophe at byte i against s|t|re|ve|m|ll|d,
// ignoring case (Unicode simple case folding, so 'ſ' U+017F counts as 's'). It returns the end of
// the match, or 0.
func contraction(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	r1, n1 := runeAt(s, i)
	switch fold(r1) {
	case 's', 't', 'm', 'd':
		return i + n1
	case 'r', 'v', 'l':
		if i+n1 >= len(s) {
			return 0
		}
		r2, n2 := runeAt(s, i+n1)
		f1, f2 := fold(r1), fold(r2)
		if (f1 == 'r' && f2 == 'e') || (f1 == 'v' && f2 == 'e') || (f1 == 'l' && f2 == 'l') {
			return i + n1 + n2
		}
	}
	return 0
}

// fold maps the runes that case-fold onto the ASCII letters of the contractions to lower case.
func fold(r rune) rune {
	switch {
	case 'A' <= r && r <= 'Z':
		return r + 'a' - 'A'
	case r == 'ſ': // U+017F LATIN SMALL LETTER LONG S folds to 's'
		return 's'
	}
	return r
}
