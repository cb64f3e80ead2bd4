package tokenizer

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/chapters/01_gguf"
)

func badTypes() []int32 {
	types := make([]int32, 256)
	for i := range types {
		types[i] = int32(TypeNormal)
	}
	types[255] = 9
	return types
}

func byteTokens() []string {
	var tokens []string
	for _, r := range ByteToRune() {
		tokens = append(tokens, string(r))
	}
	return tokens
}

func TestNewErrors(t *testing.T) {
	cases := []struct {
		name   string
		tokens []string
		types  []int32
		merges []string
		want   string
	}{
		{"empty", nil, nil, nil, "empty vocabulary"},
		{"missing byte token", byteTokens()[1:], nil, nil, "no token \"Ā\" for byte 0x00"},
		{"merge of unknown token", byteTokens(), nil, []string{"a zz"}, `"zz" is not in the vocabulary`},
		{"merge result missing", byteTokens(), nil, []string{"a b"}, `result "ab" is not in the vocabulary`},
		{"merge without space", byteTokens(), nil, []string{"ab"}, `not of the form "left right"`},
		{"types length", byteTokens(), []int32{1}, nil, "1 token types for 256 tokens"},
		{"duplicate token", append(byteTokens(), "a"), nil, nil, `duplicates token`},
		{"bad type", byteTokens(), badTypes(), nil, "token 255 \"ÿ\" has unknown type 9"},
	}
	for _, c := range cases {
		_, err := New(c.tokens, c.types, c.merges)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestTokenizerJSONErrors(t *testing.T) {
	good := `{"normalizer":{"type":"NFC"},"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":` +
		jsonString(QwenPattern) + `},"behavior":"Isolated"},{"type":"ByteLevel","add_prefix_space":false}]},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}`
	cases := []struct{ name, json, want string }{
		{"not json", `{`, "unexpected end"},
		{"unigram", strings.Replace(good, `"BPE"`, `"Unigram"`, 1), `model.type is "Unigram"`},
		{"no normalizer", strings.Replace(good, `"NFC"`, `"NFKC"`, 1), "normalizer must be NFC"},
		{"other regex", strings.Replace(good, `'s|`, `'S|`, 1), "pre_tokenizer is not Qwen's"},
		{"missing bytes", good, "no token"},
		{"bad merge", strings.Replace(good, `"merges":[]`, `"merges":[7]`, 1), "model.merges is neither"},
		{"bad pair", strings.Replace(good, `"merges":[]`, `"merges":[["a","b","c"]]`, 1), "model.merges[0] has 3 strings"},
		{"huge id", strings.Replace(good, `"a":0`, `"a":99999999999`, 1), "out of range"},
		{"sparse id", strings.Replace(good, `"a":0`, `"a":16000000`, 1), `model.vocab["a"] = 16000000 leaves ids unused: the file lists 1 tokens`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, "tokenizer.json")
		if err := os.WriteFile(path, []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := FromTokenizerJSON(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := FromTokenizerJSON(filepath.Join(dir, "absent.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\', '"':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// ggufWithTokenizer writes a minimal GGUF v3 file (no tensors) holding the given string and
// string-array metadata.
func ggufWithTokenizer(strs map[string]string, arrays map[string][]string, ints map[string][]int32) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0))
	w(uint64(len(strs) + len(arrays) + len(ints)))
	for k, v := range strs {
		str(k)
		w(uint32(8))
		str(v)
	}
	for k, v := range arrays {
		str(k)
		w(uint32(9))
		w(uint32(8))
		w(uint64(len(v)))
		for _, s := range v {
			str(s)
		}
	}
	for k, v := range ints {
		str(k)
		w(uint32(9))
		w(uint32(5))
		w(uint64(len(v)))
		for _, x := range v {
			w(x)
		}
	}
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}

func TestGGUFErrors(t *testing.T) {
	tokens := byteTokens()
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = 1
	}
	full := func() (map[string]string, map[string][]string, map[string][]int32) {
		return map[string]string{"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "qwen2"},
			map[string][]string{"tokenizer.ggml.tokens": tokens, "tokenizer.ggml.merges": {}},
			map[string][]int32{"tokenizer.ggml.token_type": types}
	}
	cases := []struct {
		name   string
		modify func(s map[string]string, a map[string][]string, i map[string][]int32)
		want   string
	}{
		{"ok", func(map[string]string, map[string][]string, map[string][]int32) {}, ""},
		{"llama model", func(s map[string]string, _ map[string][]string, _ map[string][]int32) {
			s["tokenizer.ggml.model"] = "llama"
		}, `"llama", only "gpt2"`},
		{"other pre", func(s map[string]string, _ map[string][]string, _ map[string][]int32) {
			s["tokenizer.ggml.pre"] = "llama-bpe"
		}, `only "qwen2"`},
		{"no tokens", func(_ map[string]string, a map[string][]string, _ map[string][]int32) {
			delete(a, "tokenizer.ggml.tokens")
		}, `"tokenizer.ggml.tokens": not found`},
		{"no merges", func(_ map[string]string, a map[string][]string, _ map[string][]int32) {
			delete(a, "tokenizer.ggml.merges")
		}, `"tokenizer.ggml.merges": not found`},
		{"no types", func(_ map[string]string, _ map[string][]string, i map[string][]int32) {
			delete(i, "tokenizer.ggml.token_type")
		}, `token_type": not found`},
		{"short types", func(_ map[string]string, _ map[string][]string, i map[string][]int32) {
			i["tokenizer.ggml.token_type"] = types[:3]
		}, "3 entries for 256 tokens"},
		{"bad merge", func(_ map[string]string, a map[string][]string, _ map[string][]int32) {
			a["tokenizer.ggml.merges"] = []string{"Ġ t"}
		}, `result "Ġt" is not in the vocabulary`},
	}
	for _, c := range cases {
		s, a, i := full()
		c.modify(s, a, i)
		f, err := gguf.Parse(ggufWithTokenizer(s, a, i))
		if err != nil {
			t.Fatalf("%s: writing the test file: %v", c.name, err)
		}
		_, err = FromGGUF(f)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
