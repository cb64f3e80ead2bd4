// Package rope is chapter 04 of the course: rotary position embedding (RoPE), the way Qwen3 tells
// attention where each token is.
//
// # The problem
//
// Attention compares every query with every key by a dot product, and a dot product has no idea
// where the two tokens sit. RoPE makes it know by rotating: before the dot product, the query of
// the token at position m and the key of the token at position n are each rotated by an angle
// proportional to their own position. Rotations compose, so the score of a rotated pair depends
// on the angle difference, that is on m-n only:
//
//	<R(m) q, R(n) k> = <q, R(n-m) k>
//
// Attention therefore sees relative positions, and a cached key computed at position n never
// needs recomputing when later tokens arrive (chapter 08).
//
// # The formula
//
// A head vector of d = head_dim values (128 in Qwen3) is split into d/2 pairs, and pair i is turned
// as a 2-D point by the angle pos*inv_freq[i], with
//
//	inv_freq[i] = theta^(-2i/d),   i = 0 .. d/2-1,   theta = rope_theta = 1e6
//
// Pair 0 turns one radian per token; pair 63 turns 1.2e-6 radians per token, so that one full turn
// takes about five million tokens. The fast pairs resolve neighbours, the slow ones distances.
//
// Which elements form a pair is the classic trap. The original RoPE paper and Meta's LLaMA code
// pair neighbours (2i, 2i+1). Qwen3, like GPT-NeoX and every Hugging Face model, pairs element i
// with element i + d/2 (the "half-split" layout):
//
//	x'[i]       = x[i]*cos θ_i - x[i+d/2]*sin θ_i
//	x'[i+d/2]   = x[i+d/2]*cos θ_i + x[i]*sin θ_i
//
// transformers writes this as q*cos + rotate_half(q)*sin with rotate_half(x) = cat(-x[d/2:], x[:d/2])
// and cos, sin of width d built as cat(freqs, freqs). llama.cpp calls it rope type NEOX; its qwen3
// converter does not permute the weights (only the LLaMA converter does, to turn the interleaved
// layout into this one). Using (2i, 2i+1) pairs with Qwen3 weights gives garbage that still looks
// like numbers; the golden test catches it.
//
// RoPE is applied to queries and keys only, after QK-norm (chapter 03), never to values.
//
// # Shapes
//
// A Table holds cos and sin for positions 0 .. maxPos-1 and d/2 pairs (Qwen3's context is 40960).
// Rotate takes a query or key matrix seq x (heads*head_dim), one row per token, rotates every head
// of row r to position startPos+r and returns a new matrix of the same shape. startPos is the
// number of tokens before this chunk: 0 for a prompt, the cache length when decoding.
//
// # The float32 detail (why there are two tables)
//
// transformers computes inv_freq in float32 (1 / theta**(arange(0,d,2)/d), every step in float32)
// and the angle as float32(position) * inv_freq, also in float32. Only then does it take cos and
// sin. At small positions the rounding is invisible, but float32 has 24 significant bits: an angle
// near 33000 radians (pair 1 at position 40959) is stored with a spacing of 2^-8 rad, so the
// rounded angle is off by up to 2e-3 rad, and one ulp of error in inv_freq adds another 1e-3.
// Those are errors in the reference, but they are the numbers the model was trained and is run
// with, and we want to match them.
//
// NewTable reproduces that arithmetic: InvFreq rounds every step to float32, and Angle32 rounds
// pos*inv_freq to float32, which is exact float32 multiplication because the product of two
// float32 numbers fits a float64. Only cos and sin are taken in float64. Measured against
// Qwen3RotaryEmbedding at 96 positions up to 40959, the table is within 1.9e-6 of transformers'
// cos and sin, and the textbook NewExactTable (float64 inv_freq and angles) is off by 3.2e-3, more
// than 300 times the course tolerance. A course that computes RoPE "exactly" does not reproduce
// the model near the end of its context; one that rounds like the reference does.
//
// The remaining 1.9e-6 has one source, which we found by substituting transformers' own inv_freq
// (the error then drops to 3.6e-8, float32's rounding of cos itself): PyTorch's CPU pow is SLEEF's
// vectorized powf, accurate to 1 ulp but not correctly rounded. For theta 1e6 and head_dim 128,
// 1e6^(74/128) lies 0.486 ulp from the nearest float32, nearly on a midpoint; Go's correctly
// rounded math.Pow picks the nearest, SLEEF the other neighbour, so inv_freq[37] differs by one
// ulp (63 of 64 values are bit-identical). Pair 37 turns 3.4e-4 rad per token, so the ulp costs at
// most 1.2e-6 rad at 40959. Reproducing SLEEF's polynomial bit for bit is possible but would tie
// the course to one library's internals (other backends round differently again), so we stop here
// and the test allows one ulp. (The reciprocal is not a source: torch computes 1/x as
// x.reciprocal(), a correctly rounded division, exactly as float32(1/float64(p)) does.)
//
// A consequence for the property tests: with float32 angles, "the score depends only on m-n"
// holds only up to that rounding, so the exact property is tested on the exact table and the
// float32 table is held to 1e-5 at small positions.
//
// # Exercises
//
// `go run ./scripts/exercise 04` copies this chapter to workspace/04_rope with two functions
// stubbed. Write them in this order (every table needs InvFreq):
//
//  1. [InvFreq] (rope.go; medium, 15 min): in float32, and in this order: e = float32(2i)/float32(d),
//     p = float32(theta^e), then float32(1/p). The test wants transformers' bits, so the order
//     of the roundings matters: theta^(-e) in one step is one ulp off at 24 of the 64 pairs.
//  2. [Table.RotateHead] (rope.go; medium, 20 min): turn each pair (v[i], v[i+d/2]) by pos*inv_freq[i].
//
// Then `go test ./workspace/04_rope/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (float64 frequencies, pairs (2i, 2i+1), the wrong direction ...).
package rope
