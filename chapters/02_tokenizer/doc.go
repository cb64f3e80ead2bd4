// Package tokenizer turns text into the token ids Qwen3 reads, and ids back into text, exactly as
// Hugging Face's tokenizer for Qwen3 does (chapter 02 of the course).
//
// # The problem
//
// The model sees integers in [0, 151669): one id per token. A tokenizer must be exact, not
// approximately right: a single different id changes the model's input, and the model was trained
// on the ids of one specific algorithm. The golden tests compare every id with Hugging Face
// tokenizers, and every chat prompt byte by byte with transformers' apply_chat_template.
//
// # Reading order
//
// First pass, the path of Encode and Decode:
//
//  1. tokenizer.go: the Tokenizer, New (what a vocabulary must hold), Encode.
//  2. bytelevel.go: bytes as printable characters (space is "Ġ").
//  3. pretokenize.go: the pieces Qwen's regular expression cuts, as a hand-written scanner.
//  4. bpe.go down to MergeStep: one merge step, the obvious way.
//  5. decode.go: ids back to text.
//  6. load.go and gguf.go: where the vocabulary and merges come from (tokenizer.json or GGUF
//     metadata); chat.go: the chat template.
//
// Skip on a first pass: the fast BPE in the second half of bpe.go (linked list and heap, same result
// as MergeStep), normalize.go and unicode_versions.go (how NFC and Unicode letters are made to agree
// with Hugging Face's older tables), and StreamDecoder in decode.go (holding back a split character).
//
// # The pipeline of Encode
//
//		text ──► added tokens ──► NFC ──► pre-tokenizer ──► bytes ──► BPE merges ──► ids
//		         "<|im_start|>"    é        " world"          Ġworld     "Ġworld" 1879
//
//	 1. Added tokens (26 of them, ids 151643..151668: <|endoftext|>, <|im_start|>, <|im_end|>,
//	    <think>, </think>, <tool_call>, ...) are found in the raw text first, leftmost-longest, and
//	    become their ids directly. They are never normalized or split. (EncodeOrdinary skips this
//	    step, for untrusted text.)
//	 2. The text between them is put in Unicode normal form C (normalize.go).
//	 3. The pre-tokenizer cuts it into pieces with Qwen's regular expression (pretokenize.go):
//	    words with their leading space, single digits, punctuation runs, whitespace runs. No token
//	    crosses a piece boundary.
//	 4. Each piece is taken as UTF-8 bytes. Each byte is a token of its own (the vocabulary has all
//	    256; ByteToRune is how their names are spelled: space is "Ġ", newline "Ċ").
//	 5. BPE (bpe.go) merges adjacent tokens, always the pair with the lowest rank in the merge list
//	    (151,387 merges), until no pair can merge: "w o r l d" -> ... -> "world".
//
// Decode reverses it: ids -> the bytes they stand for -> UTF-8 text (bad sequences become U+FFFD,
// as in Python). Special tokens (the "<|...|>" control tokens, but NOT <think> and </think>) can be
// skipped. StreamDecoder does the same one id at a time for a generation loop: it holds back a
// character whose bytes are split between tokens (emoji often are) until it is complete.
//
// # Why bytes, and why split first
//
// A vocabulary has to cover every text a user can type. Early neural models used one token per
// word and mapped the rest to <unk>: a name, a typo or a new word became the same unknown token,
// and its meaning was lost (the problem Sennrich et al., 2016, "Neural Machine Translation of Rare
// Words with Subword Units", set out to solve with BPE on characters). Subword vocabularies built
// on characters still need an answer for a character they never saw, and Unicode 15.0 assigns
// 149,186 graphic and format characters (notebook 02 counts them with Go's unicode tables):
// WordPiece (BERT; google-research/bert, tokenization.py, WordpieceTokenizer) maps it to [UNK],
// and so does SentencePiece unless it is trained with
// byte_fallback, which spells an unknown character as its UTF-8 bytes, tokens <0x00>..<0xFF>
// reserved in the vocabulary (LLaMA's tokenizer does that: Touvron et al., 2023, section 2.1).
// GPT-2's byte-level BPE (Radford et al., 2019, section 2.2) starts from the bytes instead: any
// string is a sequence of UTF-8 bytes, and every one of the 256 byte values is a token, so nothing
// is ever unknown, and no fallback is needed. The merges then make common
// byte sequences single tokens, and rare text simply stays longer. In Example_noUnknownTokens a
// cuneiform sign (4 bytes: f0 92 80 80) becomes two tokens, one for three bytes and one for the
// last, and decodes back to itself. The price: rare scripts and emoji cost several tokens per
// character, and a token may end in the middle of a character (hence StreamDecoder).
//
// The pre-tokenizer's split is the other half. BPE learns its merges from pair counts in the
// training text; without a split it spends vocabulary entries on "dog.", "dog!" and "dog?" (GPT-2's
// own observation, Radford et al., 2019, section 2.2, which made it "prevent BPE from merging
// across character categories") and on pairs across word boundaries, and numbers merge into
// arbitrary chunks. Qwen's regular expression cuts words (with one leading space), single digits,
// punctuation runs and whitespace before the merges are learned or applied, so no token crosses
// those boundaries. Splitting numbers into single digits is Qwen's choice "following Touvron et al."
// (Bai et al., 2023, "Qwen Technical Report", section 2.2; Qwen3 uses the same tokenizer, its
// report's section 2): the vocabulary has no "20" at all, every number is spelled digit by digit,
// and 2024 and 2025 differ in one token. Since the merges were learned on split text, the split is part of the
// tokenizer's definition. BPE run on the unsplit text (MergeStep until nothing merges, in
// Example_noUnknownTokens) gives other ids than the model was trained on:
//
//	"a  b"      split [a Ġ Ġb]           unsplit [a ĠĠ b]
//	"   The"    split [ĠĠ ĠThe]          unsplit [ĠĠĠ The]
//
// The split gives the last space of a run to the word after it (\s+(?!\S)), so the word is
// "Ġb" and "ĠThe", the spelling it has after a single space, whatever the indentation before it.
//
// # Choices, and why
//
// The pre-tokenizer is a hand-written scanner, not a regular expression. Go's regexp (RE2) has no
// lookahead, and the pattern needs one: \s+(?!\S) means "a whitespace run, minus its last
// character when a non-space follows" (that space then leads the next word, " world"). The scanner
// tries the seven alternatives in order at each position, as a backtracking engine would, and is
// short enough to read next to the pattern; it needs no dependency (github.com/dlclark/regexp2
// could run the pattern as is) and keeps a backtracking engine out of the hot path.
//
// BPE uses a linked list of symbols and a min-heap of candidate pairs ordered by (rank, position):
// O(n log n) per piece, where rescanning for the best pair after each merge is O(n²) (pieces of
// thousands of bytes happen: long runs of spaces or of symbols). MergeStep is that simple
// rescanning version; the tests check that both always agree. Pieces up to 64 bytes are cached,
// since words repeat.
//
// The chat template is a faithful Go rendering of Qwen3's Jinja template, not a Jinja engine.
// A Jinja interpreter able to run it (namespaces, slicing, string methods, filters) would be a
// project of its own and would hide the format behind the template language; the format itself is
// under a hundred lines of Go (chat.go) that say what the model sees. The cost is that another template
// needs new code. Tool definitions (the "tools" argument) and assistant tool_calls are not
// rendered; tool responses are.
//
// # A worked example by hand
//
// Example_byHand builds a vocabulary of the 256 byte tokens (id = the byte value) and five merges,
// ranks 0 to 4: "l o", "lo w", "e r", "Ġ low", "low er" (ids 256 to 260). Encode "lower low":
//
//	pieces        "lower", " low"           (the space leads the second word)
//	"lower"       [l o w e r]  = [108 111 119 101 114]
//	rank 0 l+o    [lo w e r]
//	rank 1 lo+w   [low e r]
//	rank 2 e+r    [low er]                   ("Ġ low", rank 3, has no Ġ to apply to)
//	rank 4        [lower]      = [260]
//	" low"        [Ġ l o w] -> [Ġ lo w] -> [Ġ low] -> [Ġlow] = [259]
//
// At every step the pair of lowest rank anywhere in the piece merges, not the leftmost pair.
// "lowest" stops at [low e s t]: no merge joins e and s. And "é", which no merge mentions, is
// its two UTF-8 bytes c3 a9, spelled "Ã" and "©": [195 169].
//
// # Gotchas (each has a test)
//
//   - Contractions are case-insensitive with Unicode case folding: "'S", "'LL" and even "'ſ" (long
//     s) match (?i:'s|...).
//   - Digits are single pieces: "2024" is four tokens.
//   - \s is Unicode White_Space: U+0085 and U+00A0 are spaces, U+001C is not; only \r and \n are
//     newlines for the regex.
//   - Invalid UTF-8 given to Encode is first replaced as Python's bytes.decode("utf-8", "replace")
//     would (one U+FFFD per maximal invalid subsequence), since Hugging Face only sees valid
//     strings. Decode uses the same rule, which is not strings.ToValidUTF8's.
//   - Unicode versions: Hugging Face's regex engine knows Unicode 16.0 letters and digits, Go's
//     unicode package 15.0 (unicode_versions.go adds the difference), and Hugging Face's NFC tables
//     are older than both (Unicode 9-era combining classes). x/text's NFC also inserts U+034F after
//     30 combining marks, which Hugging Face does not. normalize.go reproduces Hugging Face.
//   - Decode of an unknown id (outside the vocabulary, or one of the 267 "[PAD...]" filler ids
//     151669..151935 of the embedding matrix) is an error; Hugging Face silently drops it.
//   - From a GGUF file (FromGGUF), llama.cpp's converter (convert_hf_to_gguf.py) has marked every
//     added token that looks like "<|...|>" as a control token, <|fim_*|>, <|repo_name|> and
//     <|file_sep|> included, so Decode(ids, true) skips them; tokenizer.json does not call them special.
//     Encoding is identical.
//   - No BOS token is added. The chat template has no default system prompt. enable_thinking=false
//     ends the prompt with an empty "<think>\n\n</think>\n\n"; reasoning of assistant turns before
//     the last user query is dropped.
//
// # Exercises
//
// `go run ./scripts/exercise 02` copies this chapter to workspace/02_tokenizer with two functions
// stubbed. Write them in this order:
//
//  1. [ByteToRune] (bytelevel.go; easy, 15 min): the byte-to-unicode table; nearly every test needs
//     it.
//  2. [Tokenizer.MergeStep] (bpe.go; medium, 25 min): one BPE step, the adjacent pair of lowest
//     rank (the leftmost of equal ones); a test checks that the fast heap BPE agrees with it
//     everywhere.
//
// Then `go test ./workspace/02_tokenizer/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (the leftmost pair instead of the lowest rank, the soft hyphen kept as itself ...).
//
// # Check your understanding
//
//  1. Why can byte-level BPE never meet an unknown token? At most how many tokens can a piece of
//     n bytes become?
//  2. With the five merges of the worked example, encode "slow" by hand.
//  3. Why is "2024" four tokens, and what does a model doing arithmetic gain from it?
//  4. Into which pieces does the pre-tokenizer cut "a  b" (two spaces), and why does the second
//     space go with the b?
//  5. A tokenizer that gets one id in a thousand wrong still decodes to the right text. Why is it
//     still wrong?
//
// Answers.
//
//  1. Every one of the 256 byte values is a token, and any text is a sequence of bytes; merges
//     only ever shorten it. At most n tokens, one per byte, when no merge applies.
//  2. One piece, "slow": [s l o w] -> rank 0 -> [s lo w] -> rank 1 -> [s low], ids [115 257].
//     No merge joins s with low ("Ġ low" needs a space).
//  3. The pre-tokenizer makes every digit its own piece, so no merge can join digits (the
//     vocabulary has no "20"). Every number is spelled the same way, digit by digit, aligned
//     with its place values; a vocabulary of learned chunks would split 2024 and 2025 differently.
//  4. "a", " ", " b": a whitespace run gives its last space to the word that follows (\s+(?!\S)),
//     so the word is "Ġb", spelled as after a single space, as in training. Without the split,
//     BPE gives [a ĠĠ b] (Example_noUnknownTokens).
//  5. The model was trained on one tokenization of each text. Another sequence of ids that
//     decodes to the same text is input it has rarely or never seen, and its predictions change
//     (the golden tests therefore demand every id, not the text).
package tokenizer
