package tokenizer

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestToValidUTF8(t *testing.T) {
	cases := map[string]string{
		"ok":               "ok",
		"\xE2\x82":         "\uFFFD",             // truncated euro sign: one maximal subpart
		"\xE2\x82x":        "\uFFFDx",            // ... followed by ASCII
		"\xFF\xFE":         "\uFFFD\uFFFD",       // two bytes that never start a character
		"\xED\xA0\x80":     "\uFFFD\uFFFD\uFFFD", // a surrogate: ED is only valid before 80..9F
		"\xF0\x9F\x98":     "\uFFFD",             // truncated emoji
		"\xF0\x9F\x98\x80": "😀",
		"a\x80b":           "a\uFFFDb",
		"\xC0\xAF":         "\uFFFD\uFFFD", // overlong encodings are not even a prefix
		"\xF4\x90\x80\x80": "\uFFFD\uFFFD\uFFFD\uFFFD",
		"\xE0\xA0":         "\uFFFD",
	}
	// Python: b.decode("utf-8", "replace") gives the same for every case above.
	for in, want := range cases {
		if got := ToValidUTF8(in); got != want {
			t.Errorf("ToValidUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeUnknownID(t *testing.T) {
	tok := qwen(t)
	for _, ids := range [][]int{{9707, -1}, {9707, 151936}, {9707, 151669}, {9707, 1 << 40}} {
		_, err := tok.Decode(ids, false)
		var e *UnknownIDError
		if !errors.As(err, &e) || e.Index != 1 || e.ID != ids[1] {
			t.Errorf("Decode(%v): error %v, want an UnknownIDError for index 1", ids, err)
		}
	}
	d := tok.NewStreamDecoder(false)
	if _, err := d.Add(-5); err == nil {
		t.Error("StreamDecoder.Add(-5) gave no error")
	}
}

func TestDecodeSkipSpecial(t *testing.T) {
	tok := qwen(t)
	// <|im_start|> user \n <think> Hi </think> <|im_end|> <|endoftext|>
	ids := tok.Encode("<|im_start|>user\n<think>Hi</think><|im_end|><|endoftext|>")
	if got, _ := tok.Decode(ids, true); got != "user\n<think>Hi</think>" {
		t.Errorf("skip special: %q (<think> and </think> are not special and must stay)", got)
	}
	if got, _ := tok.Decode(ids, false); got != "<|im_start|>user\n<think>Hi</think><|im_end|><|endoftext|>" {
		t.Errorf("keep special: %q", got)
	}
	for _, id := range []int{151643, 151644, 151645} {
		if !tok.IsSpecial(id) {
			t.Errorf("IsSpecial(%d) = false", id)
		}
	}
	for _, id := range []int{151667, 151668, 151657, 9707} {
		if tok.IsSpecial(id) {
			t.Errorf("IsSpecial(%d) = true", id)
		}
	}
}

// streamAll feeds ids one by one and joins what comes out, checking that every chunk is valid.
func streamAll(t *testing.T, tok *Tokenizer, ids []int, skip bool) string {
	t.Helper()
	d := tok.NewStreamDecoder(skip)
	var sb strings.Builder
	for _, id := range ids {
		s, err := d.Add(id)
		if err != nil {
			t.Fatal(err)
		}
		sb.WriteString(s)
	}
	sb.WriteString(d.Flush())
	return sb.String()
}

func TestStreamDecoderMatchesDecode(t *testing.T) {
	tok := qwen(t)
	check := func(ids []int) {
		t.Helper()
		for _, skip := range []bool{false, true} {
			want, err := tok.Decode(ids, skip)
			if err != nil {
				t.Fatal(err)
			}
			if got := streamAll(t, tok, ids, skip); got != want {
				t.Fatalf("ids %v skip=%v: stream %q, Decode %q", ids, skip, got, want)
			}
		}
	}
	for _, c := range loadCorpus(t) {
		check(c.IDs)
	}
	// Random ids cut characters anywhere, and produce invalid sequences.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		ids := make([]int, 1+rng.IntN(12))
		for i := range ids {
			if rng.IntN(2) == 0 {
				ids[i] = rng.IntN(256) // mostly single bytes: the hard cases
			} else {
				ids[i] = rng.IntN(151669)
			}
		}
		check(ids)
	}
}

func TestStreamDecoderHoldsIncompleteCharacters(t *testing.T) {
	tok := qwen(t)
	// "😀" is F0 9F 98 80: feed it as four single-byte tokens.
	d := tok.NewStreamDecoder(false)
	raw := "😀!"
	for i := 0; i < len(raw); i++ {
		id := int(tok.byteIDs[raw[i]])
		s, err := d.Add(id)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case i < 3 && s != "":
			t.Fatalf("after byte %d the decoder emitted %q before the character was complete", i, s)
		case i == 3 && s != "😀":
			t.Fatalf("after the 4th byte: %q, want the emoji", s)
		case i == 4 && s != "!":
			t.Fatalf("after '!': %q", s)
		}
	}
	// An unfinished character at the end becomes U+FFFD on Flush, as in Decode.
	d = tok.NewStreamDecoder(false)
	d.Add(int(tok.byteIDs[0xE4]))
	if s := d.Flush(); s != "\uFFFD" {
		t.Errorf("Flush of a lone lead byte = %q", s)
	}
}
