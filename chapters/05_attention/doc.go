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
// `go run ./scripts/exercise 05` copies this chapter to workspace/05_attention with four
// functions stubbed. Write them in this order (Attend, given, uses the first three; the golden
// tests of Forward need all four):
//
//  1. [Mask] (attention.go; easy, 10 min): 0 on keys up to the query's own position past+r, -Inf after it.
//  2. [Softmax] (attention.go; easy, 10 min): subtract the row's maximum; -Inf must give exactly 0.
//  3. [KVHead] (attention.go; easy, 5 min): query head h reads KV head h / (heads/kvHeads).
//  4. [ProjectAt] (attention.go; hard, 40 min): q, k, v from x; QK-norm (chapter 03) then RoPE (chapter 04) on q and k only, each
//     row at its own position ([Project] calls it with positions startPos, startPos+1, ...).
//
// Then `go test ./workspace/05_attention/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (the diagonal masked, past ignored, h % kvHeads, RoPE before the norm ...).
package attention
