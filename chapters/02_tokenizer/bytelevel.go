package tokenizer

import "unicode/utf8"

// ByteToRune returns GPT-2's byte-to-unicode table: the printable character that stands for each
// of the 256 byte values inside vocabulary strings.
//
// Byte-level BPE works on bytes, but its vocabulary is stored as text, so every byte needs a
// visible character. Bytes that already print as themselves keep their code point:
//
//	'!'..'~' (0x21..0x7E), '¡'..'¬' (0xA1..0xAC), '®'..'ÿ' (0xAE..0xFF)   -> same code point
//
// The other 68 bytes (controls, space, 0x7F..0xA0, soft hyphen 0xAD) are given the code points
// 256, 257, ... in increasing byte order. So space 0x20 becomes 'Ġ' (U+0120), newline 0x0A
// becomes 'Ċ' (U+010A), and the token " the" is stored as "Ġthe".
//
// Shape: [256]rune, a bijection from bytes onto 256 distinct runes.
func ByteToRune() [256]rune {
	// exercise: tokenizer.ByteToRune — printable bytes map to themselves, the rest to 256, 257, ... in byte order
	// tests: TestByteToRune TestByteLevelRoundTrip ExampleByteToRune
	// difficulty: easy, 15 min
	var table [256]rune
	next := rune(256)
	for b := 0; b < 256; b++ {
		printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
		if printable {
			table[b] = rune(b)
		} else {
			table[b] = next
			next++
		}
	}
	return table
	// hint: Walk the bytes 0..255 in order. A byte that prints as itself keeps its code point; every
	// other byte gets the next unused code point from 256 up.
	// hint: printable(b) = '!' <= b <= '~' or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF (188 bytes);
	// the other 68 get 256, 257, ... in increasing byte order, so space (the 33rd) gets 256+32.
	// hint: The shape:
	//	next := rune(256)
	//	for b := 0; b < 256; b++ {
	//		if printable { table[b] = rune(b) } else { table[b] = next; next++ }
	//	}
	// mistake: only ASCII '!'..'~' kept as itself, the Latin-1 letters remapped too
	// says: the Latin-1 characters 0xA1..0xAC and 0xAE..0xFF print
	//	- printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	//	+ printable := b >= '!' && b <= '~'
	// mistake: the soft hyphen 0xAD kept as itself (it does not print)
	// says: the soft hyphen 0xAD does not print
	//	- printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)
	//	+ printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xFF)
	// mistake: byte b mapped to 256+b instead of the next free code point
	// says: that is 256+b
	//	- next := rune(256)
	//
	//	- table[b] = next
	//	- next++
	//	+ table[b] = 256 + rune(b)
	// end exercise
}

// byteLevel holds both directions of the byte-to-unicode table.
type byteLevel struct {
	toRune [256]rune
	toByte map[rune]byte
}

func newByteLevel() *byteLevel {
	bl := &byteLevel{toRune: ByteToRune(), toByte: make(map[rune]byte, 256)}
	for b, r := range bl.toRune {
		bl.toByte[r] = byte(b)
	}
	return bl
}

// encode writes the vocabulary spelling of raw bytes: each byte becomes its table rune.
func (bl *byteLevel) encode(dst []byte, raw string) []byte {
	for i := 0; i < len(raw); i++ {
		dst = utf8.AppendRune(dst, bl.toRune[raw[i]])
	}
	return dst
}

// decodeToken turns a vocabulary string back into the bytes it stands for. Like Hugging Face's
// ByteLevel decoder, a token containing any rune outside the table (only added tokens can) is
// kept as its own UTF-8 bytes.
func (bl *byteLevel) decodeToken(tok string) []byte {
	out := make([]byte, 0, len(tok))
	for _, r := range tok {
		b, ok := bl.toByte[r]
		if !ok {
			return []byte(tok)
		}
		out = append(out, b)
	}
	return out
}
