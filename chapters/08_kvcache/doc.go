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
// heads are stored, not the 16 query heads: grouped-query attention (Ainslie et al., "GQA:
// Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints", 2023), with 8
// KV heads shared by 16 query heads, halves the cache of Qwen3-0.6B against one K and V per head.
// Its size per token is
//
//	layers * 2 * KVHeads * HeadDim * bytes = 28 * 2 * 8 * 128 * 4 = 229,376 bytes in float32
//
// so the full 40960-token context takes 8.75 GiB in float32 and 4.38 GiB in BF16 (ExampleBytes),
// several times the 1.19 GB of BF16 weights (Example_gqa). This package stores float64 (twice the
// float32 figure) and takes memory as tokens arrive, never more than MaxLen rows.
//
// # What it trades
//
// The cache trades memory for work. Without it, the n-th generated token recomputes every layer
// for all n tokens before it; with it, each step projects one row per layer and reads n cached
// keys and values. In the worked example a 3-token prompt and two steps project 3 + 1 + 1 = 5 rows
// per layer, where recomputing would project 3 + 4 + 5 = 12; over a 1,000-token answer that is
// 1,000 rows against 500,500. The memory grows the other way: Example_gqa counts 114,688 bytes per
// token in BF16 for Qwen3-0.6B, so at 10,395 tokens the cache weighs as much as the model's BF16
// weights (1.19 GB), and at 32,768 tokens it takes 3.76 GB. That is why chapter 05's grouped-query
// attention matters (with a K and V for all 16 heads: 7.52 GB), why engines store the cache in
// 16 or 8 bits (llama.cpp's default cache type is F16: cache_type_k and cache_type_v in its
// common/common.h), and why serving many users is a problem of cache memory, which vLLM answers
// by allocating the cache in pages (Kwon et al., "Efficient Memory Management for Large Language
// Model Serving with PagedAttention", 2023).
//
// Without a cache a decoder runs the whole model on the whole sequence for every token, which is
// what chapter 07's Forward does. A cache works only because of two properties earlier chapters
// built: the causal mask (chapter 05), so a token's keys and values never depend on later
// tokens, and RoPE's absolute rotation of each key at its own position (chapter 04), so a cached
// key stays valid as the sequence grows. Learned absolute positions would have allowed it too; a
// model whose keys depended on later tokens (bidirectional attention, as in BERT) could not be
// cached at all.
//
// # Why a prompt goes in at once, and decoding one token at a time
//
// All the tokens of a prompt are known before the model runs, and causality makes feeding them
// in one chunk exactly equivalent to feeding them one by one (TestChunks: the same logits, to
// float rounding): the chunk's row r attends to keys 0 .. n+r and nothing later. So Prefill takes
// the whole prompt as one matrix, and every weight matrix is read once for all its rows:
// matrix-matrix products, which a CPU runs near its arithmetic peak, where token by token would
// read every weight once per token. Example_decodeReads counts it for Qwen3-0.6B in BF16: a
// 512-token prompt reads the 1.19 GB of weights once in one chunk, 610 GB fed token by token.
// Decoding cannot do the same: token t+1 is chosen from the logits of token t, so it does not
// exist until the step before it has run, and every decoded token is one pass over every weight
// (notebook 12 measures what that costs: decoding runs at the speed memory streams the weights,
// prompts at the speed of the multiply-adds). Guessing several tokens ahead with a small model
// and checking them in one pass of the large one (speculative decoding: Leviathan et al., "Fast
// Inference from Transformers via Speculative Decoding", 2023) is the way around it, and is not
// in this course.
//
// # How grouped-query attention changes the cost of a decoded token
//
// A decoded token reads every weight once, and the cache of every layer: each of its query heads
// reads all n cached keys and values of its KV head. The weights are a fixed cost; the cache grows
// with the context, by Bytes(cfg, 1, ...) per token. Example_decodeReads adds them up for
// Qwen3-0.6B in BF16, for its 8 KV heads (GQA), for one K and V per query head (MHA, 16) and for
// one shared by all (MQA, Shazeer, "Fast Transformer Decoding: One Write-Head is All You Need",
// 2019):
//
//	context   MHA, 16 KV    GQA, 8 KV (Qwen3)    MQA, 1 KV     GB read per decoded token
//	      0         1.19                 1.19         1.19
//	   4096         2.13                 1.66         1.25
//	  32768         8.71                 4.95         1.66
//
// At an empty context the three cost the same; at 32,768 tokens Qwen3's cache is read 3.76 GB per
// token beside 1.19 GB of weights, and a decoder bound by memory (notebook 12) slows in
// proportion. MHA would read 8.71 GB, MQA 1.66 GB. What a shared KV head gives up is the freedom
// of each query head to look for its own kind of key; Ainslie et al. (2023, abstract and §3)
// report that GQA's quality stays close to MHA's while its decoding speed approaches MQA's, which
// is the trade Qwen3 takes.
//
// # Gotchas
//
//   - Positions: the new token's RoPE position is the cache length, not 0. Chapter 07 could not see
//     a uniform position shift (scores depend on differences only), but a decoded token rotated to
//     position 0 while its keys sit at 0..n-1 is visibly wrong; the tests compare every step with
//     chapter 07's full recompute and with transformers' DynamicCache. A shift of every chunk
//     alike (Len()+1 everywhere) still leaves every score as it was, up to float rounding: only
//     the cached keys show it, and TestCachedKeysAtTheirPositions compares them with keys rotated
//     to 0, 1, 2, ...
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
// # A worked example by hand
//
// Example_byHand runs a small random model (vocabulary 5, hidden 8, 2 layers, 1 KV head of 4):
//
//	Prefill [1 3 2]   positions 0, 1, 2    Len 3   rows projected 6 (3 per layer)
//	Step 4            position 3           Len 4   rows projected 8 (+1 per layer), 4 keys read
//	Step 0            position 4           Len 5   rows projected 10, 5 keys read
//
// after which each layer's cache holds 5 keys and 5 values of 4 numbers: 2 layers x 2 x 5 x 4 x 8
// bytes = 640 bytes (Bytes). The last logits agree with chapter 07's Forward on all five tokens to
// within 1e-12: the cache changes the work, never the result.
//
// # Exercises
//
// `go run ./scripts/exercise 08` copies this chapter to workspace/08_kvcache with three functions
// stubbed. Write them in this order (run calls attend; their tests compare every step with
// chapter 07's full recompute and with transformers):
//
//  1. [Bytes] (kvcache.go; easy, 5 min): the cache's size, layers * 2 * KV heads * head_dim * bytes
//     per token.
//  2. Cache.attend (kvcache.go; hard, 35 min): project the new rows at positions Len().., append k
//     and v to layer l's cache, attend over all of it with past = Len().
//  3. Cache.run (kvcache.go; medium, 25 min): every layer with that attention, then advance Len()
//     once.
//
// Then `go test ./workspace/08_kvcache/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (query heads for KV heads, Len() advanced per layer, the cache never read, past = 0, positions
// one too far ...).
//
// # Check your understanding
//
//  1. How large is Qwen3-0.6B's KV cache at 32,768 tokens in BF16, and in this chapter's float64?
//  2. Generating 100 tokens after a 20-token prompt: how many rows does each layer project with
//     the cache, and how many without?
//  3. Why can a key be cached at all? Name the two properties of earlier chapters it relies on.
//  4. Every chunk is rotated one position too far (Len()+1, ...). Which outputs change, and what
//     does show the mistake?
//  5. A decoded token is rotated to position 0 while the cache holds positions 0..n-1. Why is
//     that visible in the logits when a uniform shift is not?
//
// Answers.
//
//  1. 28 x 2 x 8 x 128 x 2 bytes = 114,688 bytes per token, 3.76 GB at 32,768 tokens; float64 is
//     four times that, 15 GB (Bytes(cfg, 32768, 8)).
//  2. With the cache: the prompt once, then one row per token fed back; the 100th token need not
//     be fed, so 20 + 99 = 119. Without it, token k is predicted from all 19 + k tokens before
//     it: 20 + 21 + ... + 119 = 6,950 rows, 58 times as many.
//  3. The causal mask: a token's keys and values depend on it and the tokens before it only, so
//     later tokens cannot change them. RoPE rotates a key by its own absolute position, which does
//     not change when tokens are appended.
//  4. No score changes (beyond float rounding): queries and keys move alike and RoPE sees only
//     differences. The cached keys do, which is what TestCachedKeysAtTheirPositions compares.
//  5. It is not uniform: the new query sits at 0 while the keys stay at 0..n-1, so its distance to
//     every key is wrong (it looks at key j as if j tokens ahead of it).
package kvcache
