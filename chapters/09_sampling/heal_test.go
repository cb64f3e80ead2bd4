package sampling

import (
	"math"
	"path/filepath"
	"testing"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/reference"
)

// TestHeal: "func main() {" ends on the token " {" (314); healing removes it and asks the first
// token to start with " {", which " {" itself and " {\n" (341) do, and " return" does not.
func TestHeal(t *testing.T) {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	ids := tok.Encode("func main() {")
	if want := []int{2830, 1887, 368, 314}; len(ids) != 4 || ids[3] != want[3] {
		t.Fatalf("Encode(func main() {) = %v, want %v (the prompt this test is about)", ids, want)
	}
	short, prefix, err := Heal(tok, ids)
	if err != nil || len(short) != 3 || string(prefix) != " {" {
		t.Fatalf("Heal = %v, %q, %v; want the first 3 ids and %q", short, prefix, err, " {")
	}
	logits := make([]float64, tok.VocabSize())
	n, err := HealMask(tok, logits, prefix)
	if err != nil {
		t.Fatal(err)
	}
	ret, _ := tok.TokenID("Ġreturn")
	for _, c := range []struct {
		id      int
		allowed bool
	}{{314, true}, {341, true}, {ret, false}, {EndOfText, false}} {
		if got := !math.IsInf(logits[c.id], -1); got != c.allowed {
			t.Errorf("id %d: allowed %v, want %v", c.id, got, c.allowed)
		}
	}
	if n < 2 || n > 1000 {
		t.Errorf("%d ids start with %q; want the few that do (at least 314 and 341)", n, prefix)
	}
	// The text must start the token, not only occur in it: " {" (314) holds "{" but does not start with it.
	logits = make([]float64, tok.VocabSize())
	if _, err := HealMask(tok, logits, []byte("{")); err != nil || !math.IsInf(logits[314], -1) {
		t.Errorf("prefix %q: id 314 (%q) allowed (logit %v, error %v); it does not start with it", "{", " {", logits[314], err)
	}
	// Nothing to heal: one token, or a special token at the end.
	for _, p := range [][]int{{314}, {2830, ImEnd}} {
		if got, pre, err := Heal(tok, p); err != nil || len(got) != len(p) || pre != nil {
			t.Errorf("Heal(%v) = %v, %q, %v; want it unchanged with no prefix", p, got, pre, err)
		}
	}
	if _, err := HealMask(tok, make([]float64, 10), []byte("\x00\x01zz")); err == nil {
		t.Error("HealMask with a prefix no token has: no error")
	}
	if _, _, err := Heal(tok, []int{1, -5}); err == nil {
		t.Error("Heal of an unknown id: no error")
	}
}
