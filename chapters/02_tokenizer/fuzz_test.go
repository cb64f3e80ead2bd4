package tokenizer

import (
	"testing"
)

// FuzzEncode feeds arbitrary bytes (invalid UTF-8 included) to Encode and checks that it does not
// panic, that every id is a token, that Decode(Encode(s)) is s made valid (ToValidUTF8) and
// normalized (NFC between added tokens), that EncodeOrdinary round-trips too, and that the
// streaming decoder agrees with Decode.
//
//	go test -run '^$' -fuzz FuzzEncode -parallel 1 -fuzztime 10m ./chapters/02_tokenizer
func FuzzEncode(f *testing.F) {
	tok := qwen(f)
	for _, s := range []string{"", "Hello, world!", "<|im_start|>user\nHi<|im_end|>", "\xE2\x82 \xFF", "e\u0301  \n\n x", "日本語 😀", "'S 'll", "<|im_st", "\u0338>", "1234"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := string(data)
		ids := tok.Encode(s)
		got, err := tok.Decode(ids, false)
		if err != nil {
			t.Fatalf("Decode(Encode(%q)): %v", s, err)
		}
		if want := expectedRoundTrip(tok, s); got != want {
			t.Fatalf("Decode(Encode(%q)) = %q, want %q", s, got, want)
		}
		ord := tok.EncodeOrdinary(s)
		got, err = tok.Decode(ord, false)
		if err != nil {
			t.Fatalf("Decode(EncodeOrdinary(%q)): %v", s, err)
		}
		if want := nfc(ToValidUTF8(s)); got != want {
			t.Fatalf("Decode(EncodeOrdinary(%q)) = %q, want %q", s, got, want)
		}
		for _, id := range ord {
			if tok.types[id] != TypeNormal {
				t.Fatalf("EncodeOrdinary(%q) produced added token %d", s, id)
			}
		}
		d := tok.NewStreamDecoder(false)
		streamed := ""
		for _, id := range ids {
			part, err := d.Add(id)
			if err != nil {
				t.Fatal(err)
			}
			streamed += part
		}
		if streamed += d.Flush(); streamed != expectedRoundTrip(tok, s) {
			t.Fatalf("stream decoding of %q = %q", s, streamed)
		}
	})
}
