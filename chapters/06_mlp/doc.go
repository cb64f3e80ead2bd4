// Package mlp is chapter 06 of the course: the SwiGLU feed-forward block that follows attention
// in every Qwen3 layer.
//
// # The problem
//
// Attention moves information between tokens; the MLP then transforms each token on its own. It
// widens the token from hidden (1024 in Qwen3-0.6B) to intermediate (3072) features, applies a
// nonlinearity, and projects back. Qwen3 uses a gated variant, SwiGLU: two parallel projections
// of the same input, one passed through SiLU and used as a soft, per-feature gate on the other.
//
// # The formula
//
//	silu(z)  = z * sigmoid(z) = z / (1 + e^-z)
//	mlp(x)   = (silu(x Gᵀ) ⊙ (x Uᵀ)) Dᵀ
//
// with G = gate_proj, U = up_proj (intermediate x hidden), D = down_proj (hidden x intermediate),
// ⊙ the element-wise product, and no biases anywhere. In transformers:
// down_proj(act_fn(gate_proj(x)) * up_proj(x)) with act_fn = SiLU (config hidden_act "silu").
//
// # Shapes
//
// x is seq x hidden; x Gᵀ and x Uᵀ are seq x intermediate; the result is seq x hidden again.
// For Qwen3-0.6B the three matrices hold 3 x 3072 x 1024 = 9.4M weights per layer, 60% of the
// layer's parameters (attention's four projections hold 6.3M, the norms 2,304 in all).
//
// # Gotchas
//
//   - The gate is the projection that goes through SiLU; swapping gate_proj and up_proj gives a
//     different function (the golden test catches it).
//   - SiLU is not GELU and not ReLU: it is smooth, slightly negative for negative inputs (minimum
//     about -0.278 at z ≈ -1.278) and close to the identity for large z. Replacing it by GELU
//     changes outputs by a few percent, enough to derail generation.
//   - Computing e^-z for very negative z overflows to +Inf; 1/(1+Inf) is 0 and z*0 is -0, which is
//     the right limit, so the plain formula is safe in float64.
//
// # Exercises
//
// `go run ./scripts/exercise 06` copies this chapter to workspace/06_mlp with two functions
// stubbed. Write them in this order:
//
//  1. [SiLU] (mlp.go; easy, 5 min): z * sigmoid(z), with no overflow for large |z|.
//  2. [Forward] (mlp.go; medium, 15 min): silu(x gate^T) ⊙ (x up^T) into h; the down projection is given.
//
// Then `go test ./workspace/06_mlp/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (SiLU on the up projection, no SiLU, a sum for the product ...).
package mlp
