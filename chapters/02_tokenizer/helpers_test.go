package tokenizer

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// The real Qwen3 tokenizer takes a fraction of a second to load, so each test binary loads it once.
var (
	jsonOnce = sync.OnceValues(func() (*Tokenizer, error) {
		return FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	})
	ggufOnce = sync.OnceValues(func() (*Tokenizer, error) {
		f, err := gguf.Open(reference.TinyGGUF())
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return FromGGUF(f)
	})
)

// qwen returns the Qwen3 tokenizer read from the reference tokenizer.json.
func qwen(tb testing.TB) *Tokenizer {
	tb.Helper()
	t, err := jsonOnce()
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// qwenGGUF returns the Qwen3 tokenizer read from the reference GGUF file.
func qwenGGUF(tb testing.TB) *Tokenizer {
	tb.Helper()
	t, err := ggufOnce()
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// corpusCase is one entry of reference/golden/02_tokenizer/corpus.json.
type corpusCase struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	var c []corpusCase
	if err := reference.LoadJSON("02_tokenizer", "corpus", &c); err != nil {
		tb.Fatal(err)
	}
	if len(c) < 200 {
		tb.Fatalf("corpus has %d strings, want at least 200", len(c))
	}
	return c
}

// expectedRoundTrip is what Decode(Encode(s)) must give, computed independently of Encode's
// machinery: s made valid UTF-8, cut at added tokens by a naive leftmost-longest search, and the
// text between them NFC-normalized.
func expectedRoundTrip(t *Tokenizer, s string) string {
	s = ToValidUTF8(s)
	var sb strings.Builder
	start := 0
	for i := 0; i < len(s); {
		best := ""
		for _, a := range t.added {
			if strings.HasPrefix(s[i:], a.text) && len(a.text) > len(best) {
				best = a.text
			}
		}
		if best == "" {
			i++
			continue
		}
		sb.WriteString(nfc(s[start:i]))
		sb.WriteString(best)
		i += len(best)
		start = i
	}
	sb.WriteString(nfc(s[start:]))
	return sb.String()
}
