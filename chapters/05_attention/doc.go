// Package attention is chapter 05 of the course: one Qwen3 attention layer, causal grouped-query
// attention with QK-norm and rotary positions, built from chapters 03 (RMSNorm) and 04 (RoPE).
//
// # The problem
//
// Each token must gather what it needs from the tokens before it. Attention lets every token ask
// a question (its query), compare it with every earlier token's label (its key), and take a
// weighted mix of their contents (their values), the weights saying how well each key answers.
//
// # The formula, for a prompt of seq tokens (one row each, x is seq x Hidden)
//
//	q = x Qᵀ  (seq x Heads·HeadDim)     k = x Kᵀ, v = x Vᵀ  (seq x KVHeads·HeadDim)
//	q_h, k_g = RMSNorm over each head's HeadDim values (q_norm, k_norm: "QK-norm", chapter 03)
//	q_h, k_g = RoPE at each token's absolute position (chapter 04); v is neither normed nor rotated
//	P_h = softmax_rows( q_h k_gᵀ / √HeadDim + M )        seq x seq, one per query head h
//	out = concat_h(P_h v_g) Oᵀ                           seq x Hidden
//
// where g = h / (Heads/KVHeads) and M is the causal mask: 0 where key j <= query i, -Inf where
// j > i, so that a token never sees the future and softmax gives future keys probability exactly 0.
//
// # Why each piece is there
//
// Why divide by √HeadDim (Vaswani et al., 2017, section 3.2.1 and its footnote 4). If the entries
// of q and k have mean 0 and variance 1, q·k is a sum of HeadDim such products, with variance
// HeadDim: its spread is √128 = 11.3 in Qwen3. Softmax of
// scores that far apart puts nearly all the weight on the largest, and its gradient towards every
// other key nearly vanishes, so a head that starts out saturated hardly learns. Example_scale
// measures it on random vectors: with 16 keys the largest probability averages 0.90 unscaled at
// head_dim 128 (0.69 at 16) and 0.25 scaled at both. Dividing by √HeadDim, not by HeadDim, brings
// the spread back to 1 whatever the width; HeadDim (128), not Hidden/Heads (64), is the width of
// the dot product.
//
// Why several heads rather than one wide one. A head's output is one weighted mix of values: one
// softmax, one distribution over the earlier tokens. A token often needs several things at once
// (the previous word, the subject of the sentence, the opening bracket), and one distribution can
// only average them. Sixteen heads of 128 cost the same multiplications as one head of 2048 (the
// projections are the same matrices, cut into slices), but give sixteen distributions. In the
// worked example two heads read the same two tokens and pick different ones.
//
// Why a token must not see the future. The model is trained to predict token t+1 at every
// position t of a text at once; if position t could attend to t+1, it would copy the answer and
// learn nothing it can use when generating, where the next token does not exist yet. The mask
// makes training honest and makes the output of token t depend on tokens 0..t only, which is
// also what lets chapter 08 cache it. The worked example changes token 1's key and value: token
// 0's output stays [10 0 10 0]; without the mask it becomes [-6.94 2.99 -6.99 3.00].
//
// Why QK-norm, and why before RoPE. Qwen3 normalizes every head of q and k (chapter 03) "to
// ensure stable training" (Qwen3 Technical Report, 2025, section 2, where it replaces Qwen2's QKV
// bias): a normalized head has a bounded length, so no score can grow without bound while the
// projections' weights do. The order matters because of the learned weight. RoPE turns each pair
// (i, i+d/2) by a rotation, which keeps a head's RMS, so with a weight of ones norm and rotation
// commute; the learned q_norm and k_norm weights stretch element i and element i+d/2 by different
// amounts, and a stretch applied after the rotation lands on angles that depend on the absolute
// position. q·k is then no longer a function of the distance alone, the property that lets a
// cached key stay as it is (chapter 04). Example_normBeforeRoPE measures it on one head of 8: at
// distance 2, anywhere from positions (5, 3) to (1005, 1003), norm-then-RoPE gives one score
// (-8.7157), RoPE-then-norm anything from -10.2807 to -7.5206.
//
// Why values are not rotated. Positions should decide where a query looks, not what it reads.
// Rotating q and k makes the scores, and so the probabilities, depend on distances only; a value
// is then read as it was written. Rotate the values too and what a token reads depends on where the
// tokens sit: Example_rotatedValues moves three tokens 100 positions further, which changes
// nothing (below 1e-12) with q and k rotated, and changes the output by 4.95, more than the largest
// output value (4.71), with v rotated as well.
//
// Why no biases. Qwen2's q_proj, k_proj and v_proj had biases (transformers'
// models/qwen2/modeling_qwen2.py: bias=True); Qwen3 removed them (the same report, section 2), as
// LLaMA (llama/model.py: bias=False everywhere) and PaLM ("No biases were
// used in any of the dense kernels or layer norms. We found this to result in increased training
// stability for large models", Chowdhery et al., 2022, section 2) had before it. Size is not the
// reason: Qwen2's biases on Qwen3-0.6B's shapes would be 28 x (2048 + 1024 + 1024) = 114,688
// numbers, 0.02% of the model. What they would add is little. Example_attentionBiases: a key bias
// adds the same q·b to every score of a query's row, which softmax ignores (the probabilities
// change by 0); with RoPE it becomes a fixed preference by distance (up to 0.46 of probability
// moves), where the rotated queries and keys already give the scores their dependence on
// distance. A value bias adds exactly b to every
// context row, one vector for every token whatever it read, the same as a constant added after
// o_proj. A query bias is the one that adds something of its own: b·k_j, the same preference for
// key j whatever the query asks, which q_proj's weights cannot produce from the input alone.
// Qwen3 gave that up too; the reason the report (and PaLM) give is training stability, not what
// the biases could express.
//
// What came before. The original Transformer (Vaswani et al., 2017, section 3.2) had multi-head
// attention with as many key/value heads as query heads (MHA), no normalization of q and k, and
// positions added to the input (chapter 04). Multi-query attention (one
// KV head for all: Shazeer, 2019, "Fast Transformer Decoding: One Write-Head is All You Need";
// PaLM uses it) is the extreme; grouped-query attention (Ainslie et al., 2023) keeps all the query
// heads but shares each key/value head between a group of them. Normalizing q and k before their
// dot product was proposed by Henry et al. (2020, "Query-Key Normalization for Transformers");
// among Qwen models it is new in Qwen3.
//
// # Shapes in Qwen3-0.6B
//
// Hidden 1024, 16 query heads, 8 KV heads, HeadDim 128. So q is 2048 wide and k, v are 1024 wide:
// HeadDim is NOT Hidden/Heads (that would be 64), and o_proj maps 2048 back to 1024.
//
// # Grouped-query attention
//
// Keys and values cost memory in the KV cache (chapter 08), so Qwen3 keeps only 8 KV heads for
// its 16 query heads: consecutive query heads share one, h / 2. Query heads 0 and 1 read KV head
// 0, heads 14 and 15 read KV head 7 (KVHead). The tempting h % 8 pairs head 1 with KV head 1:
// same shapes, wrong numbers, and the golden tests catch it.
//
// What it saves: half the cache (chapter 08's Example_gqa counts 114,688 bytes per token in
// BF16 against 229,376 with 16 KV heads: 3.8 GB instead of 7.5 GB at 32,768 tokens) and half of
// k_proj and v_proj. What it gives up: the two query heads of a group can weigh the tokens
// differently but must read the same keys and the same values. They cannot look for two
// different features of a token, or read two different parts of its content, the way two full
// heads could; in the worked example both heads get the same values [10 0] and [0 10] and
// differ only in how they mix them. The GQA paper (Ainslie et al., 2023, Table 1: T5-XXL converted
// from MHA and trained on for 5% of its pre-training) measured an average score of 47.2 for MHA,
// 47.1 for 8 KV groups and 46.6 for one (MQA), at 1.51, 0.28 and 0.24 s per sample; Qwen3 takes the
// middle.
//
// # Gotchas
//
//   - QK-norm comes before RoPE, on each head separately, with weights shared by all heads.
//   - The scale is 1/√HeadDim = 1/√128, not 1/√(Hidden/Heads).
//   - Softmax subtracts each row's maximum before exponentiating (Softmax), and a row's
//     probabilities sum to 1 over the visible keys only.
//   - With a KV cache the queries of a new chunk come after past cached keys: the mask becomes
//     Mask(nq, nk, past), and Attend takes the cached keys and values as they are (RoPE was applied
//     when they were cached, at their own positions).
//
// # A worked example by hand
//
// Example_byHand: two tokens, two query heads of HeadDim 2 sharing one KV head, already
// projected and rotated. Token 0's key is (1, 0) and its value (10, 0); token 1's key is (0, 1)
// and its value (0, 10). Query head 0 is (2, 0) on both tokens (it looks for keys along x), head 1
// is (0, 2) (it looks along y). The scale is 1/√2.
//
//	mask       [0  -Inf]         token 0 sees itself; token 1 sees both
//	           [0     0]
//	head 0     row 1: scores (2·1 + 0·0, 2·0 + 0·1)/√2 = (1.4142, 0)
//	           softmax: e^1.4142 / (e^1.4142 + 1) = 0.8044, and 0.1956
//	           ctx = 0.8044·(10, 0) + 0.1956·(0, 10) = (8.044, 1.956)
//	head 1     row 1: scores (0, 1.4142) -> (0.1956, 0.8044) -> ctx (1.956, 8.044)
//	row 0      both heads: p = [1 0] -> ctx (10, 0)
//
// so ctx = [[10 0 | 10 0], [8.044 1.956 | 1.956 8.044]]. Without the scale row 1 of head 0 would
// be softmax(2, 0) = (0.8808, 0.1192): sharper, and sharper still as HeadDim grows.
//
// # Files
//
// config.go holds Config and Weights (with Check, which reports a wrong shape from a file as an
// error); attention.go holds Project (projections, QK-norm, RoPE), KVHead, Mask, Softmax, Attend
// and Forward, plus ProjectAt and AttendMask, the same with a position per row and an explicit
// mask (chapter 10 runs a padded batch through them). Tests compare Forward's output and per-head
// probabilities with transformers' Qwen3Attention (reference/golden/05_attention) at positions
// 0..6 and 3..9.
//
// # Exercises
//
// `go run ./scripts/exercise 05` copies this chapter to workspace/05_attention with five
// exercises stubbed. Write them in this order (each one's tests use only those before it; the
// golden tests of Forward need all five):
//
//  1. [Mask] (attention.go; easy, 10 min): 0 on keys up to the query's own position past+r, -Inf
//     after it.
//  2. [Softmax] (attention.go; easy, 10 min): subtract the row's maximum; -Inf must give exactly 0.
//  3. [KVHead] (attention.go; easy, 5 min): query head h reads KV head h / (heads/kvHeads).
//  4. [AttendMask] (attention.go; medium, 25 min): the heart of attention, head by head: scores
//     q k^T / sqrt(head_dim) plus the mask, a softmax per row, times v ([Attend] calls it with the
//     causal Mask).
//  5. [ProjectAt] (attention.go; hard, 40 min): q, k, v from x; QK-norm (chapter 03) then RoPE
//     (chapter 04) on q and k only, each row at its own position ([Project] calls it with positions
//     startPos, startPos+1, ...).
//
// Then `go test ./workspace/05_attention/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (the diagonal masked, past ignored, a softmax in float32, h % kvHeads, RoPE before the norm, the
// scale 1/√(Hidden/Heads) ...).
//
// # Check your understanding
//
//  1. Compute row 1 of head 1 in the worked example with no scale at all.
//  2. How many bytes does Qwen3-0.6B's KV cache take at 32,768 tokens in BF16 (28 layers, 8 KV
//     heads of 128, keys and values)? How many with 16 KV heads (MHA)? With one (MQA)?
//  3. Why is the scale 1/√128 and not 1/√64 (Hidden/Heads = 1024/16) in Qwen3?
//  4. When decoding one token at a time with a cache, the cache holds only earlier tokens. Is the
//     mask still needed? And when the prompt is prefilled?
//  5. Two query heads share a KV head. What can they still do differently, and what not?
//
// Answers.
//
//  1. Scores (0, 2): softmax = (0.1192, 0.8808), ctx = (1.1920, 8.8080).
//  2. 28 x 2 x 8 x 128 x 2 bytes = 114,688 bytes per token, x 32,768 = 3.76 GB. MHA doubles it to
//     7.5 GB; MQA divides it by 8, to 0.47 GB (chapter 08's Bytes and Example_gqa).
//  3. The scale undoes the spread of a dot product of HeadDim terms, and the dot product is as
//     wide as a head: 128. Hidden/Heads happens to be the head width in many models, not here.
//  4. A single decoded token may see every key in the cache and itself: its mask row is all 0, so
//     the mask does nothing. A prefilled prompt of n tokens is n queries at once, and each must
//     not see the ones after it: there the mask is essential (Mask(n, past+n, past)).
//  5. Each has its own queries, so its own scores and its own softmax: they can attend to
//     different tokens. They read the same keys and values, so they can neither match on different
//     features of a token's key nor read different content from it.
package attention
