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
// # What came before, and why a gate
//
// The original Transformer's feed-forward block was out = relu(x W1ᵀ + b1) W2ᵀ + b2, four times as
// wide as the model inside (Vaswani et al., 2017, section 3.3: 2048 for 512); GPT and BERT replaced
// ReLU by the smoother GELU (Radford et al., 2018, section 4.1; Devlin et al., 2019, appendix A.2)
// ([PlainForward], [ReLU] and [GELU] are kept here to compare). Shazeer's "GLU Variants Improve
// Transformer" (2020) replaced the single projection by two, one of them gating the other, at the
// same parameter count, and found that "the GEGLU and SwiGLU variants produce the best
// perplexities" (section 3.2; Table 1, log-perplexity after 524,288 steps: GEGLU 1.633, SwiGLU
// 1.636, ReLU 1.677): GEGLU marginally ahead (after 65,536 steps 1.942 against 1.944, where the
// table gives a spread between runs of 0.004 and 0.010). SwiGLU is the one PaLM (Chowdhery et al.,
// 2022, section 2), LLaMA (Touvron et al., 2023, section 2.2) and Qwen, from its first version
// (Bai et al., 2023, section 2.3) to Qwen3 (its report's section 2), adopted. Two reasons a gate
// helps, both visible in the worked example:
//
//   - The gate multiplies. A ReLU unit is linear along every ray from 0: doubling the input
//     doubles its output (relu(3) = 3, relu(6) = 6, relu(12) = 12). A SwiGLU unit whose gate
//     reads x1 and whose up projection reads x2 computes silu(x1)·x2, almost the product x1·x2
//     once the gate is open: 5.715, 23.941, 95.999 for 6, 24, 96. Products of features (this
//     word AND that context) take one unit instead of many.
//   - Nothing is shut for good. ReLU's output and slope are both exactly 0 for a negative input: a
//     unit that is negative for every token never receives a gradient again (a "dead" unit).
//     SiLU is smooth, slightly negative below 0, and its slope at -2 is -0.091 (GELU's -0.085,
//     ReLU's 0; Example_activations): a closed gate still passes a little (silu(-2)·u = 0.2384 in
//     the worked example, where ReLU gives 0) and can learn to open.
//
// The price is a third matrix. To keep the parameters of a 4x-wide two-matrix block, a gated
// block is 8/3 as wide (Shazeer, section 2: d_ff reduced "by a factor of 2/3", and section 3.1:
// 2048 instead of 3072 for T5's 768; LLaMA's 2/3 of 4d, its section 2.2); Qwen3-0.6B goes to 3x (3072 for 1024): 9.4M weights per layer, where a ReLU
// block of width 4096 would hold 8.4M.
//
// No biases, here as in attention (chapter 05): Shazeer's variants already drop them ("Following
// the T5 codebase, we use a version with no bias", section 1), PaLM used none ("We found this to
// result in increased training stability for large models", section 2), and transformers'
// Qwen3MLP has bias=False on all three projections (modeling_qwen3.py).
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
//     -0.278 at z = -1.278) and close to the identity for large z. Replacing it by GELU moves the
//     golden layer's gated values by up to 6% of their largest (Example_geluInstead measures
//     both): a different function from the one the weights were trained with.
//   - Computing e^-z for very negative z overflows to +Inf; 1/(1+Inf) is 0 and z*0 is -0, which is
//     the right limit, so the plain formula is safe in float64.
//
// # A worked example by hand
//
// Example_byHand: hidden 2, intermediate 2, x = [1 2], gate rows (1, 0) and (0, -1), up rows
// (1, 1) and (1, -1), down the identity (so the output is h itself).
//
//	g = x gateᵀ = [1  -2]               u = x upᵀ = [3  -1]
//	silu(g)     = [1·σ(1)  -2·σ(-2)] = [0.7311  -0.2384]      σ(z) = 1/(1+e^-z)
//	h = silu(g) ⊙ u = [0.7311·3  -0.2384·-1] = [2.1932  0.2384]
//
// The plain ReLU block with the same first matrix gives relu(g) = [1 0]: its second unit is off,
// and gets no gradient. Then one unit with gate (1, 0) and up (0, 1) on x = (3, 2), (6, 4),
// (12, 8): SwiGLU gives 5.715, 23.941, 95.999 (four times more for twice the input), ReLU 3, 6, 12.
//
// # Exercises
//
// `go run ./scripts/exercise 06` copies this chapter to workspace/06_mlp with two functions
// stubbed. Write them in this order:
//
//  1. [SiLU] (mlp.go; easy, 5 min): z * sigmoid(z), with no overflow for large |z|.
//  2. [Forward] (mlp.go; medium, 15 min): silu(x gate^T) ⊙ (x up^T) into h; the down projection is
//     given.
//
// Then `go test ./workspace/06_mlp/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (SiLU on the up projection, no SiLU, a sum for the product ...).
//
// # Check your understanding
//
//  1. Compute the worked example's h for x = [2 0] by hand.
//  2. Why does a ReLU block give exactly twice the output for twice the input, and a SwiGLU
//     block about four times, once its gates are open?
//  3. A unit's gate input is negative for every token of the training set. What does it learn
//     under ReLU, and under SiLU?
//  4. How many weights do the MLPs of Qwen3-0.6B hold (28 layers, hidden 1024, intermediate
//     3072), and what share of the 596M parameters is that?
//  5. gate_proj and up_proj have the same shape. What changes if a loader swaps them?
//
// Answers.
//
//  1. g = [2 0], u = [2 2], silu(g) = [2·σ(2) 0] = [1.7616 0], h = [3.5232 0].
//  2. relu(2z) = 2·relu(z) and the matrices are linear, so the whole block is homogeneous of
//     degree 1. silu(g)·u grows like g·u when g is large (silu(g) ≈ g): two factors that each
//     double, so four times.
//  3. Under ReLU its output and its gradient are 0 for every token: it never changes (a dead
//     unit). SiLU's slope is not 0 below 0 (-0.091 at -2), so the gradient still moves its
//     weights, and the unit can come back.
//  4. 28 x 3 x 3072 x 1024 = 264,241,152: 44% of the parameters (chapter 01's CountParams).
//  5. silu(x Uᵀ) ⊙ (x Gᵀ) is another function (SiLU is not symmetric in its two factors): every
//     output changes, with no error. The golden test catches it; shapes cannot.
package mlp
