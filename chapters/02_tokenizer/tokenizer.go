package tokenizer

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// TokenType is the kind of a vocabulary entry, numbered as GGUF's tokenizer.ggml.token_type.
type TokenType int32

// Token types. Normal tokens are byte-level BPE tokens. Control and user-defined tokens are
// "added tokens": their text is literal (not byte-level) and they are cut out of the input before
// anything else happens. Control tokens are the "special" ones that Decode can skip. Unused ids
// (Qwen3's "[PAD151669]"..., which only pad the embedding matrix) are not tokens at all.
const (
	TypeNormal      TokenType = 1
	TypeUnknown     TokenType = 2
	TypeControl     TokenType = 3
	TypeUserDefined TokenType = 4
	TypeUnused      TokenType = 5
	TypeByte        TokenType = 6
)

// Tokenizer is a byte-level BPE tokenizer with Qwen's pre-tokenizer. It holds all its tables; it is
// safe for concurrent use (the piece cache has its own lock).
type Tokenizer struct {
	tokens []string    // id -> vocabulary string (byte-level for normal tokens, literal for added ones)
	types  []TokenType // id -> type
	vocab  map[string]int32
	merges map[uint64]mergeInfo // (left id, right id) -> rank and merged id
	// byteIDs[b] is the id of the one-byte token of byte b: where every piece starts.
	byteIDs [256]int32
	// added lists the added tokens, longest first; addedFirst[b] indexes those starting with byte b.
	added      []addedToken
	addedFirst [256][]int32
	raw        [][]byte // id -> the bytes the token stands for (what Decode emits)
	bl         *byteLevel

	mu    sync.Mutex
	cache map[string][]int32 // piece -> ids, bounded by cacheSize
}

type addedToken struct {
	text string
	id   int32
}

// Cache limits: pieces up to maxCachedPiece bytes are remembered, and the cache is emptied when it
// reaches cacheSize entries (so memory stays bounded on adversarial input).
const (
	maxCachedPiece = 64
	cacheSize      = 1 << 16
)

// New builds a tokenizer from the vocabulary in id order (tokens[id]), the token types (nil means
// all TypeNormal) and the merge list in rank order, each merge written "left right" as in GGUF's
// tokenizer.ggml.merges (byte-level spellings, which never contain a space).
//
// It checks what encoding relies on and reports the first problem: every one of the 256
// single-byte tokens must exist, both halves of every merge and their concatenation must be
// normal tokens, and normal tokens must be unique and non-empty.
func New(tokens []string, types []int32, merges []string) (*Tokenizer, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("tokenizer: empty vocabulary")
	}
	if types != nil && len(types) != len(tokens) {
		return nil, fmt.Errorf("tokenizer: %d token types for %d tokens", len(types), len(tokens))
	}
	if len(tokens) >= 1<<31-1 {
		return nil, fmt.Errorf("tokenizer: %d tokens is too many", len(tokens))
	}
	t := &Tokenizer{
		tokens: tokens,
		types:  make([]TokenType, len(tokens)),
		vocab:  make(map[string]int32, len(tokens)),
		merges: make(map[uint64]mergeInfo, len(merges)),
		raw:    make([][]byte, len(tokens)),
		bl:     newByteLevel(),
		cache:  make(map[string][]int32),
	}
	for id, tok := range tokens {
		typ := TypeNormal
		if types != nil {
			typ = TokenType(types[id])
		}
		t.types[id] = typ
		switch typ {
		case TypeNormal, TypeByte, TypeUnknown:
			if tok == "" {
				return nil, fmt.Errorf("tokenizer: token %d is empty", id)
			}
			if prev, dup := t.vocab[tok]; dup {
				return nil, fmt.Errorf("tokenizer: token %d %q duplicates token %d", id, tok, prev)
			}
			t.vocab[tok] = int32(id)
			t.raw[id] = t.bl.decodeToken(tok)
		case TypeControl, TypeUserDefined:
			if tok == "" {
				return nil, fmt.Errorf("tokenizer: added token %d is empty", id)
			}
			t.added = append(t.added, addedToken{text: tok, id: int32(id)})
			t.raw[id] = t.bl.decodeToken(tok)
		case TypeUnused:
		default:
			return nil, fmt.Errorf("tokenizer: token %d %q has unknown type %d", id, tok, typ)
		}
	}
	for b, r := range t.bl.toRune {
		id, ok := t.vocab[string(r)]
		if !ok {
			return nil, fmt.Errorf("tokenizer: vocabulary has no token %q for byte 0x%02X", string(r), b)
		}
		t.byteIDs[b] = id
	}
	for rank, m := range merges {
		left, right, ok := strings.Cut(m, " ")
		if !ok || left == "" || right == "" || strings.Contains(right, " ") {
			return nil, fmt.Errorf("tokenizer: merge %d %q is not of the form \"left right\"", rank, m)
		}
		l, okl := t.vocab[left]
		r, okr := t.vocab[right]
		id, okm := t.vocab[left+right]
		switch {
		case !okl:
			return nil, fmt.Errorf("tokenizer: merge %d %q: %q is not in the vocabulary", rank, m, left)
		case !okr:
			return nil, fmt.Errorf("tokenizer: merge %d %q: %q is not in the vocabulary", rank, m, right)
		case !okm:
			return nil, fmt.Errorf("tokenizer: merge %d %q: result %q is not in the vocabulary", rank, m, left+right)
		}
		// A pair listed twice keeps its last rank, as in Hugging Face (and GPT-2's dict of ranks).
		t.merges[pairKey(l, r)] = mergeInfo{rank: int32(rank), id: id}
	}
	// Longest first, so the first added token that matches at a position is the longest one.
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].text) > len(t.added[j].text) })
	for i, a := range t.added {
		t.addedFirst[a.text[0]] = append(t.addedFirst[a.text[0]], int32(i))
	}
	return t, nil
}

// VocabSize returns the number of ids, including unused ones: valid ids are 0..VocabSize()-1.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// Token returns the vocabulary string of id (byte-level spelling for normal tokens, e.g. "Ġthe").
func (t *Tokenizer) Token(id int) (string, bool) {
	if id < 0 || id >= len(t.tokens) || t.types[id] == TypeUnused {
		return "", false
	}
	return t.tokens[id], true
}

// TokenID returns the id of a vocabulary string: a byte-level spelling such as "Ġthe", or the text
// of an added token such as "<|im_end|>".
func (t *Tokenizer) TokenID(tok string) (int, bool) {
	if id, ok := t.vocab[tok]; ok {
		return int(id), true
	}
	for _, a := range t.added {
		if a.text == tok {
			return int(a.id), true
		}
	}
	return 0, false
}

// IsSpecial reports whether id is a special (control) token, one that Decode skips when asked to.
func (t *Tokenizer) IsSpecial(id int) bool {
	return id >= 0 && id < len(t.types) && t.types[id] == TypeControl
}

// Encode returns the token ids of text, as Hugging Face's tokenizer.encode(text) does for Qwen3
// (no BOS is added):
//
//  1. added tokens ("<|im_start|>", "<think>", ...) are cut out of the raw text, leftmost-longest;
//  2. each stretch of text between them is NFC-normalized,
//  3. split into pieces by the pre-tokenizer (PreTokenize),
//  4. and each piece's UTF-8 bytes are merged by BPE.
//
// Text that is not valid UTF-8 is first made valid by replacing each maximal invalid byte sequence
// with U+FFFD, exactly as Python's bytes.decode("utf-8", "replace") does; Hugging Face only ever
// sees Python strings, so this is what it would be given.
func (t *Tokenizer) Encode(text string) []int {
	return t.encode(text, true)
}

// EncodeOrdinary is Encode without step 1: text that looks like an added token is encoded as
// ordinary text ("<|im_end|>" becomes several tokens). Use it for untrusted text that must not be
// able to inject control tokens.
func (t *Tokenizer) EncodeOrdinary(text string) []int {
	return t.encode(text, false)
}

func (t *Tokenizer) encode(text string, withAdded bool) []int {
	text = ToValidUTF8(text)
	ids := make([]int, 0, len(text)/4+1)
	ws := &workspace{}
	for withAdded && text != "" {
		start, end, id := t.findAdded(text)
		if start < 0 {
			break
		}
		ids = t.encodeText(ids, text[:start], ws)
		ids = append(ids, int(id))
		text = text[end:]
	}
	return t.encodeText(ids, text, ws)
}

// findAdded returns the leftmost-longest occurrence of an added token in text, or start -1.
func (t *Tokenizer) findAdded(text string) (start, end int, id int32) {
	for i := 0; i < len(text); i++ {
		for _, k := range t.addedFirst[text[i]] {
			if a := t.added[k]; strings.HasPrefix(text[i:], a.text) {
				return i, i + len(a.text), a.id
			}
		}
	}
	return -1, -1, 0
}

// encodeText encodes text that contains no added tokens: NFC, pre-tokenize, BPE each piece.
func (t *Tokenizer) encodeText(dst []int, text string, ws *workspace) []int {
	text = nfc(text) // NFC, as Hugging Face computes it (unicode_versions.go)
	for i := 0; i < len(text); {
		j := nextPiece(text, i)
		dst = t.encodePiece(dst, text[i:j], ws)
		i = j
	}
	return dst
}

// encodePiece runs BPE on one piece, through the cache.
func (t *Tokenizer) encodePiece(dst []int, piece string, ws *workspace) []int {
	if len(piece) == 1 {
		return append(dst, int(t.byteIDs[piece[0]]))
	}
	if len(piece) > maxCachedPiece {
		return t.bpe(dst, piece, ws)
	}
	t.mu.Lock()
	ids, ok := t.cache[piece]
	t.mu.Unlock()
	if ok {
		for _, id := range ids {
			dst = append(dst, int(id))
		}
		return dst
	}
	n := len(dst)
	dst = t.bpe(dst, piece, ws)
	ids = make([]int32, len(dst)-n)
	for i, id := range dst[n:] {
		ids[i] = int32(id)
	}
	t.mu.Lock()
	if len(t.cache) >= cacheSize {
		clear(t.cache)
	}
	t.cache[strings.Clone(piece)] = ids
	t.mu.Unlock()
	return dst
}
