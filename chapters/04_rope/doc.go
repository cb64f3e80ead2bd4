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
// # What came before
//
// The original Transformer (Vaswani et al., 2017, section 3.5) added a fixed sinusoidal vector to
// each token's embedding, sin and cos of pos·10000^(-2i/d); GPT-2 and BERT learned one vector per
// position instead (GPT-2's config has n_positions 1024, BERT's max_position_embeddings 512). Both
// are absolute: the model sees "token at position 37", must learn from data that 37 and 38 are
// neighbours, and cannot go past the last learned position. Both are added once at the input, so
// every later layer sees position mixed into the content. RoPE (Su et al., "RoFormer", 2021,
// section 3.2; adopted by GPT-NeoX, by LLaMA, Touvron et al., 2023, section 2.2, and by Qwen from
// its first version, Bai et al., 2023, section 2.3, to Qwen3, its report's section 2) changes
// three things: position enters at
// every attention layer, as a rotation of q and k rather than an addition to the token; the score
// then depends on the distance m-n alone (a uniform shift of every position changes nothing); and
// it has no parameters, so any position up to the table's size is defined. Values are not rotated:
// position decides where to look, not what is read (chapter 05's Example_rotatedValues measures
// what rotating them would break).
//
// # The formula
//
// A head vector of d = head_dim values (128 in Qwen3) is split into d/2 pairs, and pair i is turned
// as a 2-D point by the angle pos*inv_freq[i], with
//
//	inv_freq[i] = theta^(-2i/d),   i = 0 .. d/2-1,   theta = rope_theta = 1e6 (Qwen3's config.json)
//
// Pair 0 turns one radian per token; pair 63 turns 1.241e-06 radians per token (ExampleInvFreq),
// so that one full turn takes 5,063,256 tokens (Example_theta). The fast pairs resolve neighbours,
// the slow ones distances.
//
// # Why theta is 1e6
//
// The original base was 10,000 (RoFormer, section 3.2: θ_i = 10000^(-2(i-1)/d), the sinusoids'
// base of the original Transformer); Meta's LLaMA code keeps it (llama/model.py:
// precompute_freqs_cis theta=10000.0, max_seq_len 2048). Qwen3 reads 32,768 tokens natively and its config has rope_theta 1e6. At a
// distance of Δ tokens pair i has turned Δ·inv_freq[i] radians; a pair that has turned less than a
// quarter turn still rewards a query and a key that point the same way (its cos is positive),
// while a pair that has turned thousands of times adds something close to noise for that
// distance. Counted with InvFreq (Example_theta):
//
//	                          theta 10,000    theta 1e6
//	slowest pair, full turn   54,410 tokens   5,063,256 tokens
//	pairs under 1/4 turn at Δ = 4,096        9 of 64        27 of 64
//	pairs under 1/4 turn at Δ = 32,768       0 of 64        17 of 64
//
// With 10,000 no pair is left that can say "far away but the same thing" across a 32k context;
// with 1e6 a quarter of them can. Raising the base to stretch the context is how long-context
// models were made from short ones: Code Llama raised it from 10,000 to 1,000,000 for its
// long-context fine-tuning (Rozière et al., 2023, section 2.4), Llama 2 Long to 500,000 and called
// it ABF, "adjusted base frequency" (Xiong et al., 2023, section 2.1). Qwen3 did the same: its first
// two pre-training stages use 4,096-token sequences, and the long-context stage raises the base
// from 10,000 to 1,000,000 with ABF to reach 32,768 tokens (Qwen3 Technical Report, 2025, section
// 3.2, "Pre-training Stage"). The released weights therefore expect 1e6. Going further than the
// trained length needs more than a base: YaRN rescales the frequencies (the same section uses it,
// with Dual Chunk Attention, at inference), which chapter 01's Config refuses rather than computes
// wrongly.
//
// Which elements form a pair is the classic trap. The RoFormer paper (section 3.2: its rotation
// matrix turns (x1, x2), (x3, x4), ...) and Meta's LLaMA code (llama/model.py, apply_rotary_emb:
// view_as_complex of reshape(-1, 2)) pair neighbours (2i, 2i+1), and so does GPT-J (transformers' models/gptj/modeling_gptj.py, rotate_every_two).
// Qwen3, like GPT-NeoX and transformers' Llama and Qwen code (rotate_half), pairs element i with
// element i + d/2 (the "half-split" layout):
//
//	x'[i]       = x[i]*cos θ_i - x[i+d/2]*sin θ_i
//	x'[i+d/2]   = x[i+d/2]*cos θ_i + x[i]*sin θ_i
//
// transformers writes this as q*cos + rotate_half(q)*sin with rotate_half(x) = cat(-x[d/2:], x[:d/2])
// and cos, sin of width d built as cat(freqs, freqs) (models/qwen3/modeling_qwen3.py). llama.cpp
// calls it rope type NEOX; its qwen3 converter does not permute the weights (only the LLaMA
// converter does, to turn Meta's interleaved layout into this one: convert_hf_to_gguf.py). Using
// (2i, 2i+1) pairs with Qwen3 weights gives garbage that still looks like numbers; the golden test
// catches it.
//
// RoPE is applied to queries and keys only, after QK-norm (chapter 03), never to values. Both
// choices are argued in chapter 05's doc ("Why each piece is there"), with the numbers its
// Example_normBeforeRoPE and Example_rotatedValues compute.
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
// and the angle as float32(position) * inv_freq, also in float32 (Qwen3RotaryEmbedding in
// modeling_qwen3.py). Only then does it take cos and sin. At small positions the rounding is
// invisible, but float32 has 24 significant bits: an angle near 33000 radians (pair 1 at position
// 40959) is stored with a spacing of 2^-8 rad, so the rounded angle is off by up to 2e-3 rad; and
// inv_freq itself, rounded to float32 twice (theta^e, then its reciprocal), is off the exact value
// by a fraction of a float32 step, which the position multiplies. Those are errors in the
// reference, but they are the numbers the model was trained and is run with, and we want to match
// them.
//
// NewTable reproduces that arithmetic: InvFreq rounds every step to float32, and Angle32 rounds
// pos*inv_freq to float32, which is exact float32 multiplication because the product of two
// float32 numbers fits a float64. Only cos and sin are taken in float64. Example_float32 measures
// it against the golden cos and sin of Qwen3RotaryEmbedding, and splits the largest gap between
// the float32 angle and the exact one into its two sources:
//
//	largest angle gap 3.3e-03 rad (pair 1, position 40897): 1.9e-03 from rounding the angle,
//	  1.4e-03 from inv_freq[1], which is 0.55 of a float32 step off the exact value
//	96 positions up to 40959: float32 table within 1.9e-06, exact table off by 3.2e-03 (315 times the 1e-5 tolerance)
//	the same float32 arithmetic on transformers' own inv_freq: within 3.6e-08
//	inv_freq[37] differs by one float32 ulp: 1e6^(74/128) lies 0.486 ulp from its nearest float32;
//	  pair 37 turns 3.4e-04 rad per token, so the ulp costs 1.2e-06 rad at position 40959
//	63 of 64 inv_freq values are bit-identical to transformers'
//
// A course that computes RoPE "exactly" does not reproduce the model near the end of its context;
// one that rounds like the reference does. The remaining error has one source, found by
// substituting transformers' own inv_freq (the second line: what is left is float32's rounding of
// cos itself): PyTorch's CPU pow is SLEEF's vectorized powf (aten/src/ATen/cpu/vec/vec256/
// vec256_float.h: Vectorized<float>::pow calls Sleef_powf8_u10, "u10" for 1.0 ulp), accurate to
// 1 ulp but not correctly rounded. 1e6^(74/128) lies nearly on a midpoint between two float32 numbers; Go's correctly
// rounded math.Pow picks the nearest, SLEEF the other neighbour. Reproducing SLEEF's polynomial
// bit for bit is possible but would tie the course to one library's internals (other backends
// round differently again), so we stop here and the test allows one ulp. (The reciprocal is not
// a source: torch computes 1/x as x.reciprocal(), a correctly rounded division, exactly as
// float32(1/float64(p)) does.)
//
// A consequence for the property tests: with float32 angles, "the score depends only on m-n"
// holds only up to that rounding, so the exact property is tested on the exact table and the
// float32 table is held to 1e-5 at small positions.
//
// # A worked example by hand
//
// Example_byHand: head_dim 4, so two pairs, (v[0], v[2]) and (v[1], v[3]); theta 100, so
// inv_freq = [100^0, 100^(-2/4)] = [1, 0.1]. Rotate q = [1 2 0 0] to position 1: pair 0, the point
// (1, 0), turns by 1 rad to (cos 1, sin 1) = (0.5403, 0.8415); pair 1, (2, 0), turns by 0.1 rad to
// (1.9900, 0.1997). Put back in place: q' = [0.5403 1.9900 0.8415 0.1997], the same length 2.2361.
// At position 2 the angles are 2 and 0.2 rad. With a key k = [0 1 1 0], pair 0 is (0, 1) and pair
// 1 is (1, 0), and the score of q at m with k at n is
//
//	pair 0: |(1,0)| |(0,1)| cos(π/2 - (m-n)·1)  = sin(m-n)
//	pair 1: |(2,0)| |(1,0)| cos((m-n)·0.1)      = 2 cos(0.1(m-n))
//
// so (5, 3), (12, 10) and (2, 0) all give sin 2 + 2 cos 0.2 = 0.9093 + 1.9601 = 2.8694, while (3, 5)
// gives -0.9093 + 1.9601 = 1.0508: the distance counts, and its sign (before or after) too.
//
// # Exercises
//
// `go run ./scripts/exercise 04` copies this chapter to workspace/04_rope with two functions
// stubbed. Write them in this order (every table needs InvFreq):
//
//  1. [InvFreq] (rope.go; medium, 15 min): in float32, and in this order: e =
//     float32(2i)/float32(d), p = float32(theta^e), then float32(1/p). The test wants transformers'
//     bits, so the order of the roundings matters: theta^(-e) rounded once is one ulp off at 24 of
//     the 64 pairs (Example_float32 prints the count).
//  2. [Table.RotateHead] (rope.go; medium, 20 min): turn each pair (v[i], v[i+d/2]) by
//     pos*inv_freq[i].
//
// Then `go test ./workspace/04_rope/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (float64 frequencies, theta hard-coded to 10000, i/d for 2i/d, pairs (2i, 2i+1), the wrong
// direction ...).
//
// # Check your understanding
//
//  1. With head_dim 4 and theta 100, rotate v = [0 1 1 0] to position 1 by hand.
//  2. Why does a KV cache (chapter 08) never need to re-rotate a cached key when new tokens
//     arrive?
//  3. Shift every position of a prompt by 5 (0..n-1 becomes 5..n+4). What happens to the
//     attention scores? What still sees the shift?
//  4. How many radians per token does pair 1 turn in Qwen3 (head_dim 128, theta 1e6)? At about
//     which distance has it made a full turn?
//  5. A model trained with theta 10,000 is run with theta 1e6 (a config file lost rope_theta).
//     Which attention goes wrong first, between neighbours or across long distances?
//
// Answers.
//
//  1. Pair 0 is (v[0], v[2]) = (0, 1), turned by 1 rad: (-sin 1, cos 1) = (-0.8415, 0.5403). Pair 1
//     is (v[1], v[3]) = (1, 0), turned by 0.1 rad: (0.9950, 0.0998). So [-0.8415 0.9950 0.5403 0.0998].
//  2. A key is rotated by its own absolute position, which does not change when tokens are
//     appended after it; the score needs only m-n, and the new query's rotation supplies m.
//  3. Nothing: every score depends on m-n only, so the model's output is unchanged (up to float
//     rounding). What sees absolute positions is the table's range (5 fewer positions fit) and
//     the cached keys themselves: a key rotated to its shifted position stays there.
//  4. inv_freq[1] = 1e6^(-2/128) = 0.8058 rad per token (ExampleInvFreq), a full turn every
//     2π/0.8058 = 7.8 tokens. Pair 1 is a fast, neighbour-resolving pair.
//  5. Long distances: pair i's angle is off by Δ times the change of inv_freq[i], which grows
//     with the distance Δ. Pair 1 turns 0.806 instead of 0.866 rad per token: off by 0.06 rad
//     between neighbours, by 6 rad (a full turn) at 100 tokens.
package rope
