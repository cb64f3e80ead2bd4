package tokenizer

import (
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// NFC normalization, as Hugging Face does it.
//
// NFC writes every character in its canonical composed form: "e" followed by U+0301 COMBINING
// ACUTE ACCENT becomes "é" U+00E9, so that text that looks the same is tokenized the same. The
// algorithm: decompose every character (é -> e + U+0301), sort each run of combining marks by
// their canonical combining class, then compose starter + mark pairs again where Unicode lists a
// composite. golang.org/x/text/unicode/norm does this, with two differences from Hugging Face:
//
//   - its Unicode tables are newer (see unicode_versions.go), handled by nfcAround;
//   - it follows the "Stream-Safe Text Format": after 30 combining marks in a row it inserts
//     U+034F COMBINING GRAPHEME JOINER, which Hugging Face never does ("Zalgo" text has such
//     runs). When that happens, nfcSegment redoes the segment with composeSlow, the textbook
//     algorithm written out below, using x/text only for per-character data.

// nfc is Hugging Face's NFC normalization: norm.NFC, except around the characters of hfUnnormalized.
func nfc(s string) string {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if hfUnnormalized(r) {
			return nfcAround(s)
		}
		i += n
	}
	return nfcSegment(s)
}

// nfcAround normalizes the stretches between hfUnnormalized characters one by one.
func nfcAround(s string) string {
	var sb strings.Builder
	start := 0
	for i, r := range s {
		if hfUnnormalized(r) {
			sb.WriteString(nfcSegment(s[start:i]))
			sb.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	sb.WriteString(nfcSegment(s[start:]))
	return sb.String()
}

// nfcSegment normalizes text that contains no hfUnnormalized character.
func nfcSegment(s string) string {
	out := norm.NFC.String(s)
	if strings.Contains(out, "\u034F") && strings.Count(out, "\u034F") != strings.Count(s, "\u034F") {
		return composeSlow(s) // x/text inserted grapheme joiners: a run of more than 30 marks
	}
	return out
}

// ccc returns the canonical combining class of r (0 for starters).
func ccc(r rune) uint8 {
	var buf [utf8.UTFMax]byte
	return norm.NFC.Properties(buf[:utf8.EncodeRune(buf[:], r)]).CCC()
}

// composeSlow is NFC without stream-safe limits: decompose, reorder marks, recompose.
func composeSlow(s string) string {
	// 1. Canonical decomposition, one character at a time (so no run limit applies).
	var runes []rune
	for _, r := range s {
		for _, d := range norm.NFD.String(string(r)) {
			runes = append(runes, d)
		}
	}
	// 2. Canonical ordering: stable sort of every run of non-starters by combining class.
	for i := 0; i < len(runes); {
		if ccc(runes[i]) == 0 {
			i++
			continue
		}
		j := i
		for j < len(runes) && ccc(runes[j]) != 0 {
			j++
		}
		slices.SortStableFunc(runes[i:j], func(a, b rune) int { return int(ccc(a)) - int(ccc(b)) })
		i = j
	}
	// 3. Canonical composition. A mark composes with the last starter unless a character between
	// them is a starter or has a combining class at least as high (it is "blocked").
	var out []rune
	starter := -1   // index in out of the last starter, -1 before the first
	lastClass := -1 // class of the last character after that starter, -1 if none
	for _, r := range runes {
		class := int(ccc(r))
		if starter >= 0 && lastClass < class {
			if c, ok := composePair(out[starter], r); ok {
				out[starter] = c
				continue
			}
		}
		if class == 0 {
			starter, lastClass = len(out), -1
		} else {
			lastClass = class
		}
		out = append(out, r)
	}
	return string(out)
}

// composePair returns the primary composite of a and b, if Unicode has one.
func composePair(a, b rune) (rune, bool) {
	s := norm.NFC.String(string([]rune{a, b}))
	r, n := utf8.DecodeRuneInString(s)
	return r, n == len(s) && r != a
}
