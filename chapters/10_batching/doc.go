// Package batching is chapter 10 of the course: generating for several prompts at once, in one
// batch, with each prompt getting exactly the tokens it would get alone.
//
// # The problem
//
// A decode step (chapter 08) reads every weight of the model to produce one token. On a CPU that
// reading is the cost: Qwen3-0.6B streams 1.19 GB of BF16 weights per token (chapter 08's
// Example_gqa), whatever the arithmetic.
// Serving several prompts one after the other pays it once per prompt per token. Stack the new
// rows of B sequences into one matrix, (B·n) x hidden, and every linear layer, the MLP and the LM
// head read their weights once for all B rows: B tokens for the reading cost of one. Only attention
// stays per sequence, since each sequence looks at its own past. Cache.WeightPasses counts it: one
// pass per layer per step, however large the batch.
//
// But a matrix is a rectangle and prompts have different lengths. This chapter is about making the
// rectangle without changing a single real token's numbers.
//
// # Padding, and why on the left
//
// Pad fills the short prompts with a padding id up to the longest prompt's width T, and marks which
// columns are real (transformers' attention_mask). The padding can go on either side:
//
//	left:   [pad pad pad  The capital of France is]     every prompt ends in the last column
//	right:  [The capital of France is  pad pad pad]     the short prompts end in the middle
//
// Generation reads the logits of the last column and appends the new token after it, for every
// sequence at once. With the padding on the left, the last column is each prompt's last token and
// the new tokens line up in one new column. With the padding on the right, a short prompt's last
// column is a pad: its next token is predicted from a padding column (an <|endoftext|> looking
// back at the prompt) and appended after the padding, so every later token carries the gap.
// transformers warns ("A decoder-only architecture is being used, but right-padding was
// detected! ... set padding_side='left'", generation/utils.py) and goes on: in the golden data
// (Example_goldenBatch), every prompt padded on the right continues differently from the same
// prompt alone from its first new token, all but the longest, which has no padding.
// TestRightPaddingGoesWrong reproduces transformers' wrong tokens exactly.
// (Right padding is fine for a model that reads its input once, a classifier; it is generation
// that needs the left.)
//
// # The mask
//
// Padding must be invisible: no real token may attend to a padding key. Chapter 05's causal mask
// gets a second condition (Mask), for query r in column i = nk-nq+r of a sequence:
//
//	mask[r][j] = 0     if j <= i and real[j]       (an earlier or own key that is not padding)
//	           = -Inf  otherwise
//
// A left-padding query has no real key before it: its row would be all -Inf, and softmax of
// nothing is 0/0 = NaN. Nobody reads a padding row, but a NaN there is not harmless: at the next
// layer its value row is multiplied by the probability 0 that the real queries give it, and 0 ×
// NaN is NaN. So a query that would see nothing sees its own key (attention.AttendMask refuses a
// row that hides every key). transformers avoids the NaN differently: its eager attention adds the
// float32 minimum instead of -Inf (masking_utils.py, eager_mask: torch.finfo(dtype).min), so such a
// row spreads evenly over every key. The padding rows differ; the real ones are the same.
//
// With every real query blind to padding, what a padding column holds cannot matter: the tests
// write a random id in every padding column, or replace the pad token's embedding by noise, and
// every real logit stays the same to the last bit (a hidden key gets probability exactly 0).
//
// # Positions
//
// RoPE (chapter 04) must see each prompt's tokens at the positions they have alone: 0 .. n-1,
// whatever column they sit in. transformers' generate() derives them from the attention mask
// (Positions):
//
//	position_ids = cumsum(attention_mask, -1) - 1,   and 0 in padding columns
//
// (transformers 4's prepare_inputs_for_generation filled padding with 1,
// position_ids.masked_fill_(attention_mask == 0, 1); the golden run, on transformers 5, has 0; no
// real token sees it.) At each decode step a sequence's new token goes to its own next position,
// one past its last one: with left padding, its count of real tokens so far (Cache.Next), not the
// column index (Cache.Width).
//
// Counting from the column instead shifts every token of a sequence by its padding. RoPE sees only
// position differences, so the logits barely move (2e-08 relative at most on the golden batch,
// Example_columnPositions: the float32 rounding of the angle table, chapter 04), far below the
// 1e-4 golden tolerance: that mistake hides from a logits test. It is still wrong: the positions
// are not the model's, a padded prompt reaches the end of the context sooner, and far positions
// carry more rounding. The tests compare the positions themselves with transformers'.
//
// # The batched KV cache
//
// Cache keeps, for each sequence, its keys and values per layer (padding columns included), its
// real flags and its next position. Prefill runs the padded batch, T columns per sequence; Step
// feeds one token to every sequence. A step of B sequences at width W:
//
//	x       = Embed(ids)                                 B x hidden, one row per sequence
//	q, k, v = attention.ProjectAt(x, positions)          all rows in one pass over the weights
//	per sequence i: K_i, V_i = its cache + k_i, v_i      (W+1) x KVHeads·HeadDim
//	                ctx_i    = AttendMask(q_i, K_i, V_i, Mask(real_i, 1))
//	out     = ctx O^T, then chapter 07's residuals and MLP, then the LM head, all rows at once
//
// The cache holds the padding too: Σ_b (T - n_b) rows per layer that nobody looks at. Engines that
// serve many requests avoid it with ragged storage: llama.cpp puts all sequences in one KV cache
// whose cells are tagged with the ids of the sequences that use them (src/llama-kv-cells.h: a
// bitset of sequence ids per cell), and its attention mask hides the cells of other sequences
// instead of padding (src/llama-kv-cache.cpp, set_input_kq_mask); vLLM pages it (Kwon et al.,
// "Efficient Memory Management for Large Language Model Serving with PagedAttention", 2023), each
// sequence reading only its own blocks. The padded rectangle is what transformers does, and the
// clearest place to start.
//
// # Stopping each sequence on its own
//
// Generate picks a token for each sequence from its own row of logits, with its own Sampler
// (chapter 09: same settings and seed as alone, so it draws what it would draw alone). A stop
// token ends that sequence only (not emitted, as in chapter 09), and so does reaching the budget;
// a finished sequence leaves the batch (Cache.Remove), and later steps compute nothing for it.
// The loop ends when no sequence is left.
//
// transformers keeps the rectangle instead: a finished sequence stays in the batch and is fed the
// pad token every step (next_tokens * unfinished + pad_token_id * (1 - unfinished)), its output
// holds the stop token followed by pad ids, and the loop ends when every sequence has finished or
// the budget is spent (generation/utils.py, _sample). The live sequences get the same tokens
// either way; the finished ones cost work for nothing. In the golden run (Example_goldenBatch),
// three of the five prompts stop after 8, 6 and 5 new tokens (the stop token counted) and two
// run to the budget of 24.
//
// # Shapes
//
//	Batch.IDs, Batch.Real     B x T          T = the longest prompt
//	Positions                 B x T
//	Mask(real, nq)            nq x nk        nk = the sequence's columns so far
//	stacked rows of a step    (B·n) x hidden n = T at prefill, 1 at a step
//	cache, per sequence/layer (T + steps) x KVHeads·HeadDim, keys and values
//	Prefill, Step             B logits rows of vocab values (each sequence's last column)
//
// # Gotchas
//
//   - Right padding generates garbage with no error; only the last column being a pad gives it away.
//   - Qwen3's pad token <|endoftext|> is also a stop token. transformers infers the attention
//     mask from the pad id only when the pad is not a stop token (generation/utils.py,
//     _prepare_attention_mask_for_generation), so generate(input_ids) on a padded Qwen3 batch
//     without attention_mask warns and attends to the padding, so a short left-padded prompt can
//     continue differently from the same prompt alone. Always pass the mask; here it is
//     Batch.Real, and the pad id itself does not matter.
//   - A padding query that sees nothing needs a rule (its own key here), or NaN reaches real tokens
//     through 0 × NaN.
//   - Positions counted from the column are a uniform shift per sequence: invisible in the logits,
//     wrong all the same.
//   - A finished sequence must stop emitting on its own; it must not stop the others.
//
// # Proving it
//
// The golden data (reference/golden/10_batching) is transformers' batched greedy generate() on
// five prompts of 4, 1, 13, 10 and 5 tokens (Example_goldenBatch), left-padded with an attention
// mask, with two extra stop ids so that sequences stop at different steps; the same prompts
// generated alone; the mask, the position ids and the logits of every column and step; and the
// same batch padded on the right.
// The tests check Pad, Positions and Mask against it; every real column's logits and every step's
// (1e-4, replaying transformers' fed tokens); Generate's ids against transformers' batched and
// unbatched ids, token for token; the right-padded run against transformers' right-padded run; and
// the properties: padding invisible to the last bit, batched logits equal to chapters 07 and 08
// run on each prompt alone (bit-identical here), sampled batches equal to sampled prompts alone,
// one weight pass per layer per step, a leaving sequence changing nothing for the others.
//
// # In the engine
//
// Package qwen3 does the same without a rectangle: qwen3.Batch steps one token of several
// qwen3.Caches (each one sequence's KV cache) in one forward pass, each token at its own position
// and attending to its own cache, so there is no padding and no padding mask to get wrong; the
// weight passes are shared, as Cache.Step shares them here. qwen3.GenerateBatch is Generate above,
// with prompts prefilled one by one and per-sequence callbacks; its test checks the same golden
// ids.
//
// Here and in qwen3.Batch, a sequence's logits in a batch are exactly those it gets alone
// (TestBatchedEqualsAlone; qwen3.Batch.Step's doc and test: bit for bit), so a sampled sequence
// draws the same text whatever the batch around it (TestSampledBatchEqualsAlone). That is a
// choice, not a law: a kernel that sums in another order when the batch is larger gives other
// logits in the last bits, and sampled text that depends on what else the server is running
// (chapter 09, "When the same seed gives other text").
//
// # A worked example by hand
//
// Example_byHand: prompts [1 3 2] and [4] over a vocabulary of 5, padded on the left with id 0, on a
// small random model (2 layers):
//
//	ids        [1 3 2]   [0 0 4]
//	real       [T T T]   [F F T]
//	positions  [0 1 2]   [0 0 0]       cumsum(real) - 1, and 0 in padding columns
//
//	mask of sequence 0        mask of sequence 1
//	[0    -Inf -Inf]          [0    -Inf -Inf]   a padding query that sees no real key sees itself
//	[0    0    -Inf]          [-Inf 0    -Inf]   the same
//	[0    0    0   ]          [-Inf -Inf 0   ]   token 4 sees only itself: both pads are hidden
//
// Prefill reads every layer's weights once for both sequences, and a Step of tokens [2 1] once
// more: 4 weight passes for 2 layers, where running the two alone would take 8. Sequence 0's next
// position is then 4 (its column count), sequence 1's is 2 (its real tokens, not its column 4).
// And the logits of each, after the prefill and after the step, agree with chapter 07's Forward
// on [1 3 2 2] and on [4 1] alone to within 1e-12.
//
// # Exercises
//
// `go run ./scripts/exercise 10` copies this chapter to workspace/10_batching with five pieces
// stubbed. Write them in this order (each one's tests use only it and the ones above it; the
// cache's tests need the first four, Generate's all five):
//
//  1. [Pad] (pad.go; easy, 15 min): the padding on the chosen side, the pad id in it, only the
//     prompt's columns real.
//  2. [Positions] (positions.go; easy, 10 min): cumsum of the real flags minus one; 0 in padding
//     columns.
//  3. [Mask] (mask.go; medium, 20 min): -Inf for future keys and for padding keys; a query that
//     sees no key sees its own.
//  4. [Cache.Step] (cache.go; hard, 40 min): each new token at its own sequence's next position,
//     its column flagged real.
//  5. generation.pick (generate.go; hard, 35 min): each sequence's token from its own row; a stop
//     token (not emitted) or the budget ends that sequence alone, and it leaves the batch.
//
// Then `go test ./workspace/10_batching/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (padded on the right, the padding marked real, positions from the column, the padding mask
// missing, a query that sees nothing, the stop token emitted, the whole batch stopped ...).
//
// # Check your understanding
//
//  1. Pad [5 6] and [7 8 9 1] on the left with pad id 0: the ids, the real flags, the positions.
//  2. Why must a batch for generation be padded on the left, while a classifier can pad on the
//     right?
//  3. In the worked example, why does sequence 1's first padding query see its own key rather than
//     nothing, and why can that not change token 4's output?
//  4. The step positions are taken from the column (Width) instead of each sequence's count of
//     real tokens. What changes in the logits, and what test sees it?
//  5. Eight sequences decode together on Qwen3-0.6B in BF16. How many bytes of weights are read per
//     step, and per generated token?
//
// Answers.
//
//  1. ids [[0 0 5 6] [7 8 9 1]], real [[F F T T] [T T T T]], positions [[0 0 0 1] [0 1 2 3]].
//  2. Generation reads the last column's logits and appends the next token after it, for every
//     sequence at once. On the left every prompt ends in the last column; on the right a short
//     prompt's last column is a pad, and its next token is predicted from the padding. A
//     classifier reads each sequence once, at positions the mask picks; no token is appended.
//  3. A row of -Inf only has no softmax (0/0 = NaN), and a NaN value row would reach real tokens
//     at the next layer through 0 x NaN. Its own key is as good as any: the row is never read,
//     and every real query's mask hides that key (probability exactly 0).
//  4. Sequence 1's step would sit at position 3 instead of 1: a shift of 2 for that new token
//     only, while its cached keys stay at 0: its distances to them are wrong, and its logits
//     differ from the prompt run alone. TestStepsGolden and TestBatchedEqualsAlone see it. Had
//     the prefill counted from the column too, the shift would be uniform per sequence and no
//     logit would move (the package doc's "Positions"); the positions test compares them with
//     transformers' position_ids directly.
//  5. About 1.19 GB of BF16 matrices per step, whatever the batch (Cache.WeightPasses: one pass
//     per layer per step); per generated token 1.19 / 8 = 0.15 GB. Attention's reads of each
//     sequence's own cache do not shrink.
package batching
