package sampling

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/reference"
)

// TestGenerateText streams "Hello, world!" and then 你 spelled as its three UTF-8 bytes, one
// byte-level token each: the callback must receive "你" whole, once its last byte arrives.
func TestGenerateText(t *testing.T) {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	script := []int{9707, 11, 1879, 0} // "Hello", ",", " world", "!"
	b2r := tokenizer.ByteToRune()
	for _, b := range []byte("你") {
		id, ok := tok.TokenID(string(b2r[b]))
		if !ok {
			t.Fatalf("no byte token for 0x%02x", b)
		}
		script = append(script, id)
	}
	script = append(script, ImEnd)
	m := newScript(script...)
	var chunks []string
	text, ids, err := GenerateText(context.Background(), m, tok, "<|im_start|>user\nHi<|im_end|>\n", greedyOpts(20), func(s string) error {
		if !utf8.ValidString(s) {
			t.Errorf("chunk %q is not valid UTF-8", s)
		}
		chunks = append(chunks, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if text != "Hello, world!你" || len(ids) != 7 {
		t.Fatalf("text %q ids %v", text, ids)
	}
	if want := []string{"Hello", ",", " world", "!", "你"}; !slices.Equal(chunks, want) {
		t.Fatalf("chunks %q, want %q", chunks, want)
	}
	if want := []int{151644, 872, 198, 13048, 151645, 198}; !slices.Equal(m.prefills[0], want) {
		t.Fatalf("prompt encoded as %v, want %v", m.prefills[0], want)
	}
}
