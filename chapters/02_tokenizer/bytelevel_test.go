package tokenizer

import (
	"maps"
	"slices"
	"testing"
)

func TestByteToRune(t *testing.T) {
	table := ByteToRune()
	want := map[byte]rune{' ': 'Ġ', '\n': 'Ċ', '\t': 'ĉ', '\r': 'č', 0x00: 256, '!': '!', 'a': 'a', '~': '~', 0x7F: 'ġ', 0xA0: 'ł', 0xAD: 'Ń', 0xA1: '¡', 0xFF: 'ÿ'}
	for _, b := range slices.Sorted(maps.Keys(want)) {
		if r := want[b]; table[b] != r {
			why := ""
			switch {
			case b == 0xAD && table[b] == 0xAD:
				why = "the soft hyphen 0xAD does not print: it is one of the 68 that get 256, 257, ...;\n"
			case b >= 0xA1 && table[b] != rune(b):
				why = "the Latin-1 characters 0xA1..0xAC and 0xAE..0xFF print, so they map to themselves, like '!'..'~';\n"
			case table[b] == 256+rune(b):
				why = "that is 256+b: the non-printing bytes take 256, 257, ... in turn, the n-th of them 256+n;\n"
			}
			t.Fatalf("ByteToRune()[0x%02X] = %q (U+%04X), want %q (U+%04X): %sbytes '!'..'~', 0xA1..0xAC and 0xAE..0xFF\n"+
				"map to themselves; the other 68, in increasing byte order, to 256, 257, ...", b, table[b], table[b], r, r, why)
		}
	}
	seen := map[rune]bool{}
	identity := 0
	for b, r := range table {
		if seen[r] {
			t.Fatalf("rune %q appears twice: the table must be a bijection", r)
		}
		seen[r] = true
		if r == rune(b) {
			identity++
		}
		if r > 255+68 {
			t.Errorf("byte 0x%02X maps to U+%04X, beyond 256+67", b, r)
		}
	}
	if identity != 188 {
		t.Errorf("%d bytes map to themselves, want 188", identity)
	}
}

func TestByteLevelRoundTrip(t *testing.T) {
	bl := newByteLevel()
	raw := make([]byte, 256)
	for i := range raw {
		raw[i] = byte(i)
	}
	spelled := bl.encode(nil, string(raw))
	if got := bl.decodeToken(string(spelled)); string(got) != string(raw) {
		t.Fatalf("decodeToken(encode(all bytes)) = %q", got)
	}
	if got := string(bl.encode(nil, " the\n")); got != "ĠtheĊ" {
		t.Errorf(`encode(" the\n") = %q, want "ĠtheĊ"`, got)
	}
}
