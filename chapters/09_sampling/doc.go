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
// falls into loops. Qwen's model card says it plainly: do NOT use greedy decoding in thinking mode.
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
//     logits, the stable sort removes the lower ids first.
//   - Min-p: drop tokens with p_i < min_p · max_j p_j: a floor that rises with the model's
//     confidence.
//
// # The order
//
// transformers' generate() applies them in this order, each on the previous one's output:
// temperature, top-k, top-p, min-p (Warp). The order matters: top-p measures mass after
// temperature and top-k have reshaped the distribution, so T=0.6 then top_p=0.95 keeps fewer
// tokens than top_p=0.95 on the raw logits. Distribution is softmax(Warp(z)). Every warper here is
// checked against transformers' own on reference/golden/09_sampling: the same -Inf positions
// exactly, and the kept values within 1e-5.
//
// # Qwen3's settings
//
// Thinking mode (generation_config.json): T=0.6, top_p=0.95, top_k=20, min_p=0 (QwenThinking).
// Non-thinking mode (model card): T=0.7, top_p=0.8, top_k=20, min_p=0 (QwenNonThinking).
// Never greedy in thinking mode.
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
// # Shapes
//
// Every function works on one logits vector []float64 of length vocab and returns a new vector of
// the same length; the input is never modified.
//
// # Gotchas
//
//   - top_p = 0 is invalid (transformers' generate rejects it too); use 1 to switch top-p off.
//     That makes the zero Settings invalid on purpose: start from Greedy() or QwenThinking(seed).
//   - top-p on ties depends on the sort order: "the smallest set" is not unique, and transformers'
//     stable ascending sort decides which tied tokens go.
//   - Softmax without subtracting the maximum overflows for logits around 710 and above.
//   - A filtered logit must be -Inf, not a large negative number, or its probability is not 0.
//
// # Exercises
//
// `go run ./scripts/exercise 09` copies this chapter to workspace/09_sampling with three functions
// stubbed. Write them in this order:
//
//  1. [Softmax] (warp.go; easy, 10 min): subtract the maximum, exponentiate, divide by the sum.
//  2. [TopP] (warp.go; hard, 30 min): transformers' nucleus filter: sort ascending (stable), cumulate the
//     probabilities, drop every token whose cumulative sum is <= 1-p, keep the most likely.
//  3. [Draw] (sample.go; medium, 15 min): the first index whose cumulative probability exceeds u, never one of
//     probability 0.
//
// Then `go test ./workspace/09_sampling/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (no maximum subtracted, < for <=, the token that crosses p dropped, u <= c_i ...).
package sampling
