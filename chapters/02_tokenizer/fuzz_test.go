package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
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

// tokenizerAllocPerByte bounds what reading n bytes of a tokenizer file may allocate
// (reference.AllocBound): each vocabulary entry, at least 6 bytes of JSON ("a":1,) or 8 of GGUF,
// becomes a map entry, a string, its bytes and a type (about 150 bytes with the maps' growth).
const tokenizerAllocPerByte = 128

// miniVocab is a small vocabulary of Qwen's kind: the 256 byte-level tokens, four merges and their
// results, and four added tokens (three special).
func miniVocab() (tokens []string, types []int32, merges []string) {
	tokens = byteTokens()
	merges = []string{"Ġ t", "h e", "Ġt he", "i n"}
	for _, m := range merges {
		tokens = append(tokens, strings.ReplaceAll(m, " ", ""))
	}
	types = slices.Repeat([]int32{int32(TypeNormal)}, len(tokens))
	for _, a := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"} {
		tokens, types = append(tokens, a), append(types, int32(TypeControl))
	}
	return append(tokens, "<think>"), append(types, int32(TypeUserDefined)), merges
}

// miniTokenizerJSON writes miniVocab as a tokenizer.json, merges in the newer [["a", "b"]] form.
func miniTokenizerJSON() []byte {
	tokens, types, merges := miniVocab()
	vocab := map[string]int{}
	var added []map[string]any
	for id, tok := range tokens {
		if types[id] == int32(TypeNormal) {
			vocab[tok] = id
		} else {
			added = append(added, map[string]any{"id": id, "content": tok, "special": types[id] == int32(TypeControl)})
		}
	}
	var pairs [][]string
	for _, m := range merges {
		pairs = append(pairs, strings.Split(m, " "))
	}
	b, err := json.Marshal(map[string]any{
		"added_tokens": added,
		"normalizer":   map[string]any{"type": "NFC"},
		"pre_tokenizer": map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": QwenPattern}, "behavior": "Isolated"},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false},
		}},
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": pairs},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// checkTokenizer asserts what an accepted vocabulary must give: every token found by TokenID
// under its own id (the first one, for an added token written twice), decoded to its own bytes,
// and Decode(Encode(s)) equal to s made valid and normalized, for text that mixes the added tokens
// with ordinary text.
func checkTokenizer(t *testing.T, tok *Tokenizer) {
	t.Helper()
	text := "Hello the <think>in"
	for id := range tok.VocabSize() {
		s, ok := tok.Token(id)
		if !ok {
			continue
		}
		if got, ok := tok.TokenID(s); !ok || tok.types[id] == TypeNormal && got != id {
			t.Fatalf("token %d %q: TokenID gives %d, %v", id, s, got, ok)
		}
		if _, err := tok.Decode([]int{id}, false); err != nil {
			t.Fatalf("token %d %q: %v", id, s, err)
		}
		if tok.types[id] != TypeNormal && len(text) < 1<<12 {
			text += s + " x"
		}
	}
	got, err := tok.Decode(tok.Encode(text), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := expectedRoundTrip(tok, text); got != want {
		t.Fatalf("Decode(Encode(%q)) = %q, want %q", text, got, want)
	}
}

// FuzzTokenizerJSON feeds arbitrary bytes to the tokenizer.json reader. It fails with an error
// that names the problem, or gives a tokenizer whose every token is found under its id and
// round-trips text; reading it allocates at most tokenizerAllocPerByte per input byte, whatever
// ids the file claims.
func FuzzTokenizerJSON(f *testing.F) {
	f.Add(miniTokenizerJSON())
	old := bytes.Replace(miniTokenizerJSON(), []byte(`[["Ġ","t"],["h","e"],["Ġt","he"],["i","n"]]`), []byte(`["Ġ t","h e","Ġt he","i n"]`), 1)
	f.Add(old)
	f.Add([]byte(`{"normalizer":{"type":"NFC"},"model":{"type":"BPE","vocab":{"a":99999999999}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tok *Tokenizer
		var err error
		if e := reference.CheckAllocBound(len(data), tokenizerAllocPerByte, func() { tok, err = parseTokenizerJSON(data) }); e != nil {
			t.Fatal(e)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tokenizer: ") {
				t.Fatalf("error %q does not say it is the tokenizer's", err)
			}
			return
		}
		checkTokenizer(t, tok)
	})
}

// FuzzFromGGUF feeds arbitrary bytes to chapter 01's Parse and FromGGUF: an error, or a tokenizer
// that passes checkTokenizer, within the same allocation bound as tokenizer.json.
func FuzzFromGGUF(f *testing.F) {
	tokens, types, merges := miniVocab()
	f.Add(ggufWithTokenizer(map[string]string{"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2"},
		map[string][]string{"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": merges},
		map[string][]int32{"tokenizer.ggml.token_type": types}))
	f.Fuzz(func(t *testing.T, data []byte) {
		var tok *Tokenizer
		var err error
		if e := reference.CheckAllocBound(len(data), tokenizerAllocPerByte, func() {
			var file *gguf.File
			if file, err = gguf.Parse(data); err == nil {
				tok, err = FromGGUF(file)
			}
		}); e != nil {
			t.Fatal(e)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "tokenizer: ") && !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Fatalf("error %q does not say whose it is", err)
			}
			return
		}
		checkTokenizer(t, tok)
	})
}

// FuzzDecode feeds arbitrary ids to Decode and to the streaming decoder: an id outside the
// vocabulary is an *UnknownIDError at its index; otherwise Decode is DecodeBytes made valid UTF-8,
// DecodeBytes is the tokens' bytes end to end, and the stream gives exactly Decode's text.
func FuzzDecode(f *testing.F) {
	tok := qwen(f)
	f.Add([]byte{0, 0, 0, 1, 2, 3}, false)
	f.Add([]byte("\xff\xff\x02\x10\x02\x02"), true)
	f.Fuzz(func(t *testing.T, data []byte, skip bool) {
		n := tok.VocabSize()
		var ids []int
		for i := 0; i+3 <= len(data); i += 3 {
			v := int(data[i]) | int(data[i+1])<<8 | int(data[i+2])<<16
			ids = append(ids, v%(n+20)-10) // a few ids below 0 and past the end
		}
		got, err := tok.Decode(ids, skip)
		firstBad := slices.IndexFunc(ids, func(id int) bool { _, ok := tok.Token(id); return !ok })
		if firstBad >= 0 {
			var ue *UnknownIDError
			if !errors.As(err, &ue) || ue.Index != firstBad || ue.ID != ids[firstBad] || ue.Size != n {
				t.Fatalf("ids %v: error %v, want an *UnknownIDError for id %d at %d", ids, err, ids[firstBad], firstBad)
			}
			return
		}
		if err != nil {
			t.Fatalf("ids %v: %v", ids, err)
		}
		var want []byte
		for _, id := range ids {
			if !(skip && tok.IsSpecial(id)) {
				want = append(want, tok.raw[id]...)
			}
		}
		raw, err := tok.DecodeBytes(ids, skip)
		if err != nil || !bytes.Equal(raw, want) {
			t.Fatalf("DecodeBytes(%v) = %q, %v; want %q", ids, raw, err, want)
		}
		if v := toValidUTF8(raw); got != v || !utf8.ValidString(got) {
			t.Fatalf("Decode(%v) = %q, want %q", ids, got, v)
		}
		d := tok.NewStreamDecoder(skip)
		streamed := ""
		for _, id := range ids {
			part, err := d.Add(id)
			if err != nil {
				t.Fatal(err)
			}
			streamed += part
		}
		if streamed += d.Flush(); streamed != got {
			t.Fatalf("stream decoding of %v = %q, Decode gives %q", ids, streamed, got)
		}
	})
}

// chatRoles are the roles FuzzChatTemplate draws from; "Assistant" is not one.
var chatRoles = []string{"user", "assistant", "system", "tool", "user", "assistant", "tool", "Assistant"}

// FuzzChatTemplate renders arbitrary conversations: the input is cut at NUL bytes into messages,
// the first byte of each choosing its role (and whether it carries ReasoningContent). An empty chat
// or an unknown role is an error naming the message; otherwise the rendering holds every message's
// content in order, one <|im_start|> per turn (a run of tool messages is one turn), and ends as the
// options say.
func FuzzChatTemplate(f *testing.F) {
	f.Add([]byte("\x00You are terse.\x00\x01<think>\nplan\n</think>\n\nA1\x00\x03r1\x00\x03r2\x00\x41why\x01answer\x00\x00Q2"), true, uint8(0))
	f.Add([]byte("\x00<tool_response>x</tool_response>\x00\x05\n\nA"), false, uint8(1))
	f.Add([]byte("\x07hi"), true, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, gen bool, think uint8) {
		var msgs []Message
		bad := -1
		if len(data) > 0 {
			for i, part := range bytes.Split(data, []byte{0}) {
				if len(part) == 0 {
					part = []byte{0}
				}
				m := Message{Role: chatRoles[part[0]%8], Content: string(part[1:])}
				if part[0]&0x40 != 0 {
					reasoning, content, _ := strings.Cut(m.Content, "\x01")
					m.Content, m.ReasoningContent = content, &reasoning
				}
				if bad < 0 && m.Role == "Assistant" {
					bad = i
				}
				msgs = append(msgs, m)
			}
		}
		opts := ChatOptions{AddGenerationPrompt: gen}
		if think%3 != 2 {
			opts.EnableThinking = Bool(think%3 == 1)
		}
		out, err := ApplyChatTemplate(msgs, opts)
		switch {
		case len(msgs) == 0:
			if err == nil || !strings.Contains(err.Error(), "no messages") {
				t.Fatalf("an empty chat: %q, %v", out, err)
			}
			return
		case bad >= 0:
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("message %d has unknown role", bad)) {
				t.Fatalf("message %d has role %q: %q, %v", bad, msgs[bad].Role, out, err)
			}
			return
		case err != nil:
			t.Fatalf("%+v: %v", msgs, err)
		}
		pos, turns, marked := 0, 0, false
		for i, m := range msgs {
			needle := m.Content
			if m.Role == "assistant" {
				if m.ReasoningContent == nil {
					if k := strings.LastIndex(needle, "</think>"); k >= 0 {
						needle = needle[k+len("</think>"):]
					}
				}
				needle = strings.TrimLeft(needle, "\n")
			}
			k := strings.Index(out[pos:], needle)
			if k < 0 {
				t.Fatalf("message %d's content %q is not in the rendering after byte %d: %q", i, needle, pos, out)
			}
			pos += k + len(needle)
			if m.Role != "tool" || i == 0 || msgs[i-1].Role != "tool" {
				turns++
			}
			marked = marked || strings.Contains(m.Content, "<|im_start|>") || m.ReasoningContent != nil && strings.Contains(*m.ReasoningContent, "<|im_start|>")
		}
		if gen {
			turns++
		}
		if n := strings.Count(out, "<|im_start|>"); !marked && n != turns {
			t.Fatalf("%d <|im_start|> for %d turns: %q", n, turns, out)
		}
		end := "<|im_end|>\n"
		if gen {
			end = "<|im_start|>assistant\n"
			if opts.EnableThinking != nil && !*opts.EnableThinking {
				end += "<think>\n\n</think>\n\n"
			}
		}
		if !strings.HasSuffix(out, end) {
			t.Fatalf("the rendering ends %q, want %q", out[max(len(out)-40, 0):], end)
		}
	})
}
