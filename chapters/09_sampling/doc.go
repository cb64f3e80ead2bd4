// Package sampling is chapter 09 of the course: turning the model's logits into the next token,
// and the loop that generates text one token at a time.
//
// # The problem
//
// The forward pass (chapter 07) and the KV cache (chapter 08) give, after each token, a vector
// of logits z with one score per vocabulary entry (151,936 for Qwen3). Something must pick the
// next token from it, feed it back, and stop at the right time.
//
// # Greedy versus sampling
//
// Greedy decoding takes argmax(z): deterministic, and what transformers' generate(do_sample=False)
// does, so it is how chapter 07/08 are checked token for token against the reference. But always
// taking the single most likely token makes text bland and, in long outputs, repetitive: the model
// falls into loops. Qwen's model card says it plainly (Qwen3-0.6B's model card, "Best Practices"):
// for thinking mode, do NOT use greedy decoding, which "can lead to performance degradation and
// endless repetitions".
// Sampling instead draws the token at random from the model's distribution p = softmax(z):
//
//	p_i = exp(z_i - m) / Σ_j exp(z_j - m),  m = max_j z_j   (subtracting m avoids overflow)
//
// # Shaping the distribution
//
// Raw p gives too much total mass to the long tail of unlikely tokens. Four warpers reshape the
// logits before the draw; a filtered token gets -Inf (transformers' filter_value), so softmax
// gives it probability exactly 0.
//
//   - Temperature T: z/T. softmax(z/T)_i ∝ p_i^(1/T): T < 1 sharpens towards the argmax, T > 1
//     flattens towards uniform. It divides the LOGITS, not the probabilities: dividing p by T
//     would change nothing after renormalising. As T -> 0 all mass goes to the argmax, so here
//     Temperature 0 means greedy.
//   - Top-k: keep the k largest logits. Like transformers (torch.topk), everything >= the k-th
//     largest value stays, so ties at the boundary can keep more than k.
//   - Top-p (nucleus): keep the smallest set of most likely tokens whose probability adds up to at
//     least p. transformers sorts ASCENDING, cumulates the probabilities and removes every token
//     whose cumulative sum is <= 1-p, always keeping the most likely one. Equivalently, a token is
//     kept when the mass ranked above it is < p. When the cut falls inside a group of tied
//     logits, this package's stable sort removes the lower ids first; transformers calls
//     torch.sort without stable=True, which leaves tied logits in index order only in short rows
//     (up to 16 values with torch 2.15 on a 2-vCPU AMD EPYC, measured 2026-11-27), so on a real
//     vocabulary which tied tokens it drops is not defined.
//   - Min-p: drop tokens with p_i < min_p · max_j p_j: a floor that rises with the model's
//     confidence.
//
// # When each filter helps
//
// Every filter cuts the tail; they differ in where they put the cut. Example_whichWarper runs
// them on two made-up distributions over 1000 tokens with a long Zipf-like tail: "open", where
// many continuations are plausible (the first token has 0.18), and "sure", the same with the
// first token far ahead (0.97). "tail" is the share of the draw that goes to tokens whose raw
// probability was below 1e-3, which in a real model is mostly nonsense:
//
//	                    open: kept  first  tail        sure: kept  first  tail
//	none                      1000  0.18   0.221             1000  0.97   0.022
//	top-k 20                    20  0.31   0.000               20  0.99   0.007
//	top-p 0.9                  349  0.20   0.134                1  1.00   0.000
//	min-p 0.05                  15  0.34   0.000                1  1.00   0.000
//	T 1.5                     1000  0.05   0.512             1000  0.59   0.374
//	T 1.5, top-p 0.9           713  0.05   0.458              432  0.66   0.304
//	T 1.5, min-p 0.05           59  0.13   0.000                1  1.00   0.000
//
// What each row says:
//
//   - Top-k (Fan et al., "Hierarchical Neural Story Generation", 2018) keeps a fixed number
//     whatever the shape: it bounds the worst case cheaply, but keeps 19 unlikely tokens when the
//     model is sure (0.7% of the draws go to the tail) and can cut plausible ones when it is not.
//   - Top-p (Holtzman et al., 2019, "The Curious Case of Neural Text Degeneration") adapts to the
//     shape: one token when the model is sure, many when it is not. But a long tail adds up:
//     with 0.9 of the mass spread thin, it keeps 349 tokens and 13% of the draws come from the
//     tail, and after a high temperature (which flattens everything) it keeps 713.
//   - Min-p (Nguyen et al., "Turning Up the Heat: Min-p Sampling for Creative and Coherent LLM
//     Outputs", 2024) cuts relative to the most likely token: keep p_i >= min_p · p_max.
//     It adapts like top-p, one token when sure, but cannot be flooded by a flat tail: 15 tokens
//     in the open case, and still 59 with no tail at T = 1.5, which is why it pairs well with
//     high temperatures for varied but sane text.
//   - Temperature is not a filter: it reshapes everything, and alone at 1.5 sends half the draws
//     to the tail. Below 1 it sharpens; Qwen's 0.6 to 0.7 with top-k 20 and top-p 0.8 to 0.95
//     combine a mild sharpening with two cuts.
//
// Before sampling filters, generation was greedy or beam search (keep the k best sequences by
// total probability): both pick the likeliest text, which for open-ended generation is bland and
// loops ("the the the", repeated sentences); pure sampling avoids the loops but draws from the
// tail often enough to derail (Holtzman et al. 2019 show both failures). The filters
// keep sampling's variety without its tail.
//
// # The order
//
// transformers' generate() applies them in this order, each on the previous one's output:
// temperature, top-k, top-p, min-p (Warp; transformers' generation/utils.py,
// _get_logits_processor, appends them in that order). The order matters: top-p measures mass after
// temperature and top-k have reshaped the distribution, so T=0.6 then top_p=0.95 keeps fewer
// tokens than top_p=0.95 on the raw logits. Distribution is softmax(Warp(z)). Every warper here is
// checked against transformers' own on reference/golden/09_sampling: the same -Inf positions
// exactly, and the kept values within 1e-5.
//
// # Qwen3's settings
//
// Thinking mode (generation_config.json, and the model card's "Best Practices"): T=0.6,
// top_p=0.95, top_k=20, min_p=0 (QwenThinking). Non-thinking mode (the model card): T=0.7,
// top_p=0.8, top_k=20, min_p=0 (QwenNonThinking). Never greedy in thinking mode.
//
// # Reproducible randomness
//
// A Sampler owns its random generator: math/rand/v2's PCG seeded from Settings.Seed. Drawing is
// inverse-transform sampling: one uniform u in [0,1), then the first token whose cumulative
// probability exceeds u (Draw). The same seed and the same logits give the same tokens on every
// run and machine; there is no global random state. (The numbers differ from torch.multinomial's,
// which uses its own generator: sampled text cannot be compared with transformers token for token,
// only in distribution — hence the chi-square test — while greedy text can.)
//
// # The loop
//
// Generate: Prefill(prompt) -> logits; repeat { pick a token; stop if it is a stop token
// (<|im_end|> 151645 or <|endoftext|> 151643 by default; it is not emitted); hand it to the
// callback; stop at the budget; Step(token) -> logits }. It also stops when the context is
// cancelled, when the callback returns an error, and when the model reports that the context
// length is exceeded; those errors are returned wrapped, with the tokens generated so far.
// GenerateText adds the tokenizer (chapter 02): it encodes the prompt and streams the reply as
// text, holding back a character split across tokens until its last byte arrives.
//
// # Why two stop tokens
//
// Qwen's generation_config.json stops on two ids, eos_token_id [151645, 151643]: <|im_end|> and
// <|endoftext|>. They end different things (Qwen's documentation, "Key Concepts", Control
// Tokens: QwenLM/Qwen2.5 docs/source/getting_started/concepts.md). <|endoftext|> is the end of a
// document: pre-training packs many documents into one sequence with <|endoftext|> between them.
// <|im_end|> is the end of a turn: the chat template (ChatML) appends it to every message, and
// tokenizer_config.json names it the eos token because most frameworks stop on one eos. A chat
// reply ends with <|im_end|>; a plain continuation, with no template, ends where a document would,
// with <|endoftext|>. Stop on only one, and the other runs on: after <|endoftext|> a model begins
// the next document, which has nothing to do with the prompt. The tiny model of this course was
// trained on Go files that each end with <|endoftext|> (scripts/train_tiny.py) and never saw
// <|im_end|>; notebook 09 shows it greedily writing <|endoftext|> after the end of a file, and,
// when only <|im_end|> stops it, going on into the next file's "// Copyright" header.
//
// # When the same seed gives other text
//
// The seed fixes the uniform numbers the Sampler draws, nothing else. The token drawn is the first
// whose cumulative probability passes u, so anything that moves the logits, even in the last bit,
// can move a boundary across u and change one token, and every token after it. The same seed
// gives the same text only for the same logits, bit for bit: the same weights, the same precision
// (this chapter's float64 and the qwen3 engine's float32 differ), the same order of every sum
// (a kernel that splits a dot product across threads, or a batch of sequences, differently), the
// same way of feeding the prompt (one chunk or token by token) and the same KV cache type.
// Notebook 11 measures each of these on the engine. Engines whose kernels change their
// reduction order with the batch size give other text for the same request depending on what else
// the server is doing: He and Thinking Machines Lab ("Defeating Nondeterminism in LLM Inference",
// 2025) report 80 different completions in 1,000 runs of one prompt at temperature 0 on
// Qwen3-235B-A22B in vLLM, and one with batch-invariant kernels. Chapter 10's batches and the
// qwen3 engine's compute each sequence's row exactly as they would alone (TestBatchedEqualsAlone,
// and qwen3.Batch's test), so there the batch size does not change the text.
//
// # Where a prompt ends
//
// The model learned which token follows which where the training text had a token boundary. A
// prompt that stops inside what the text writes as one token ends on a token rarely seen there:
// Go writes " {" and its newline as one token, so "func main() {" ends on " {", after which the
// tiny model's most likely next token is " return", the start of a one-line body; a prompt ending
// in a space ends on the lone-space token that Qwen's tokenizer keeps before digits, and the tiny
// model then expects a digit. Heal and HealMask implement token healing (the guidance library's
// method: guidance-ai/guidance,
// notebooks/art_of_prompt_design/prompt_boundaries_and_token_healing.ipynb): back the prompt up by
// its last token and let only tokens that start with its text compete for the first place.
// Notebook 09 prints the probabilities with and without.
//
// # Shapes
//
// Every function works on one logits vector []float64 of length vocab and returns a new vector of
// the same length; the input is never modified.
//
// # Gotchas
//
//   - top_p = 0 is invalid here: the smallest set of tokens with mass 0 is empty. (transformers'
//     TopPLogitsWarper lets it through and keeps min_tokens_to_keep, one token, though its own
//     error message says top_p must be > 0: logits_process.py.) Use 1 to switch top-p off.
//     That makes the zero Settings invalid on purpose: start from Greedy() or QwenThinking(seed).
//   - top-p on ties depends on the sort order: "the smallest set" is not unique. Here the stable
//     ascending sort decides which tied tokens go (lower ids first); transformers' unstable one
//     agrees on short rows (TestTiesLikeTransformers) but not on a 151,936-wide one.
//   - Softmax without subtracting the maximum overflows for logits around 710 and above.
//   - A filtered logit must be -Inf, not a large negative number, or its probability is not 0.
//
// # A worked example by hand
//
// Example_byHand: a vocabulary of five, logits z = [2 1 0 -1 -3].
//
//	softmax        e^z = [7.389 2.718 1 0.368 0.050], sum 11.524
//	                                                 -> p = [0.6411 0.2359 0.0868 0.0319 0.0043]
//	temperature 2  z/2 = [1 0.5 0 -0.5 -1.5]        -> p = [0.4387 0.2661 0.1614 0.0979 0.0360]
//	top-k 2        keep 2 and 1                      -> p = [0.7311 0.2689 0 0 0]
//	top-p 0.9      ascending cumulative 0.0043, 0.0362, 0.1230, ...: drop those <= 0.1 (tokens 4, 3)
//	                                                 -> p = [0.6652 0.2447 0.0900 0 0]
//	min-p 0.2      keep p >= 0.2 · 0.6411 = 0.128    -> p = [0.7311 0.2689 0 0 0]
//
// All together (T 0.5, top-k 3, top-p 0.9): z/0.5 = [4 2 0 -2 -6], top-k keeps [4 2 0], top-p drops
// 0 (its probability 0.0159 <= 0.1) and leaves p = [0.8808 0.1192]. Draw on the raw p: the
// cumulative sums are 0.6411, 0.8770, 0.9638, 0.9957, 1, so u = 0.1 gives token 0, 0.7 token 1,
// 0.9 token 2 and 0.99 token 3.
//
// # Exercises
//
// `go run ./scripts/exercise 09` copies this chapter to workspace/09_sampling with five functions
// stubbed. Write them in this order:
//
//  1. [Softmax] (warp.go; easy, 10 min): subtract the maximum, exponentiate, divide by the sum.
//  2. [TopP] (warp.go; hard, 30 min): transformers' nucleus filter: sort ascending (stable),
//     cumulate the probabilities, drop every token whose cumulative sum is <= 1-p, keep the most
//     likely.
//  3. [MinP] (warp.go; easy, 10 min): remove every token whose probability is below min_p times
//     the top token's: a floor that moves with the model's confidence.
//  4. [Warp] (warp.go; medium, 15 min): the filters in transformers' order, temperature on the
//     logits first, then top-k, top-p, min-p, each on the previous one's output.
//  5. [Draw] (sample.go; medium, 15 min): the first index whose cumulative probability exceeds u,
//     never one of probability 0.
//
// Then `go test ./workspace/09_sampling/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (no maximum subtracted, a softmax in float32, < for <=, the token that crosses p dropped, an
// absolute min-p floor, temperature on probabilities or after the filters, u <= c_i ...).
//
// # Check your understanding
//
//  1. With the worked example's logits, which tokens does top-p 0.5 keep? And min-p 0.05?
//  2. The model is sure (one token at 0.97). Which of top-k 20, top-p 0.9 and min-p 0.05 still
//     lets it say something unlikely, and how often?
//  3. Why does top-p keep hundreds of tokens after a temperature of 1.5, and why does min-p not?
//  4. Why divide the logits by T rather than the probabilities?
//  5. Qwen's model card warns against greedy decoding in thinking mode. What goes wrong?
//
// Answers.
//
//  1. Top-p 0.5: the ascending cumulative sums are 0.0043, 0.0362, 0.1230, 0.3589, 1; those <= 0.5
//     go, so only token 0 stays. Min-p 0.05: the floor is 0.032, so tokens 0, 1 and 2 stay (token
//     3's 0.0319 is just below).
//  2. Top-k 20: it always keeps 20, so the 19 others can still be drawn, and the tail among them
//     (raw probability below 1e-3) gets 0.7% of the draws in Example_whichWarper. Top-p and min-p
//     keep the one token.
//  3. Temperature flattens the distribution, so 0.9 of the mass needs far more tokens (713 of
//     1000). Min-p compares each token with the most likely one, whose lead shrinks with
//     temperature but still cuts the flat tail (59 kept).
//  4. softmax(z/T) = p^(1/T) renormalised: it reshapes the distribution. Dividing p by T and
//     renormalising would give p back.
//  5. Greedy text is deterministic and, in long outputs, falls into loops: the likeliest next
//     token after a repetition is often the repetition again. A long chain of thought is
//     exactly such an output.
package sampling
