package tokenizer

import (
	"encoding/json"
	"fmt"
	"os"
)

// QwenPattern is the pre-tokenizer regular expression of Qwen2 and Qwen3 (tokenizer.json's
// pre_tokenizer Split pattern; GGUF calls it tokenizer.ggml.pre = "qwen2"). PreTokenize implements it.
const QwenPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// hfTokenizerJSON is the part of a Hugging Face tokenizer.json that this package reads.
type hfTokenizerJSON struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type string `json:"type"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type          string `json:"type"`
		Pretokenizers []struct {
			Type    string `json:"type"`
			Pattern struct {
				Regex string `json:"Regex"`
			} `json:"pattern"`
			Behavior       string `json:"behavior"`
			AddPrefixSpace bool   `json:"add_prefix_space"`
		} `json:"pretokenizers"`
	} `json:"pre_tokenizer"`
	Model struct {
		Type         string          `json:"type"`
		Vocab        map[string]int  `json:"vocab"`
		Merges       json.RawMessage `json:"merges"`
		ByteFallback bool            `json:"byte_fallback"`
	} `json:"model"`
}

// maxVocab bounds the ids accepted from a file, so a corrupt id cannot ask for a huge table.
const maxVocab = 1 << 24

// FromTokenizerJSON reads a Hugging Face tokenizer.json of the Qwen2/Qwen3 kind: a BPE model
// (vocab, and merges written either "a b" or ["a", "b"]), added_tokens (special ones become
// TypeControl, the others TypeUserDefined), an NFC normalizer and the Qwen pre-tokenizer. Anything
// else (another model type, another regular expression, byte fallback) is an error, because
// Encode would silently compute something different.
func FromTokenizerJSON(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := parseTokenizerJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return t, nil
}

func parseTokenizerJSON(data []byte) (*Tokenizer, error) {
	var j hfTokenizerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: %w", err)
	}
	if j.Model.Type != "BPE" {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: model.type is %q, only \"BPE\" is supported", j.Model.Type)
	}
	if j.Model.ByteFallback {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: model.byte_fallback is not supported (byte-level BPE needs none)")
	}
	if j.Normalizer == nil || j.Normalizer.Type != "NFC" {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: normalizer must be NFC")
	}
	if err := checkPreTokenizer(&j); err != nil {
		return nil, err
	}
	if len(j.Model.Vocab) == 0 {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: model.vocab is empty")
	}
	size, largest := 0, "" // the table's length (the largest id + 1) and the token with that id
	for tok, id := range j.Model.Vocab {
		if id < 0 || id >= maxVocab {
			return nil, fmt.Errorf("tokenizer: tokenizer.json: model.vocab[%q] = %d is out of range", tok, id)
		}
		if id+1 > size || id+1 == size && tok < largest {
			size, largest = id+1, tok
		}
	}
	where := fmt.Sprintf("model.vocab[%q]", largest)
	for i, a := range j.AddedTokens {
		if a.ID < 0 || a.ID >= maxVocab {
			return nil, fmt.Errorf("tokenizer: tokenizer.json: added_tokens[%d].id = %d is out of range", i, a.ID)
		}
		if a.ID+1 > size {
			size, where = a.ID+1, fmt.Sprintf("added_tokens[%d].id", i)
		}
	}
	// The tables below have a row per id, so every id must be backed by an entry of the file: a
	// 400-byte file with one id of 16,000,000 would otherwise allocate hundreds of megabytes.
	if n := len(j.Model.Vocab) + len(j.AddedTokens); size > n {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: %s = %d leaves ids unused: the file lists %d tokens, so ids must be below %d",
			where, size-1, n, n)
	}
	tokens := make([]string, size)
	types := make([]int32, size)
	for i := range types {
		types[i] = int32(TypeUnused)
	}
	for tok, id := range j.Model.Vocab {
		if types[id] != int32(TypeUnused) {
			return nil, fmt.Errorf("tokenizer: tokenizer.json: model.vocab: id %d is used by %q and %q", id, tokens[id], tok)
		}
		tokens[id], types[id] = tok, int32(TypeNormal)
	}
	for i, a := range j.AddedTokens {
		if types[a.ID] != int32(TypeUnused) && tokens[a.ID] != a.Content {
			return nil, fmt.Errorf("tokenizer: tokenizer.json: added_tokens[%d] %q has id %d of %q", i, a.Content, a.ID, tokens[a.ID])
		}
		tokens[a.ID], types[a.ID] = a.Content, int32(TypeUserDefined)
		if a.Special {
			types[a.ID] = int32(TypeControl)
		}
	}
	merges, err := parseMerges(j.Model.Merges)
	if err != nil {
		return nil, err
	}
	return New(tokens, types, merges)
}

// checkPreTokenizer accepts exactly Qwen's: Sequence[Split(QwenPattern, Isolated), ByteLevel].
func checkPreTokenizer(j *hfTokenizerJSON) error {
	p := j.PreTokenizer
	ok := p != nil && p.Type == "Sequence" && len(p.Pretokenizers) == 2 &&
		p.Pretokenizers[0].Type == "Split" && p.Pretokenizers[0].Pattern.Regex == QwenPattern &&
		p.Pretokenizers[0].Behavior == "Isolated" &&
		p.Pretokenizers[1].Type == "ByteLevel" && !p.Pretokenizers[1].AddPrefixSpace
	if !ok {
		return fmt.Errorf("tokenizer: tokenizer.json: pre_tokenizer is not Qwen's (Split on QwenPattern, then ByteLevel)")
	}
	return nil
}

// parseMerges reads model.merges, written either as ["a b", ...] (older files) or as
// [["a", "b"], ...] (newer files), into the "a b" form.
func parseMerges(raw json.RawMessage) ([]string, error) {
	var merges []string
	if len(raw) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &merges); err == nil {
		return merges, nil
	}
	var pairs [][]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("tokenizer: tokenizer.json: model.merges is neither [\"a b\", ...] nor [[\"a\", \"b\"], ...]: %w", err)
	}
	merges = make([]string, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return nil, fmt.Errorf("tokenizer: tokenizer.json: model.merges[%d] has %d strings, want 2", i, len(p))
		}
		merges[i] = p[0] + " " + p[1]
	}
	return merges, nil
}
