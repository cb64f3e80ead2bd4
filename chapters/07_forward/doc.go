// Package forward is chapter 07 of the course: the whole Qwen3 forward pass, from token ids to
// next-token logits, assembled from the pieces of chapters 01 to 06.
//
// # The problem
//
// Chapters 03 to 06 built RMSNorm, RoPE, attention and the MLP one at a time, each checked against
// transformers on its own. A language model is those pieces wired together, and the wiring has
// its own ways to go wrong: a forgotten residual connection, the norm applied after instead of
// before a block, the final norm skipped, an LM head that is not the embedding matrix. This
// chapter loads real weights (a GGUF file or a Hugging Face directory, through chapter 01),
// runs the model, and checks every layer's output against transformers' hooks.
//
// # The convention, once for the whole course
//
// Everything is float64 gonum *mat.Dense with one row per token: a sequence of seq tokens is a
// seq x hidden matrix. Weights keep the Hugging Face (and GGUF) orientation [out][in], so every
// linear layer is
//
//	y = x * W^T        (x: seq x in, W: out x in, y: seq x out; in gonum y.Mul(x, W.T()))
//
// # The formula
//
//	x_0    = Embedding[ids]                                   seq x hidden
//	h      = x_l + Attention_l(RMSNorm(x_l, input_layernorm_l))          (chapters 03, 05)
//	x_l+1  = h   + MLP_l(RMSNorm(h, post_attention_layernorm_l))         (chapters 03, 06)
//	logits = RMSNorm(x_L, norm) * LMHead^T                    seq x vocab
//
// Row t of the logits scores every vocabulary entry as the token after ids[0..t]; token t sits at
// position t (RoPE, chapter 04) and attends to tokens 0..t only (the causal mask, chapter 05).
// The residual stream x is only ever added to: each block reads a normalized copy and writes a
// correction. That is why the norms are "pre-norm" and why the final norm is needed at all: the
// stream's scale grows layer after layer (the notebook plots it), and the LM head expects unit RMS.
//
// # Shapes (Qwen3-0.6B; the tiny reference model in parentheses)
//
//	Embedding, LMHead   vocab x hidden          151936 x 1024   (151936 x 32)
//	layers              28                                      (3)
//	q_proj / o_proj     2048 x 1024 / 1024 x 2048               (64 x 32 / 32 x 64)
//	k_proj, v_proj      1024 x 1024  (8 KV heads of 128)        (32 x 32: 2 KV heads of 16)
//	gate, up / down     3072 x 1024 / 1024 x 3072               (96 x 32 / 32 x 96)
//
// In float64 Qwen3-0.6B takes 4.8 GB; this chapter is for understanding and checking, the
// course's qwen3 package is the fast float32 engine.
//
// # The tied LM head
//
// Qwen3-0.6B has tie_word_embeddings: the LM head is the embedding matrix itself, so logit j is
// the dot product of the final state with token j's own embedding. GGUF files of tied models have
// no output.weight at all (the official Qwen3-0.6B GGUF neither), and Load then uses
// token_embd.weight, as llama.cpp does. The tie is by reference: Model.LMHead == Model.Embedding,
// no second copy of the largest matrix. A loader that errors on the missing tensor or silently
// uses zeros (every logit 0) fails the golden tests.
//
// # Loading and checking
//
// Load goes through chapter 01's gguf.OpenModel, which presents either file kind under Hugging
// Face names with numpy-order shapes. The configuration (chapter 01's gguf.Config, the one the
// qwen3 engine uses too) comes from GGUF metadata or config.json, in the hub's form or in
// transformers 5's, and is validated there (query heads a multiple of KV heads, an even head_dim;
// a yarn RoPE or a sliding window is refused rather than computed wrongly). Then every
// tensor's shape is compared with the one the configuration implies before its data is read, so
// a wrong file fails with the tensor's name, its shape and the expected shape, for example
//
//	forward: tensor "model.layers.1.self_attn.q_proj.weight" has shape [32 64], config wants [64 32]
//
// # Debugging a forward pass
//
// ForwardTrace keeps the embeddings, each layer's output, the final norm and the logits.
// GoldenTrace loads transformers' trace of the tiny model for three prompts, and FirstDivergence
// walks both in order and names the first stage that differs:
//
//	layer 0 differs by 0.87 (tolerance 1e-05): check its attention (Q/K/V, QK-norm, RoPE, GQA), its MLP and the two residual adds
//
// Errors propagate forward, so only the first divergence is informative.
//
// # What the model attends to
//
// The trace also keeps every layer's attention probabilities, one seq x seq map per query head
// (Trace.Attn[layer][head]; row = query token, column = key token, zero right of the diagonal).
// For a prompt:
//
//	tr, err := m.ForwardTrace(tok.Encode("The capital of France is"))
//	p := tr.Attn[2][1] // layer 2, head 1: p.At(r, c) is how much token r reads token c
//
// Notebooks 05 and 07 draw them for the tiny model, layers x heads with the tokens on both axes;
// notebook 11 does the same for Qwen3-0.6B when QWEN3_MODEL is set, where trained heads show
// recognisable patterns (most attention on the first token, or on the previous one).
//
// # Gotchas
//
//   - A uniform shift of every position (starting RoPE at 1 instead of 0) changes nothing here:
//     attention scores depend only on position differences (chapter 04). Positions become
//     absolute in chapter 08, where a decoded token must be rotated to its place after the cache.
//   - head_dim (128) is not hidden/heads (64): q_proj is 2048 x 1024, wider than the stream.
//   - The golden hidden states agree to about 2e-6 relative and the logits to 4e-5 absolute: the
//     reference runs in float32, this chapter in float64.
//
// # Exercises
//
// `go run ./scripts/exercise 07` copies this chapter to workspace/07_forward with three methods
// stubbed. Write them in this order (the golden trace needs all three, and its failure names
// the first stage that differs from transformers):
//
//  1. [Model.Embed] (forward.go; easy, 10 min): row t of x is row ids[t] of the embedding matrix.
//  2. [Layer.Forward] (forward.go; medium, 25 min): two pre-norm residual branches, attention then the MLP.
//  3. [Model.Logits] (forward.go; easy, 15 min): the final RMSNorm, then the LM head (tied or not).
//
// Then `go test ./workspace/07_forward/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (row t for row ids[t], a missing residual, the MLP reading x, no final norm ...).
package forward
