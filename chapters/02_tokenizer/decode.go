package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// UnknownIDError reports an id that is not a token of the vocabulary.
type UnknownIDError struct {
	ID    int // the id
	Index int // its position in the input
	Size  int // the vocabulary size
}

func (e *UnknownIDError) Error() string {
	return fmt.Sprintf("tokenizer: id %d at index %d is not a token (vocabulary size %d)", e.ID, e.Index, e.Size)
}

// DecodeBytes returns the raw bytes that ids stand for, concatenated. A token can end in the middle
// of a UTF-8 character, so the result need not be valid UTF-8. Special tokens are skipped when
// skipSpecial is true. An id outside the vocabulary (or an unused one) is an *UnknownIDError.
func (t *Tokenizer) DecodeBytes(ids []int, skipSpecial bool) ([]byte, error) {
	var out []byte
	for i, id := range ids {
		b, err := t.tokenBytes(i, id, skipSpecial)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// tokenBytes returns the bytes of one id (nil for a skipped special token).
func (t *Tokenizer) tokenBytes(index, id int, skipSpecial bool) ([]byte, error) {
	if id < 0 || id >= len(t.tokens) || t.types[id] == TypeUnused {
		return nil, &UnknownIDError{ID: id, Index: index, Size: len(t.tokens)}
	}
	if skipSpecial && t.types[id] == TypeControl {
		return nil, nil
	}
	return t.raw[id], nil
}

// Decode turns ids back into text, like Hugging Face's tokenizer.decode(ids, skip_special_tokens):
// every token becomes the bytes it stands for (byte-level spelling undone; added tokens are their
// own text), special tokens are left out when skipSpecial is true ("<think>" and "</think>" are
// not special, so they stay), and the bytes are read as UTF-8 with each maximal invalid sequence
// replaced by U+FFFD (see ToValidUTF8). Unlike Hugging Face, which silently drops ids it does not
// know, an unknown id is an error.
func (t *Tokenizer) Decode(ids []int, skipSpecial bool) (string, error) {
	b, err := t.DecodeBytes(ids, skipSpecial)
	if err != nil {
		return "", err
	}
	return toValidUTF8(b), nil
}

// ToValidUTF8 replaces each maximal invalid subsequence of s by one U+FFFD, following the Unicode
// "substitution of maximal subparts" practice used by Python's bytes.decode("utf-8", "replace") and
// Rust's String::from_utf8_lossy. So "\xE2\x82" (a truncated euro sign) becomes one U+FFFD, while
// "\xFF\xFE" becomes two. (strings.ToValidUTF8 is different: it replaces a whole run by one.)
func ToValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return toValidUTF8([]byte(s))
}

func toValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		out = utf8.AppendRune(out, utf8.RuneError)
		i += maximalSubpart(b[i:])
	}
	return string(out)
}

// maximalSubpart returns the length (1..3) of the longest prefix of b that starts a well-formed
// UTF-8 sequence but does not complete it; b must not start with a complete valid character.
func maximalSubpart(b []byte) int {
	need, lo, hi := seqInfo(b[0])
	if need == 0 {
		return 1 // not a lead byte at all
	}
	n := 1
	for n < len(b) && n <= need {
		if c := b[n]; c < lo || c > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// seqInfo tells, for a lead byte, how many continuation bytes follow and the allowed range of the
// first one (Unicode Table 3-7); need is 0 for bytes that cannot start a character.
func seqInfo(c byte) (need int, lo, hi byte) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 1, 0x80, 0xBF
	case c == 0xE0:
		return 2, 0xA0, 0xBF
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		return 2, 0x80, 0xBF
	case c == 0xED:
		return 2, 0x80, 0x9F // no surrogates
	case c == 0xF0:
		return 3, 0x90, 0xBF
	case c >= 0xF1 && c <= 0xF3:
		return 3, 0x80, 0xBF
	case c == 0xF4:
		return 3, 0x80, 0x8F // nothing above U+10FFFF
	}
	return 0, 0, 0
}

// StreamDecoder turns ids into text one id at a time, as a model generates them. A token can end
// in the middle of a character (a Chinese character or an emoji is often two or three byte-level
// tokens), so the decoder holds back an incomplete UTF-8 sequence until the bytes that complete it
// arrive. Concatenating everything Add returns and then Flush gives exactly Decode(ids).
type StreamDecoder struct {
	t           *Tokenizer
	skipSpecial bool
	pending     []byte // the start of a character whose remaining bytes have not arrived yet
	n           int    // ids seen, for error messages
}

// NewStreamDecoder returns a streaming decoder for t.
func (t *Tokenizer) NewStreamDecoder(skipSpecial bool) *StreamDecoder {
	return &StreamDecoder{t: t, skipSpecial: skipSpecial}
}

// Add decodes one more id and returns the text that is now complete (possibly ""). An unknown id
// is an *UnknownIDError and changes nothing.
func (d *StreamDecoder) Add(id int) (string, error) {
	b, err := d.t.tokenBytes(d.n, id, d.skipSpecial)
	if err != nil {
		return "", err
	}
	d.n++
	d.pending = append(d.pending, b...)
	// Emit everything up to the last place where a character might still be incomplete.
	cut := len(d.pending)
	for k := 1; k <= 3 && k <= len(d.pending); k++ {
		tail := d.pending[len(d.pending)-k:]
		if need, _, _ := seqInfo(tail[0]); need >= k && maximalSubpart(tail) == k {
			cut = len(d.pending) - k // tail is a valid but unfinished character: keep it
			break
		}
	}
	out := toValidUTF8(d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return out, nil
}

// Flush returns what is left: an unfinished character at the end of the stream becomes U+FFFD.
func (d *StreamDecoder) Flush() string {
	out := toValidUTF8(d.pending)
	d.pending = d.pending[:0]
	return out
}
