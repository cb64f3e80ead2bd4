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
// twenty lines of Go (chat.go) that say what the model sees. The cost is that another template
// needs new code. Tool definitions (the "tools" argument) and assistant tool_calls are not
// rendered; tool responses are.
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
//   - From a GGUF file (FromGGUF), llama.cpp has marked <|fim_*|>, <|repo_name|>, <|file_sep|> as
//     control tokens, so Decode(ids, true) skips them; tokenizer.json does not call them special.
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
//  1. [ByteToRune] (bytelevel.go; easy, 15 min): the byte-to-unicode table; nearly every test needs it.
//  2. [Tokenizer.MergeStep] (bpe.go; medium, 25 min): one BPE step, the adjacent pair of lowest rank (the
//     leftmost of equal ones); a test checks that the fast heap BPE agrees with it everywhere.
//
// Then `go test ./workspace/02_tokenizer/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (the leftmost pair instead of the lowest rank, the soft hyphen kept as itself ...).
package tokenizer
