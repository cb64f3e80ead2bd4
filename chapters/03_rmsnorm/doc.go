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
// eps sits INSIDE the square root. Some tutorials write x / (sqrt(mean(x²)) + eps); for rows
// whose RMS is around 1e-4 (they occur: padding, rare tokens, early layers) that changes the
// output by percent, and the golden test data contains such rows so the difference is caught.
// Qwen3's eps is 1e-6 (config rms_norm_eps); 1e-5, the LLaMA default, is also wrong here for
// the same rows.
//
// # Shapes
//
// RMSNorm takes x as seq x d (one row per token) and normalizes each row on its own, returning a
// new seq x d matrix. Qwen3 applies it before attention (input_layernorm), before the MLP
// (post_attention_layernorm) and at the very end (model.norm), each with d = hidden = 1024.
//
// NormHeads is QK-norm, new in Qwen3 compared with Qwen2: after the query and key projections,
// each head's head_dim-wide slice is RMS-normalized on its own with one shared weight of head_dim
// values (q_norm, k_norm; head_dim = 128). The input is seq x (heads*head_dim), as the projection
// produces it, and the normalization runs over each contiguous head_dim block of a row. It
// bounds the size of q·k, which keeps attention logits from blowing up during training.
//
// # Order of operations and precision
//
// transformers' Qwen3RMSNorm does
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
// # Exercises
//
// `go run ./scripts/exercise 03` copies this chapter to workspace/03_rmsnorm with two functions
// stubbed. Write them in this order:
//
//  1. normRow (rmsnorm.go; easy, 10 min): one row, y = x / sqrt(mean(x²) + eps) * weight; RMSNorm calls it.
//  2. [NormHeads] (rmsnorm.go; easy, 10 min): the same on every head_dim block of every row, on its own.
//
// Then `go test ./workspace/03_rmsnorm/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (eps outside the square root, a sum for a mean, the weight left out, one RMS for all heads ...).
package rmsnorm
