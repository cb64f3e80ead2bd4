// Package rmsnorm is chapter 03 of the course: root-mean-square normalization, the only
// normalization Qwen3 uses, and its head-wise variant, QK-norm.
//
// # The problem
//
// Every decoder layer adds its attention and MLP outputs back onto the residual stream, so the
// scale of the hidden vectors drifts from layer to layer and from token to token. Before each
// block reads the stream, Qwen3 rescales every token's vector to unit root-mean-square and then
// lets a learned per-feature weight choose the scale the block wants. Unlike LayerNorm there is
// no mean subtraction and no bias: only the scale is normalized.
//
// # The formula
//
// For one token x (a row of d features), with weight w (d values) and a small eps:
//
//	rms(x) = sqrt(mean(x_i²) + eps)
//	y_i    = x_i / rms(x) * w_i
//
// eps sits INSIDE the square root (transformers' Qwen3RMSNorm, below). Some tutorials write
// x / (sqrt(mean(x²)) + eps); for a row whose RMS is near sqrt(eps) = 1e-3 or below, that is
// another function, and the golden test data contains such rows on purpose so the difference is
// caught. Qwen3's eps is 1e-6 (config rms_norm_eps); 1e-5, the default norm_eps of Meta's LLaMA
// code (llama/model.py), is wrong here for the same rows. Example_eps prints the RMS each version
// gives constant rows (weight 1):
//
//	RMS in    eps inside (Qwen3)   eps outside   eps 1e-5
//	1         1.0000               1.0000        1.0000
//	0.01      0.9950               0.9999        0.9535
//	0.001     0.7071               0.9990        0.3015
//	0.0001    0.0995               0.9901        0.0316
//
// At RMS 1e-4 the misplaced eps gives ten times the right output.
//
// # What came before, and why dropping the mean is fine
//
// The original Transformer (Vaswani et al., 2017, section 3.1), GPT-2 (Radford et al., 2019,
// section 2.3) and BERT (Devlin et al., 2019, section 3: the original Transformer's encoder)
// normalized with LayerNorm (Ba et al., 2016; [LayerNorm], kept here for comparison): subtract the
// row's mean, divide by its standard deviation, then scale by a weight and shift by a bias.
// RMSNorm (Zhang and Sennrich, 2019, "Root Mean Square Layer Normalization"; used by LLaMA,
// Touvron et al., 2023, section 2.2, by the first Qwen, Bai et al., 2023, section 2.3, and by
// Qwen3, its report's section 2) drops the subtraction and the bias. The worked example shows what that changes: LayerNorm of x is exactly
// RMSNorm of x - mean(x),
//
//	x = [1 2 3 4]   LayerNorm(x) = RMSNorm(x - 2.5) = [-1.3416 -0.4472 0.4472 1.3416]
//	                RMSNorm(x)                      = [ 0.3651  0.7303 1.0954 1.4606]
//
// so the two differ only in one direction of the d-dimensional space: the all-ones vector, along
// which the mean lives. What makes a normalization help is the division: a block's input has the
// same size whatever the size of the stream, so weights and activations can grow during training
// without the next layer's inputs exploding (RMSNorm of x and of 1000x are the same, as
// ExampleRMSNorm shows). The centring does not add to that, and what it removes (one number per
// token, out of 1024) the next linear layer can learn to ignore or use; with no biases anywhere
// in Qwen3, a shift has nothing to pair with either. In exchange RMSNorm reads a row once (one
// sum of squares) where LayerNorm needs its mean before its variance, and keeps half the
// parameters. The RMSNorm paper reports "comparable performance against LayerNorm" with the
// running time reduced "by 7%~64% on different models" (its abstract).
//
// # Shapes
//
// RMSNorm takes x as seq x d (one row per token) and normalizes each row on its own, returning a
// new seq x d matrix. Qwen3 applies it before attention (input_layernorm), before the MLP
// (post_attention_layernorm) and at the very end (model.norm), each with d = hidden = 1024.
//
// NormHeads is QK-norm, new in Qwen3 compared with Qwen2 (Qwen3 Technical Report, 2025, section
// 2, "to ensure stable training"): after the query and key projections, each head's
// head_dim-wide slice is RMS-normalized on its own with one shared weight of head_dim values
// (q_norm, k_norm; head_dim = 128). The input is seq x (heads*head_dim), as the projection
// produces it, and the normalization runs over each contiguous head_dim block of a row. It
// bounds the size of q·k, which keeps attention logits from blowing up during training (the
// divergence Dehghani et al., 2023, "Scaling Vision Transformers to 22 Billion Parameters",
// section 2, traced to attention logits growing, and fixed by normalizing queries and keys before
// their dot product, with LayerNorm there; the Qwen3 report cites that paper for its QK-Norm): after
// QK-norm a head's query has length √head_dim times its weights, so with weights of 1 the score
// q·k/√128 of chapter 05 is at most √128 ≈ 11.3, whatever the projections did. Each head gets its
// own RMS because each is its own attention: normalizing the whole row at once would let a loud
// head shrink a quiet one (the worked example's [3 4 | 0.03 0.04]).
//
// # Order of operations and precision
//
// transformers' Qwen3RMSNorm (models/qwen3/modeling_qwen3.py) does
//
//	h = x.to(float32)
//	h = h * rsqrt(mean(h², -1) + eps)
//	return weight * h.to(input_dtype)
//
// that is: normalize in float32, cast back to the input dtype (bfloat16 for the real model),
// and only then multiply by the weight, in that dtype. In this chapter everything is float64,
// so casting is a no-op and the order of the two multiplications does not change the result
// beyond the last bit. In bfloat16 it does matter: rounding the normalized value to bf16 (8
// significant bits) before the weight multiply gives a different bf16 result than multiplying
// in float32 and rounding once, and an implementation that wants to be bit-identical to the
// bf16 reference must round at the same place. The golden data was produced in float32, where
// both casts are again no-ops.
//
// # A worked example by hand
//
// Example_byHand prints each line. One token, d = 4, x = [1 2 3 4], eps = 1e-6:
//
//	mean(x²) = (1 + 4 + 9 + 16) / 4 = 7.5       rms = sqrt(7.5 + 1e-6) = 2.7386
//	x / rms  = [0.3651 0.7303 1.0954 1.4606]     (its own RMS is now 1)
//	weight [1 1 2 0.5]  ->  [0.3651 0.7303 2.1909 0.7303]
//
// eps only matters when mean(x²) is close to it. A row of 1e-3 everywhere has mean(x²) = 1e-6:
// eps 0 gives 1, Qwen3's 1e-6 gives 1e-3/sqrt(2e-6) = 0.7071, LLaMA's 1e-5 gives 0.3015. QK-norm on
// two heads of 2, [3 4 | 0.03 0.04]: head 0 has rms sqrt(12.5) = 3.536 and becomes [0.8485 1.1314];
// head 1 has rms 0.03536 and becomes [0.8482 1.1309], nearly the same (eps shaves 0.04%). One RMS
// for the whole row (2.5001) would give [1.1999 1.5999 0.0120 0.0160]: the quiet head stays quiet.
//
// # Exercises
//
// `go run ./scripts/exercise 03` copies this chapter to workspace/03_rmsnorm with two functions
// stubbed. Write them in this order:
//
//  1. normRow (rmsnorm.go; easy, 10 min): one row, y = x / sqrt(mean(x²) + eps) * weight; RMSNorm
//     calls it.
//  2. [NormHeads] (rmsnorm.go; easy, 10 min): the same on every head_dim block of every row, on its
//     own.
//
// Then `go test ./workspace/03_rmsnorm/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (eps outside the square root, a sum for a mean, n-1 for n, the mean subtracted as in LayerNorm,
// the weight left out, one RMS for all heads ...).
//
// # Check your understanding
//
//  1. Compute RMSNorm of x = [2, -2, 2, -2] with weight 1 by hand. What does LayerNorm give?
//  2. When do RMSNorm and LayerNorm (weight 1, bias 0) agree exactly? What does RMSNorm keep that
//     LayerNorm throws away?
//  3. Why does eps sit inside the square root, and for which rows does it change the output?
//  4. Qwen3 normalizes each query head on its own. After QK-norm with weights of 1, how large can
//     the scaled score q·k/√head_dim of one head be, for head_dim 128?
//  5. How many weights do all of Qwen3-0.6B's norms hold (28 layers, hidden 1024, head_dim 128)?
//
// Answers.
//
//  1. mean(x²) = 4, rms = 2, so [1 -1 1 -1]. The mean is 0, so LayerNorm gives the same.
//  2. When the row's mean is 0 (LayerNorm is RMSNorm of the centred row). RMSNorm keeps the
//     component along the all-ones direction, one number per token; the next layer can use or
//     ignore it. The scale, which is what matters for training, both normalize.
//  3. So that the divisor is sqrt(mean(x²) + eps) ≥ sqrt(eps): a row of zeros gives zeros, not
//     0/0. It changes rows whose mean square is near eps (RMS about 1e-3 for eps = 1e-6): a row of
//     1e-3 comes out at 0.7071, not 1. Outside the root it would barely act (0.999).
//  4. Each normalized head has length √128 (every value of RMS 1), so |q·k| ≤ 128 and the scaled
//     score is at most 128/√128 = √128 ≈ 11.3; larger only as far as the learned weights allow.
//  5. 28 x (2 x 1024 + 2 x 128) + 1024 = 65,536 (chapter 01's CountParams): 0.01% of the model.
package rmsnorm
