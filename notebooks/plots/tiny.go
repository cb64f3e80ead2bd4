package plots

import (
	"path/filepath"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/reference"
)

// TinyTokenizer returns Qwen3's real tokenizer, read by chapter 02 from the tiny reference
// checkpoint's tokenizer.json (151,643 tokens, 151,387 merges, 26 added tokens). It panics if the
// file cannot be read, which fails the notebook cell.
func TinyTokenizer() *tokenizer.Tokenizer {
	return Must(tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json")))
}
