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
// stream's scale grows layer after layer (the notebook plots it), and the LM head must see every
// token at one scale, whatever its depth. The final RMSNorm divides each token by its RMS (unit RMS)
// and multiplies by the learned weight model.norm.weight, so what reaches the head has the scale
// that weight sets: not 1, and nearly the same for every token whatever its depth (notebook 07
// prints it for the tiny model; not exactly the same, since the weight scales each dimension
// differently and tokens point in different directions).
//
// # Why a residual stream, and why the norm comes first
//
// Without residual connections a deep network is a chain of functions, each one's output the
// next one's only input, and what the first layers knew must survive every later one. Residual
// connections (He et al., "Deep Residual Learning for Image Recognition", 2015, for images; the
// Transformer from the start: Vaswani et al., "Attention Is All You Need", 2017, §3.1) make each
// block add to a running sum instead: x_L = x_0 + Σ_l F_l(...), so the embedding and every block's
// contribution reach the top directly, a block that has nothing to say can output 0 and leave the
// stream as it was, and the gradient reaches every block through the additions. The original
// Transformer normalized after each addition, x = Norm(x + F(x)) ("post-norm", §3.1 there,
// [Layer.PostNormForward]); GPT-2 moved the norm to the input of each block, x = x + F(Norm(x))
// ("pre-norm", Qwen3's wiring), and added a norm after the last block, Qwen3's final RMSNorm
// (Radford et al., "Language Models are Unsupervised Multitask Learners", 2019, §2.3). Pre-norm
// keeps the sum itself free of normalization; Xiong et al. ("On Layer Normalization in the
// Transformer Architecture", 2020) show that post-norm needs a learning-rate warm-up to train
// well, and that pre-norm can do without one.
//
// Example_residual runs the same 28 random layers (weights of variance 1/fan-in, 8 random tokens)
// wired three ways, and measures how alike the tokens' final vectors are (mean cosine between
// pairs: 1 means every token became the same vector) and how much each still points to its input:
//
//	                   RMS after 1, 14, 28 layers   tokens alike   input kept
//	pre-norm (Qwen3)   1.42  3.34  4.84              0.565          0.216
//	post-norm          1.00  1.00  1.00              1.000          0.056
//	no residual        0.58  0.57  0.54              1.000          0.009
//
// Attention averages tokens; stacked 28 times with nothing to hold them apart (no residual), or
// with the stream renormalized after every average (post-norm, where each block's output weighs
// as much as everything before it), every token ends as the same vector and the input is lost.
// In the pre-norm stream the tokens stay distinct and the input is still there, and the stream
// grows (1.42 to 4.84): each block reads a normalized copy, so the growth does not disturb it,
// but the LM head must get a normalized stream too, hence the final RMSNorm. (Random layers are
// not a trained model; they show what the wiring does before training has taught anything.)
//
// # Shapes
//
// Every matrix is [out][in], as Hugging Face stores it (Example_shapes prints this table from the
// two configurations):
//
//	                   Qwen3-0.6B                         tiny reference model
//	Embedding, LMHead  151936 x 1024                      151936 x 64
//	layers             28                                 6
//	q_proj / o_proj    2048 x 1024 / 1024 x 2048          128 x 64 / 64 x 128
//	k_proj, v_proj     1024 x 1024 (8 KV heads of 128)    64 x 64 (2 KV heads of 32)
//	gate, up / down    3072 x 1024 / 1024 x 3072          192 x 64 / 64 x 192
//
// In float64 Qwen3-0.6B takes 4.77 GB (Example_tiedHead); this chapter is for understanding and
// checking, the course's qwen3 package is the fast float32 engine.
//
// # The tied LM head
//
// Qwen3-0.6B has tie_word_embeddings: the LM head is the embedding matrix itself, so logit j is
// the dot product of the final state with token j's own embedding. GGUF files of tied models have
// no output.weight at all (the official Qwen3-0.6B GGUF neither), and Load then uses
// token_embd.weight, as llama.cpp's loader does (src/llama-model.cpp: output.weight is optional,
// and when it is absent token_embd.weight serves as the head; later llama.cpp versions moved
// Qwen3's loader to src/models/qwen3.cpp, with the same fallback).
//
// What the tie costs and saves. Tying the head to the embedding is older than Qwen: Press and
// Wolf ("Using the Output Embedding to Improve Language Models", EACL 2017) found that it lowers
// the perplexity of the language models they tried, as well as saving the matrix, and the
// original Transformer shares it (Vaswani et al. 2017, §3.4). Untied, the output side can learn
// vectors of its own: Chung et al. ("Rethinking Embedding Coupling in Pre-trained Language
// Models", ICLR 2021, on multilingual encoders such as mBERT) found that decoupled input and
// output embeddings gave better downstream results for the same number of fine-tuned
// parameters. The Qwen3 Technical Report (§2, Table 1) ties the embeddings of the 0.6B, 1.7B and
// 4B models and not those of 8B and up. It gives no reason; the split follows size, since the
// matrix grows with the hidden size and the layers with its square, so the larger the model, the
// smaller the matrix's share of it. At 0.6B it is a large one:
// Example_tiedHead counts the untied head's 155,582,464 weights, 26.1% of the 596,049,920 tied
// parameters, 311 MB more in a BF16 file (1.19 GB to 1.50 GB) and 165 MB more in Q8_0. What the
// tie does not save is reading: the head is read whole for every decoded token either way, while
// the embedding gives one row per token, so an untied head costs memory and file size, not
// decoding speed.
//
// The tie is by reference: Model.LMHead == Model.Embedding, no second copy of the largest matrix.
// A loader that errors on the missing tensor or silently uses zeros (every logit 0) fails the
// golden tests.
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
//	forward: tensor "model.layers.1.self_attn.q_proj.weight" has shape [64 128], config wants [128 64]
//
// # Debugging a forward pass
//
// ForwardTrace keeps the embeddings, each layer's output, the final norm and the logits.
// GoldenTrace loads transformers' trace of the tiny model for each golden prompt (GoldenPrompts of
// them), and FirstDivergence walks both in order and names the first stage that differs:
//
//	layer 2 differs by 62.2 (tolerance 1e-05): check its attention (Q/K/V, QK-norm, RoPE, GQA), its MLP and the two residual adds
//
// (ExampleFirstDivergence, after one value of layer 2's output is overwritten.)
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
// Notebook 05 draws them for the tiny model, layers x heads with the tokens on both axes (notebook
// 07 turns them into one score per head and pattern), and notebook 11 draws the best head of
// each pattern, for Qwen3-0.6B when QWEN3_MODEL is set. Xiao et al. ("Efficient
// Streaming Language Models with Attention Sinks", 2023, §3) found that trained language models
// put a large share of their attention on the first tokens whatever they say (an "attention
// sink"); which patterns a given model's heads have is a measurement on text it did not train on,
// with a control for chance, not something to read off one prompt.
//
// # Gotchas
//
//   - A uniform shift of every position (starting RoPE at 1 instead of 0) changes nothing here:
//     attention scores depend only on position differences (chapter 04). Positions become
//     absolute in chapter 08, where a decoded token must be rotated to its place after the cache.
//   - head_dim (128) is not hidden/heads (64): q_proj is 2048 x 1024, wider than the stream.
//   - The golden tests hold hidden states to 1e-5 of the largest value and logits to 1e-4
//     absolute (golden_test.go: hiddenTol, logitTol): the reference runs in float32, this chapter
//     in float64.
//
// # A worked example by hand
//
// Example_byHand: a vocabulary of five tokens, hidden 4, tied head. The embeddings are the four
// unit vectors e0..e3 and token 4 = (0, 0.5, 0.5, 0.5). One layer whose attention adds a quarter of
// the previous token's normalized vector (a "previous token head"), and whose MLP has zero
// weights. All norm weights are 1. Input ids [2 0]:
//
//	x           [0 0 1 0] | [1 0 0 0]                 rows of the embedding
//	RMSNorm(x)  [0 0 2 0] | [2 0 0 0]                 rms of a unit vector in 4 dims is 1/2
//	+ attn      [0 0 1 0] | [1 0 0.5 0]               row 1 adds 0.25 x [0 0 2 0]; row 0 has no past
//	+ MLP       unchanged                             a zero block adds 0: the residual keeps x
//	final norm  [0 0 2 0] | [1.789 0 0.894 0]         rms of [1 0 0.5 0] is sqrt(1.25/4) = 0.559
//	logits[1]   [1.789 0 0.894 0 0.447]               dot with each token's embedding (tied head)
//
// The top logit after "2 0" is token 0 (the current token, still in the stream), then token 2
// (what attention brought in). Without the residual ([Layer.NoResidualForward]) the zero MLP
// replaces the stream: every value is 0, every logit 0.
//
// # Exercises
//
// `go run ./scripts/exercise 07` copies this chapter to workspace/07_forward with three methods
// stubbed. Write them in this order (the golden trace needs all three, and its failure names
// the first stage that differs from transformers):
//
//  1. [Model.Embed] (forward.go; easy, 10 min): row t of x is row ids[t] of the embedding matrix.
//  2. [Layer.Forward] (forward.go; medium, 25 min): two pre-norm residual branches, attention then
//     the MLP.
//  3. [Model.Logits] (forward.go; easy, 15 min): the final RMSNorm, then the LM head (tied or not).
//
// Then `go test ./workspace/07_forward/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (row t for row ids[t], a missing residual, the MLP reading x, no final norm ...).
//
// # Check your understanding
//
//  1. In the worked example, what are the logits of row 0?
//  2. A block's weights are all 0. What does a pre-norm layer do with the stream, and what would a
//     layer without residual connections do?
//  3. Why does Qwen3 need a final RMSNorm before the LM head, though every block's input is
//     normalized already?
//  4. How many parameters would an untied LM head add to Qwen3-0.6B, and what share of the model
//     is the tied one?
//  5. Prompt positions start at 1 instead of 0 by mistake. Which test of this chapter can see it?
//
// Answers.
//
//  1. The final norm of row 0 is [0 0 2 0]; its dot with each embedding: [0 0 2 0 1].
//  2. Pre-norm: both blocks add 0, the stream passes unchanged (a layer can be the identity).
//     Without residuals the layer outputs 0, and everything the stream held is lost.
//  3. Each block reads a normalized copy, but the stream itself is a sum that grows with depth
//     (Example_residual: RMS 1.42 after one layer, 4.84 after 28); the LM head's dot products
//     would grow with it. The final norm divides each token by its RMS, and its learned weight
//     sets the one scale the head sees.
//  4. 151,936 x 1,024 = 155,582,464 weights, as many as the embedding: 26% of the model.
//  5. None of the logits tests: scores depend only on position differences (chapter 04), so
//     every golden value stays within tolerance. What does see absolute positions is a rotated
//     key itself: chapter 08's TestCachedKeysAtTheirPositions compares the keys in the cache
//     with keys rotated to 0, 1, 2, ...
package forward
