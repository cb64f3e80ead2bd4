package attention

import (
	"fmt"
	"math"
	"slices"

	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"gonum.org/v1/gonum/mat"
)

// Forward runs one Qwen3 attention layer on x (seq x Hidden), the tokens at absolute positions
// startPos .. startPos+seq-1, with no KV cache: the keys are exactly the tokens of x.
//
//	q, k, v = Project(x)                      (projections, QK-norm, RoPE)
//	ctx     = Attend(q, k, v, past = 0)       (causal softmax(q k^T / sqrt(head_dim)) v per head)
//	out     = ctx * O^T                       (seq x Hidden)
//
// It returns out and the attention probabilities, one seq x seq matrix per query head. It panics
// if the weights do not match c (see Weights.Check) or a position is outside the table.
func Forward(c Config, w *Weights, rot *rope.Table, x *mat.Dense, startPos int) (out *mat.Dense, probs []*mat.Dense) {
	q, k, v := Project(c, w, rot, x, startPos)
	ctx, probs := Attend(c, q, k, v, 0)
	seq, _ := x.Dims()
	out = mat.NewDense(seq, c.Hidden, nil)
	out.Mul(ctx, w.O.T())
	return out, probs
}

// Project computes the per-token queries, keys and values of x (seq x Hidden), whose row r is the
// token at absolute position startPos+r:
//
//	q = RoPE(NormHeads(x * Q^T, q_norm), pos)   seq x (Heads*HeadDim)
//	k = RoPE(NormHeads(x * K^T, k_norm), pos)   seq x (KVHeads*HeadDim)
//	v = x * V^T                                 seq x (KVHeads*HeadDim), no norm, no RoPE
//
// Head h occupies columns h*HeadDim .. (h+1)*HeadDim-1. These k and v rows are what a KV cache
// stores (chapter 08). It is ProjectAt with the positions startPos, startPos+1, ... It panics if
// the weights do not match c or rot was built for another head_dim.
func Project(c Config, w *Weights, rot *rope.Table, x *mat.Dense, startPos int) (q, k, v *mat.Dense) {
	seq, _ := x.Dims()
	positions := make([]int, seq)
	for r := range positions {
		positions[r] = startPos + r
	}
	return ProjectAt(c, w, rot, x, positions)
}

// ProjectAt is Project with an explicit absolute position for every row: row r of x is rotated to
// positions[r]. Rows need not be consecutive tokens of one sequence: a batch of sequences stacked
// into one matrix (chapter 10) is projected in one pass over the weights, each row at its own
// sequence's position. It panics if len(positions) differs from the number of rows, if the weights
// do not match c or rot was built for another head_dim.
func ProjectAt(c Config, w *Weights, rot *rope.Table, x *mat.Dense, positions []int) (q, k, v *mat.Dense) {
	if err := w.Check(c); err != nil {
		panic(err)
	}
	if rot == nil {
		panic(errNilTable)
	}
	if rot.HeadDim() != c.HeadDim {
		panic(fmt.Sprintf("attention: RoPE table is for head_dim %d, config has %d", rot.HeadDim(), c.HeadDim))
	}
	if _, hidden := x.Dims(); hidden != c.Hidden {
		panic(fmt.Sprintf("attention: input rows have %d values, hidden size is %d", hidden, c.Hidden))
	}
	if seq, _ := x.Dims(); len(positions) != seq {
		panic(fmt.Sprintf("attention: %d positions for %d rows", len(positions), seq))
	}
	// exercise: attention.ProjectAt — project, QK-norm each head (chapter 03), rotate q and k (chapter 04) to their positions
	// tests: TestForwardGolden TestForwardOffsetGolden TestAttendWithPastMatchesFullPrompt TestProbabilitiesAreCausalDistributions
	// difficulty: hard, 40 min
	seq, _ := x.Dims()
	q = mat.NewDense(seq, c.Heads*c.HeadDim, nil)
	q.Mul(x, w.Q.T())
	k = mat.NewDense(seq, c.KVHeads*c.HeadDim, nil)
	k.Mul(x, w.K.T())
	v = mat.NewDense(seq, c.KVHeads*c.HeadDim, nil)
	v.Mul(x, w.V.T())
	q = rot.RotatePositions(c.qkNorm(q, w.QNorm), positions)
	k = rot.RotatePositions(c.qkNorm(k, w.KNorm), positions)
	return q, k, v
	// hint: Three projections of x, then two more steps for q and k only: chapter 03's QK-norm on
	// each head, then chapter 04's RoPE to each row's position. The values get neither.
	// hint: q = RoPE(NormHeads(x Q^T, q_norm), positions); k = RoPE(NormHeads(x K^T, k_norm),
	// positions); v = x V^T. Shapes: q seq x Heads*HeadDim, k and v seq x KVHeads*HeadDim.
	// hint: The shape:
	//	q = mat.NewDense(seq, c.Heads*c.HeadDim, nil); q.Mul(x, w.Q.T())   // k, v alike
	//	q = rot.RotatePositions(c.qkNorm(q, w.QNorm), positions)           // k alike
	// mistake: RoPE first, then QK-norm
	// says: QK-norm each head, then rotate
	//	- q = rot.RotatePositions(c.qkNorm(q, w.QNorm), positions)
	//	- k = rot.RotatePositions(c.qkNorm(k, w.KNorm), positions)
	//	+ q = c.qkNorm(rot.RotatePositions(q, positions), w.QNorm)
	//	+ k = c.qkNorm(rot.RotatePositions(k, positions), w.KNorm)
	// mistake: the values normalized and rotated like the keys
	// says: with no norm and no RoPE
	//	- return q, k, v
	//	+ return q, k, rot.RotatePositions(c.qkNorm(v, w.KNorm), positions)
	// mistake: every chunk rotated from position 0, the positions ignored
	// says: rotated to its own position
	//	- q = rot.RotatePositions(c.qkNorm(q, w.QNorm), positions)
	//	- k = rot.RotatePositions(c.qkNorm(k, w.KNorm), positions)
	//	+ q = rot.Rotate(c.qkNorm(q, w.QNorm), 0)
	//	+ k = rot.Rotate(c.qkNorm(k, w.KNorm), 0)
	// end exercise
}

// qkNorm is chapter 03's head-wise RMSNorm with this layer's head_dim and eps.
func (c Config) qkNorm(x *mat.Dense, weight []float64) *mat.Dense {
	return rmsnorm.NormHeads(x, weight, c.HeadDim, c.Eps)
}

// KVHead returns the key/value head that query head h reads under grouped-query attention:
// consecutive query heads share a KV head, h / (heads/kvHeads). With Qwen3-0.6B's 16 query and
// 8 KV heads, query heads 0 and 1 read KV head 0, heads 14 and 15 read KV head 7.
func KVHead(h, heads, kvHeads int) int {
	// exercise: attention.KVHead — the GQA head map: consecutive query heads share a KV head
	// tests: TestGQAHeadMap ExampleKVHead
	// difficulty: easy, 5 min
	return h / (heads / kvHeads)
	// hint: There are heads/kvHeads query heads per KV head, and they are neighbours: the first
	// group reads KV head 0, the next group KV head 1, and so on.
	// hint: group = heads / kvHeads; KV head = h / group (integer division). 16 over 8: heads 0, 1
	// read 0; heads 14, 15 read 7.
	// hint: One line: return h / (...)
	// mistake: round-robin, h % kvHeads
	// says: that is h % kvHeads, round-robin
	//	- return h / (heads / kvHeads)
	//	+ return h % kvHeads
	// mistake: divided by the number of KV heads instead of the group size
	// says: that is h / kvHeads
	//	- return h / (heads / kvHeads)
	//	+ return h / kvHeads
	// end exercise
}

// Mask returns the additive causal mask for nq queries attending over nk keys, where the first
// query comes after past keys (past = 0 for a fresh prompt, the cache length when decoding):
//
//	mask[r][j] = 0     if j <= past + r   (the key is the query's own token or an earlier one)
//	           = -Inf  otherwise          (a future token)
//
// The result is nq x nk. It panics if past < 0 or past+nq > nk (a query's own key must be present).
func Mask(nq, nk, past int) *mat.Dense {
	if past < 0 || past+nq > nk {
		panic(fmt.Sprintf("attention: %d queries after %d earlier keys need at least %d keys, got %d", nq, past, past+nq, nk))
	}
	m := mat.NewDense(nq, nk, nil)
	// exercise: attention.Mask — -Inf where the key is in the query's future
	// tests: TestMask ExampleMask
	// difficulty: easy, 10 min
	for r := 0; r < nq; r++ {
		row := m.RawRowView(r)
		for j := past + r + 1; j < nk; j++ {
			row[j] = math.Inf(-1)
		}
	}
	// hint: Query r is the token at key index past+r (the cached keys come first). It may see its
	// own key and every earlier one; everything after it is the future.
	// hint: mask[r][j] = 0 for j <= past+r, -Inf for j > past+r. NewDense starts at 0, so only the
	// future needs writing: math.Inf(-1).
	// hint: The shape:
	//	for r := 0; r < nq; r++ {
	//		row := m.RawRowView(r)
	//		for j := ...; j < nk; j++ { row[j] = math.Inf(-1) }
	//	}
	// mistake: the diagonal masked too, so a token does not see itself
	// says: a token sees itself
	//	- for j := past + r + 1; j < nk; j++ {
	//	+ for j := past + r; j < nk; j++ {
	// mistake: past ignored: query r sees keys 0..r as if nothing were cached
	// says: that is the mask for past = 0
	//	- for j := past + r + 1; j < nk; j++ {
	//	+ for j := r + 1; j < nk; j++ {
	// mistake: the past masked instead of the future
	// says: the past is masked instead of the future
	//	- for j := past + r + 1; j < nk; j++ {
	//	+ for j := 0; j < past+r; j++ {
	// end exercise
	return m
}

// Softmax replaces row by softmax(row) in place: p_j = exp(s_j - max) / Σ exp(s_i - max).
// Subtracting the row maximum keeps exp from overflowing and changes nothing mathematically;
// -Inf entries (masked keys) become exactly 0. The row must contain at least one finite value.
func Softmax(row []float64) {
	// exercise: attention.Softmax — numerically stable softmax; -Inf must give exactly 0
	// tests: TestSoftmax ExampleSoftmax
	// difficulty: easy, 10 min
	m := math.Inf(-1)
	for _, s := range row {
		m = math.Max(m, s)
	}
	var sum float64
	for j, s := range row {
		row[j] = math.Exp(s - m)
		sum += row[j]
	}
	for j := range row {
		row[j] /= sum
	}
	// hint: exp(1000) overflows a float64, and the row holds scores like that. Shifting every score
	// by the same amount does not change the softmax, so shift by the row's maximum first.
	// hint: m = max_j s_j; row[j] = exp(s_j - m) / Σ_i exp(s_i - m). exp(-Inf) is exactly 0, so a
	// masked key comes out 0 with no special case.
	// hint: Three passes over the row: find m; replace each entry by exp(s - m) and add it to a
	// sum; divide each entry by the sum.
	// mistake: exp of the raw scores, without subtracting the maximum
	// says: subtract the row's maximum
	//	- row[j] = math.Exp(s - m)
	//	+ row[j] = math.Exp(s)
	// mistake: the exponentials never divided by their sum
	// says: divide each exp(s_j - max) by the sum
	//	- for j := range row {
	//	- row[j] /= sum
	//	- }
	// mistake: the sum taken over the unshifted exponentials
	// says: the sum of the same exponentials
	//	- sum += row[j]
	//	+ sum += math.Exp(s)
	// mistake: computed in float32, as transformers' softmax does
	// says: compute in float64
	//	- row[j] = math.Exp(s - m)
	//	- sum += row[j]
	//	- }
	//	- for j := range row {
	//	- row[j] /= sum
	//	- }
	//	+ row[j] = float64(float32(math.Exp(s - m)))
	//	+ sum = float64(float32(sum + row[j]))
	//	+ }
	//	+ for j := range row {
	//	+ 	row[j] = float64(float32(row[j]) / float32(sum))
	//	+ }
	// end exercise
}

// Attend is scaled dot-product attention with the causal mask and grouped-query heads, on
// already projected, normalized and rotated inputs:
//
//	for each query head h, with g = KVHead(h):
//	  P_h   = softmax_rows(q_h k_g^T / sqrt(HeadDim) + Mask(nq, nk, past))   nq x nk
//	  ctx_h = P_h v_g                                                      nq x HeadDim
//
// q is nq x (Heads*HeadDim); k and v are nk x (KVHeads*HeadDim) and hold every key the queries may
// see, in position order; query r sits at key index past+r. Without a cache past = 0 and nk = nq;
// with a cache (chapter 08) k and v are the cache and past is its length before this chunk.
// It returns ctx (nq x Heads*HeadDim, heads concatenated, ready for o_proj) and the probabilities
// P_h for every head. It is AttendMask with Mask(nq, nk, past).
func Attend(c Config, q, k, v *mat.Dense, past int) (ctx *mat.Dense, probs []*mat.Dense) {
	nq, _ := q.Dims()
	nk, _ := k.Dims()
	return AttendMask(c, q, k, v, Mask(nq, nk, past))
}

// AttendMask is Attend with an explicit additive mask (nq x nk: 0 where query r may see key j,
// -Inf where it may not) instead of the causal Mask. Chapter 10 uses it to hide padding keys as
// well as future ones. Every row of mask must leave at least one key visible: a row of -Inf only
// would make softmax 0/0. It panics if the shapes do not fit or a row hides every key.
func AttendMask(c Config, q, k, v, mask *mat.Dense) (ctx *mat.Dense, probs []*mat.Dense) {
	nq, qw := q.Dims()
	nk, kw := k.Dims()
	nv, vw := v.Dims()
	d := c.HeadDim
	if qw != c.Heads*d || kw != c.KVHeads*d || vw != c.KVHeads*d || nv != nk {
		panic(fmt.Sprintf("attention: q %dx%d, k %dx%d, v %dx%d do not fit %d heads, %d kv heads of %d",
			nq, qw, nk, kw, nv, vw, c.Heads, c.KVHeads, d))
	}
	if mr, mc := mask.Dims(); mr != nq || mc != nk {
		panic(fmt.Sprintf("attention: mask is %dx%d for %d queries and %d keys", mr, mc, nq, nk))
	}
	for r := 0; r < nq; r++ {
		if !slices.ContainsFunc(mask.RawRowView(r), func(m float64) bool { return !math.IsInf(m, -1) }) {
			panic(fmt.Sprintf("attention: mask row %d hides every key (softmax would be 0/0)", r))
		}
	}
	// exercise: attention.AttendMask — per query head: scores q k^T / sqrt(head_dim) plus the mask, softmax each row, times v
	// tests: TestAttendByHand TestGQASharesKV TestAttendMask
	// difficulty: medium, 25 min
	scale := 1 / math.Sqrt(float64(d))
	ctx = mat.NewDense(nq, c.Heads*d, nil)
	probs = make([]*mat.Dense, c.Heads)
	for h := 0; h < c.Heads; h++ {
		g := KVHead(h, c.Heads, c.KVHeads)
		qh := q.Slice(0, nq, h*d, (h+1)*d)
		kh := k.Slice(0, nk, g*d, (g+1)*d)
		vh := v.Slice(0, nk, g*d, (g+1)*d)
		p := mat.NewDense(nq, nk, nil)
		p.Mul(qh, kh.T())
		p.Scale(scale, p)
		p.Add(p, mask)
		for r := 0; r < nq; r++ {
			Softmax(p.RawRowView(r))
		}
		ctx.Slice(0, nq, h*d, (h+1)*d).(*mat.Dense).Mul(p, vh)
		probs[h] = p
	}
	// hint: Attention is done head by head. Query head h owns columns h*d..(h+1)*d of q and reads
	// the keys and values of KV head KVHead(h, ...) (columns g*d..(g+1)*d of k and v); its output
	// goes into its own columns of ctx.
	// hint: P_h = softmax_rows(q_h k_g^T / sqrt(d) + mask), d = c.HeadDim (not Hidden/Heads);
	// ctx_h = P_h v_g. The mask is added to the scores before the softmax, so -Inf becomes 0.
	// hint: The shape, for each head h:
	//	g := KVHead(h, c.Heads, c.KVHeads)
	//	qh, kh, vh := q.Slice(0, nq, h*d, (h+1)*d), k.Slice(...g...), v.Slice(...g...)
	//	p := mat.NewDense(nq, nk, nil); p.Mul(qh, kh.T()); p.Scale(...); p.Add(p, mask)
	//	for r := 0; r < nq; r++ { Softmax(p.RawRowView(r)) }
	//	ctx.Slice(0, nq, h*d, (h+1)*d).(*mat.Dense).Mul(p, vh); probs[h] = p
	// mistake: the scale 1/sqrt(Hidden/Heads), the head width of models where it equals head_dim
	// says: want 1/sqrt(head_dim)
	//	- scale := 1 / math.Sqrt(float64(d))
	//	+ scale := 1 / math.Sqrt(float64(c.Hidden/c.Heads))
	// mistake: the scores not scaled at all
	// says: want 1/sqrt(head_dim)
	//	- p.Scale(scale, p)
	//	+ _ = scale
	// mistake: the mask added after the softmax, so the probabilities hold -Inf
	// says: the mask is added after the softmax
	//	- p.Add(p, mask)
	//	- for r := 0; r < nq; r++ {
	//	- Softmax(p.RawRowView(r))
	//	- }
	//	+ for r := 0; r < nq; r++ {
	//	+ 	Softmax(p.RawRowView(r))
	//	+ }
	//	+ p.Add(p, mask)
	// mistake: every query head reads the KV head of its own number, as if there were no grouping
	// says: KV head
	//	- kh := k.Slice(0, nk, g*d, (g+1)*d)
	//	- vh := v.Slice(0, nk, g*d, (g+1)*d)
	//	+ kh := k.Slice(0, nk, h*d, (h+1)*d)
	//	+ vh := v.Slice(0, nk, h*d, (h+1)*d)
	//	+ _ = g
	// mistake: the context taken from the keys, P k, not the values
	// says: that is P k
	//	- ctx.Slice(0, nq, h*d, (h+1)*d).(*mat.Dense).Mul(p, vh)
	//	+ ctx.Slice(0, nq, h*d, (h+1)*d).(*mat.Dense).Mul(p, kh)
	//	+ _ = vh
	// end exercise
	return ctx, probs
}
