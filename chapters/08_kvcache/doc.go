// Package kvcache is chapter 08 of the course: the KV cache, which turns generation from a
// quadratic recomputation into one new token's worth of work per step.
//
// # The problem
//
// Generating text means running the model, picking a token, appending it, and running again.
// Chapter 07's Forward recomputes every earlier token each time: the n-th token costs n tokens of
// work, a whole answer costs O(n²). But in a causal model nothing about token t changes when later
// tokens arrive: its keys and values at every layer are fixed once computed (RoPE rotates them by
// their own absolute position, chapter 04, which does not move either). So compute them once,
// keep them, and for each new token compute only its own row.
//
// # The formula
//
// For each layer l, with the cache holding K_l and V_l for the n tokens seen so far, a chunk of new
// rows x (normalized by the layer's input norm) at positions n .. n+s-1 goes through:
//
//	q, k, v = attention.Project(x, startPos = n)          s rows: projections, QK-norm, RoPE at n..
//	K_l     = [K_l; k],  V_l = [V_l; v]                   (n+s) x KVHeads*HeadDim
//	ctx     = attention.Attend(q, K_l, V_l, past = n)     row r sees keys 0 .. n+r (causal mask)
//	out     = ctx * O^T
//
// and the rest of the layer (residuals, MLP) is chapter 07's Layer.Forward, unchanged, on the s new
// rows. After the last layer, n grows by s. Prefill feeds the whole prompt as one chunk (s = prompt
// length, the same work as chapter 07's forward); Step feeds one token (s = 1), so a step projects
// one row per layer and its attention reads n+1 cached keys: linear in n instead of quadratic.
//
// # Shapes
//
// Per layer the cache holds MaxLen rows of KVHeads*HeadDim keys and as many values. Only the KV
// heads are stored, not the 16 query heads: grouped-query attention halves the cache of
// Qwen3-0.6B. Its size per token is
//
//	layers * 2 * KVHeads * HeadDim * bytes = 28 * 2 * 8 * 128 * 4 = 229,376 bytes in float32
//
// so the full 40960-token context takes 9.4 GB in float32 and 4.7 GB in BF16, nearly four times the
// BF16 weights; Bytes computes it. This package stores float64 (twice that) and takes memory as
// tokens arrive, never more than MaxLen rows.
//
// # Gotchas
//
//   - Positions: the new token's RoPE position is the cache length, not 0. Chapter 07 could not see
//     a uniform position shift (scores depend on differences only), but a decoded token rotated to
//     position 0 while its keys sit at 0..n-1 is visibly wrong; the tests compare every step with
//     chapter 07's full recompute and with transformers' DynamicCache.
//   - The cache length advances once per chunk, after the last layer: every layer of a chunk uses
//     the same positions.
//   - The context is finite: a cache of MaxLen positions (at most max_position_embeddings) refuses
//     a token beyond it with an error and stays usable; it does not panic or grow silently.
//   - A failed call leaves the cache as it was: ids are checked before anything is stored.
//
// # Proving the cache is used
//
// Timing tests are flaky on shared machines, so the tests count instead: ProjectedRows counts the
// rows that went through attention.Project, and a Step must add exactly one per layer at any
// position. Another test swaps in a model whose embeddings of the prompt's tokens are noise after
// the prefill; cached steps still match transformers, because they never look at those rows again.
// BenchmarkStep measures the time per token with and without the cache, which the notebook plots.
//
// # Exercises
//
// `go run ./scripts/exercise 08` copies this chapter to workspace/08_kvcache with three functions
// stubbed. Write them in this order (run calls attend; their tests compare every step with
// chapter 07's full recompute and with transformers):
//
//  1. [Bytes] (kvcache.go; easy, 5 min): the cache's size, layers * 2 * KV heads * head_dim * bytes per token.
//  2. Cache.attend (kvcache.go; hard, 35 min): project the new rows at positions Len().., append k and v to
//     layer l's cache, attend over all of it with past = Len().
//  3. Cache.run (kvcache.go; medium, 25 min): every layer with that attention, then advance Len() once.
//
// Then `go test ./workspace/08_kvcache/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (query heads for KV heads, Len() advanced per layer, the cache never read, past = 0 ...).
package kvcache
