package forward

import (
	"fmt"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"gonum.org/v1/gonum/mat"
)

// Forward runs the whole model on a sequence of token ids at positions 0 .. len(ids)-1 and returns
// the logits, len(ids) x vocab: row t scores every possible next token after ids[0..t].
//
//	x      = Embed(ids)                       seq x hidden
//	x      = Layer_l(x)   for l = 0 .. L-1     seq x hidden
//	logits = RMSNorm(x, Norm) * LMHead^T       seq x vocab
//
// An empty sequence, an id outside 0 .. vocab-1 or more tokens than max_position_embeddings is an
// error.
func (m *Model) Forward(ids []int) (*mat.Dense, error) {
	tr, err := m.ForwardTrace(ids)
	if err != nil {
		return nil, err
	}
	return tr.Logits, nil
}

// ForwardTrace is Forward keeping every intermediate result: the embeddings, each layer's output,
// each layer's attention probabilities per head, the final norm and the logits (see Trace).
// Nothing extra is computed; Forward just drops the trace. For the attention map of layer l and
// head h on a prompt:
//
//	tr, err := m.ForwardTrace(tok.Encode(prompt))
//	p := tr.Attn[l][h] // seq x seq, row = query token, column = key token
func (m *Model) ForwardTrace(ids []int) (*Trace, error) {
	if len(ids) > m.MaxPositions() {
		return nil, fmt.Errorf("forward: %d tokens exceed the context of %d positions", len(ids), m.MaxPositions())
	}
	x, err := m.Embed(ids)
	if err != nil {
		return nil, err
	}
	tr := &Trace{IDs: append([]int(nil), ids...), Embed: x}
	ac := m.Attention()
	for i := range m.Layers {
		l := &m.Layers[i]
		var probs []*mat.Dense
		x = l.Forward(x, m.Config.RMSNormEps, func(normed *mat.Dense) *mat.Dense {
			var out *mat.Dense
			out, probs = attention.Forward(ac, &l.Attn, m.rot, normed, 0)
			return out
		})
		tr.Layers = append(tr.Layers, x)
		tr.Attn = append(tr.Attn, probs)
	}
	tr.Norm, tr.Logits = m.Logits(x)
	return tr, nil
}

// Embed looks the ids up in the embedding matrix: row t of the result (len(ids) x hidden) is a
// copy of row ids[t] of Embedding. An empty sequence or an id outside 0 .. vocab-1 is an error naming
// the position and the id.
func (m *Model) Embed(ids []int) (*mat.Dense, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("forward: empty token sequence")
	}
	vocab, hidden := m.Embedding.Dims()
	for t, id := range ids {
		if id < 0 || id >= vocab {
			return nil, fmt.Errorf("forward: token %d at position %d is outside the vocabulary 0..%d", id, t, vocab-1)
		}
	}
	x := mat.NewDense(len(ids), hidden, nil)
	// exercise: forward.Model.Embed — row t of x is row ids[t] of the embedding matrix
	// tests: TestEmbedGolden
	// difficulty: easy, 10 min
	for t, id := range ids {
		x.SetRow(t, m.Embedding.RawRowView(id))
	}
	// hint: The embedding matrix has one row per token of the vocabulary. Each position of the
	// input gets a copy of its token's row, nothing more.
	// hint: x[t] = Embedding[ids[t]] for t = 0 .. len(ids)-1: a lookup, no scaling.
	// hint: Three lines:
	//	for t, id := range ids {
	//		x.SetRow(t, m.Embedding.RawRowView(...))
	//	}
	// mistake: row t of the embedding matrix instead of row ids[t]
	// says: not row ids[t], the token
	//	- for t, id := range ids {
	//	- x.SetRow(t, m.Embedding.RawRowView(id))
	//	+ for t := range ids {
	//	+ 	x.SetRow(t, m.Embedding.RawRowView(t))
	// mistake: the embeddings scaled by the hidden size (Gemma scales by sqrt(hidden); Qwen3 does not scale)
	// says: Qwen3 copies them as they are
	//	- }
	//	+ }
	//	+ x.Scale(float64(hidden), x)
	// end exercise
	return x, nil
}

// Forward runs one decoder layer on x (seq x hidden) with the pre-norm residual wiring of Qwen3:
//
//	h   = x + attn(RMSNorm(x, InputNorm))
//	out = h + MLP(RMSNorm(h, PostNorm))
//
// attn is the attention sub-block: it receives the normalized rows and returns their attention
// output after o_proj (seq x hidden). Chapter 07 passes attention over the rows themselves
// (attention.Forward); chapter 08 passes attention over the KV cache. x is not modified.
func (l *Layer) Forward(x *mat.Dense, eps float64, attn func(normed *mat.Dense) *mat.Dense) *mat.Dense {
	// exercise: forward.Layer.Forward — two pre-norm residual branches: attention, then the MLP
	// tests: TestLayersGolden
	// difficulty: medium, 25 min
	h := mat.NewDense(x.RawMatrix().Rows, x.RawMatrix().Cols, nil)
	h.Add(x, attn(rmsnorm.RMSNorm(x, l.InputNorm, eps)))
	out := mat.NewDense(x.RawMatrix().Rows, x.RawMatrix().Cols, nil)
	out.Add(h, l.MLP.Forward(rmsnorm.RMSNorm(h, l.PostNorm, eps)))
	return out
	// hint: A layer has two branches, each "normalize, transform, add back": first attention,
	// then the MLP, which reads what the attention branch produced.
	// hint: h = x + attn(RMSNorm(x, InputNorm)); out = h + MLP(RMSNorm(h, PostNorm)), with
	// RMSNorm from chapter 03 (eps given) and l.MLP.Forward from chapter 06.
	// hint: The shape:
	//	h := mat.NewDense(rows, cols, nil)
	//	h.Add(x, attn(rmsnorm.RMSNorm(x, l.InputNorm, eps)))
	//	out := mat.NewDense(rows, cols, nil)
	//	out.Add(h, ...)
	// mistake: no residual around attention: h is the attention output alone
	// says: the residual around attention is missing
	//	- h.Add(x, attn(rmsnorm.RMSNorm(x, l.InputNorm, eps)))
	//	+ h.Copy(attn(rmsnorm.RMSNorm(x, l.InputNorm, eps)))
	// mistake: the MLP reads the layer input x, not h (attention and MLP side by side, as in GPT-J)
	// says: GPT-J's parallel layout
	//	- out.Add(h, l.MLP.Forward(rmsnorm.RMSNorm(h, l.PostNorm, eps)))
	//	+ out.Add(h, l.MLP.Forward(rmsnorm.RMSNorm(x, l.PostNorm, eps)))
	// mistake: the MLP's input not normalized
	// says: its input is normalized first
	//	- out.Add(h, l.MLP.Forward(rmsnorm.RMSNorm(h, l.PostNorm, eps)))
	//	+ out.Add(h, l.MLP.Forward(h))
	// end exercise
}

// Logits applies the final RMSNorm and the LM head to the last layer's output h (seq x hidden):
//
//	normed = RMSNorm(h, Norm)        seq x hidden
//	logits = normed * LMHead^T       seq x vocab   (LMHead is Embedding when tied)
//
// With a tied head, logit j is the dot product of the normalized state with token j's own
// embedding: the model scores a token by how much the state looks like it.
func (m *Model) Logits(h *mat.Dense) (normed, logits *mat.Dense) {
	// exercise: forward.Model.Logits — final RMSNorm, then project on the (tied) LM head
	// tests: TestFinalNormEps TestGoldenTrace TestUntiedHead TestGoldenLogitsFullVocab ExampleModel_Forward
	// difficulty: easy, 15 min
	normed = rmsnorm.RMSNorm(h, m.Norm, m.Config.RMSNormEps)
	seq, _ := h.Dims()
	vocab, _ := m.LMHead.Dims()
	logits = mat.NewDense(seq, vocab, nil)
	logits.Mul(normed, m.LMHead.T())
	return normed, logits
	// hint: Two steps after the last layer: one more RMSNorm (the model's final norm), then one score
	// per vocabulary entry: how much the normalized state looks like that token's head row.
	// hint: normed = RMSNorm(h, m.Norm, m.Config.RMSNormEps); logits = normed LMHead^T, seq x vocab.
	// m.LMHead is the embedding matrix when the head is tied, its own matrix otherwise.
	// hint: The shape:
	//	normed = rmsnorm.RMSNorm(h, m.Norm, m.Config.RMSNormEps)
	//	logits = mat.NewDense(seq, vocab, nil)
	//	logits.Mul(normed, ...)
	// mistake: the final RMSNorm forgotten
	// says: check the final RMSNorm
	//	- normed = rmsnorm.RMSNorm(h, m.Norm, m.Config.RMSNormEps)
	//	+ normed = h
	// mistake: always the embedding matrix as the head, even when the model has its own lm_head
	// says: multiply by m.LMHead
	//	- logits.Mul(normed, m.LMHead.T())
	//	+ logits.Mul(normed, m.Embedding.T())
	// mistake: the logits computed from h, not from the normalized states
	// says: from the normalized states
	//	- logits.Mul(normed, m.LMHead.T())
	//	+ logits.Mul(h, m.LMHead.T())
	// end exercise
}
