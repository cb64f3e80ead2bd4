package batching

import (
	"errors"
	"fmt"

	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/mat"
)

// Cache is a KV cache for a batch of sequences that advance together: Prefill runs a padded Batch,
// then every Step feeds one new token to every sequence still in the batch. Each sequence keeps
// its own keys and values (padding columns included, hidden by its mask), its own real-column
// flags and its own next position; all of them have the same number of columns, Width().
//
// The point of a batch is that the weights are read once per step for all sequences: the rows of
// every sequence are stacked into one matrix, (B·n) x hidden, and go through each projection, the
// MLP and the LM head in one matrix product. Only attention is per sequence, because each sequence
// attends to its own keys. WeightPasses counts this.
//
// A Cache is not safe for concurrent use.
type Cache struct {
	m      *forward.Model
	maxLen int // columns a sequence may hold: at most the model's max_position_embeddings
	kvw    int // KVHeads*HeadDim: the width of one cached key (or value) row

	seqs   []*sequence
	width  int  // columns cached per sequence, padding included
	filled bool // Prefill has run

	passes int // times the layers' weights were read (see WeightPasses)
}

// sequence is one row of the batch in the cache.
type sequence struct {
	k, v [][]float64 // per layer: width rows of kvw keys (after QK-norm and RoPE) or values, row-major
	real []bool      // per column: a token (true) or padding (false); the same for every layer
	next int         // the RoPE position of this sequence's next token
}

// New returns an empty batched cache for model m whose sequences may hold up to maxLen columns
// each, padding included. maxLen must be between 1 and the model's max_position_embeddings.
func New(m *forward.Model, maxLen int) (*Cache, error) {
	if m == nil {
		return nil, errors.New("batching: nil model")
	}
	if maxLen <= 0 || maxLen > m.MaxPositions() {
		return nil, fmt.Errorf("batching: cache length %d outside 1..%d (the model's max_position_embeddings)", maxLen, m.MaxPositions())
	}
	ac := m.Attention()
	return &Cache{m: m, maxLen: maxLen, kvw: ac.KVHeads * ac.HeadDim}, nil
}

// Len returns the number of sequences in the batch.
func (c *Cache) Len() int { return len(c.seqs) }

// Width returns the number of columns every sequence holds, padding included: the padded prompt
// width T after Prefill, plus one per Step.
func (c *Cache) Width() int { return c.width }

// MaxLen returns the number of columns a sequence may hold.
func (c *Cache) MaxLen() int { return c.maxLen }

// Next returns the RoPE position of the next token of sequence i (0 .. Len()-1): its number of
// real tokens so far with left padding.
func (c *Cache) Next(i int) int { return c.seqs[i].next }

// WeightPasses counts the times the layers' weight matrices have been read since New: one per
// layer for a Prefill and one per layer for a Step, however many sequences the batch holds. Run
// alone, B sequences would need B times as many.
func (c *Cache) WeightPasses() int { return c.passes }

// Prefill runs a padded batch on an empty cache and returns, for each sequence b, the logits of its
// last column (vocab values): the scores of the token after prompt b when the padding is on the
// left. Column t of sequence b is at RoPE position Positions(batch.Real)[b][t]; the keys and
// values of every column are cached, padding included, and the padding stays hidden by the mask.
//
// A cache that already holds a batch, an empty or ragged batch, an id outside the vocabulary or a
// batch wider than MaxLen is an error, and leaves the cache as it was.
func (c *Cache) Prefill(batch *Batch) ([][]float64, error) {
	if c.filled {
		return nil, errors.New("batching: the cache already holds a batch (make a new cache for another)")
	}
	if batch == nil || batch.Len() == 0 || batch.Width() == 0 {
		return nil, errors.New("batching: empty batch")
	}
	width := batch.Width()
	if width > c.maxLen {
		return nil, fmt.Errorf("batching: a batch %d columns wide exceeds the cache's %d", width, c.maxLen)
	}
	ids := make([]int, 0, batch.Len()*width)
	for b := range batch.IDs {
		if len(batch.IDs[b]) != width || len(batch.Real[b]) != width {
			return nil, fmt.Errorf("batching: sequence %d has %d ids and %d flags, the batch is %d wide", b, len(batch.IDs[b]), len(batch.Real[b]), width)
		}
		if err := c.checkIDs(batch.IDs[b], b, 0); err != nil {
			return nil, err
		}
		ids = append(ids, batch.IDs[b]...)
	}
	positions := Positions(batch.Real)
	for b, row := range positions {
		if err := c.checkPositions(row, b, 0); err != nil {
			return nil, err
		}
	}
	layers := len(c.m.Layers)
	var pos []int
	c.seqs = make([]*sequence, batch.Len())
	for b := range c.seqs {
		c.seqs[b] = &sequence{
			k: make([][]float64, layers), v: make([][]float64, layers),
			real: append([]bool(nil), batch.Real[b]...),
		}
		pos = append(pos, positions[b]...)
	}
	c.filled = true
	return c.run(ids, pos, width), nil
}

// Step feeds one token to every sequence in the batch, ids[i] to sequence i, each at its own next
// position, and returns each sequence's logits for the token after it. The new column is real for
// every sequence. A wrong number of ids, an id outside the vocabulary or a full cache is an error
// and leaves the cache as it was.
func (c *Cache) Step(ids []int) ([][]float64, error) {
	if !c.filled {
		return nil, errors.New("batching: Step before Prefill")
	}
	if len(ids) != len(c.seqs) {
		return nil, fmt.Errorf("batching: %d ids for %d sequences", len(ids), len(c.seqs))
	}
	if len(ids) == 0 {
		return nil, errors.New("batching: every sequence has left the batch")
	}
	if c.width+1 > c.maxLen {
		return nil, fmt.Errorf("batching: a step after %d columns exceeds the cache's %d", c.width, c.maxLen)
	}
	for i, id := range ids {
		if err := c.checkIDs([]int{id}, i, c.width); err != nil {
			return nil, err
		}
		if err := c.checkPositions([]int{c.seqs[i].next}, i, c.width); err != nil {
			return nil, err
		}
	}
	pos := make([]int, len(c.seqs))
	// exercise: batching.Cache.Step — each new token is real and sits at its own sequence's next position
	// tests: TestStepsGolden ExampleCache TestBatchedEqualsAlone TestPaddingInvisible TestOneWeightPassPerStep TestRemove
	// difficulty: hard, 40 min
	for i, s := range c.seqs {
		pos[i] = s.next
		s.real = append(s.real, true)
	}
	// hint: One new column for every sequence: its token is real (not padding), and it sits at the
	// position that sequence's own real tokens have reached, whatever its padding.
	// hint: For sequence i: pos[i] = its next position (c.seqs[i].next, counted from its first real
	// token); its flags grow by one true. Cache.run then does the rest (the mask reads the flags).
	// hint: Three lines:
	//	for i, s := range c.seqs {
	//		pos[i] = ...; s.real = append(s.real, ...)
	//	}
	// mistake: the position Width(), the column, counted from the first pad instead of the first real token
	// says: that is its column, counted from the first pad
	//	- pos[i] = s.next
	//	+ pos[i] = c.width
	// mistake: the new column marked as padding, so no query sees its key, not even its own
	// says: the new column is not marked real
	//	- s.real = append(s.real, true)
	//	+ s.real = append(s.real, false)
	// mistake: the new column not added to the flags, so the mask is one key short
	// says: each new column needs its flag
	//	- s.real = append(s.real, true)
	// mistake: every sequence at the first sequence's next position
	// says: each sequence has its own next position
	//	- pos[i] = s.next
	//	+ pos[i] = c.seqs[0].next
	// end exercise
	return c.run(ids, pos, 1), nil
}

// Remove takes sequence i out of the batch (a finished sequence leaves); the sequences after it
// move down one index. Later steps no longer compute anything for it.
func (c *Cache) Remove(i int) error {
	if i < 0 || i >= len(c.seqs) {
		return fmt.Errorf("batching: remove sequence %d of %d", i, len(c.seqs))
	}
	c.seqs = append(c.seqs[:i], c.seqs[i+1:]...)
	return nil
}

// checkIDs reports the first id outside the vocabulary, naming its sequence and column.
func (c *Cache) checkIDs(ids []int, seq, col int) error {
	vocab, _ := c.m.Embedding.Dims()
	for t, id := range ids {
		if id < 0 || id >= vocab {
			return fmt.Errorf("batching: sequence %d, column %d: token %d is outside the vocabulary 0..%d", seq, col+t, id, vocab-1)
		}
	}
	return nil
}

// checkPositions reports a position outside the model's RoPE table, naming its sequence and column.
func (c *Cache) checkPositions(pos []int, seq, col int) error {
	for t, p := range pos {
		if p < 0 || p >= c.m.MaxPositions() {
			return fmt.Errorf("batching: sequence %d, column %d: position %d outside the model's 0..%d", seq, col+t, p, c.m.MaxPositions()-1)
		}
	}
	return nil
}

// run pushes n new columns of every sequence through the model: ids and pos hold B·n entries,
// sequence by sequence (the columns of sequence i are entries i·n .. i·n+n-1), and each
// sequence's real flags already include the new columns. It caches their keys and values, moves
// every sequence's next position past its last new column, and returns the logits of each
// sequence's last new column (B x vocab, as B slices).
func (c *Cache) run(ids, pos []int, n int) [][]float64 {
	x, err := c.m.Embed(ids) // (B·n) x hidden: the rows of all sequences stacked
	if err != nil {
		panic(err) // ids were checked by the caller
	}
	for l := range c.m.Layers {
		x = c.m.Layers[l].Forward(x, c.m.Config.RMSNormEps, func(normed *mat.Dense) *mat.Dense {
			return c.attend(l, normed, pos, n)
		})
	}
	c.width += n
	_, hidden := x.Dims()
	last := mat.NewDense(len(c.seqs), hidden, nil)
	for i, s := range c.seqs {
		s.next = pos[i*n+n-1] + 1
		last.SetRow(i, x.RawRowView(i*n+n-1))
	}
	_, logits := c.m.Logits(last) // one pass over the LM head for every sequence
	out := make([][]float64, len(c.seqs))
	for i := range out {
		out[i] = logits.RawRowView(i)
	}
	return out
}

// attend is layer l's attention sub-block for the whole batch. normed holds n new rows of every
// sequence, stacked (B·n x hidden), at positions pos:
//
//	q, k, v = attention.ProjectAt(normed, pos)                  all B·n rows in one pass
//	for each sequence i, with its rows R_i = i·n .. i·n+n-1:
//	  K_i, V_i = its cached keys and values with k[R_i], v[R_i] appended     Width()+n rows
//	  ctx[R_i] = attention.AttendMask(q[R_i], K_i, V_i, Mask(real_i, n))
//	out     = ctx * O^T                                         all B·n rows in one pass
func (c *Cache) attend(l int, normed *mat.Dense, pos []int, n int) *mat.Dense {
	ac := c.m.Attention()
	w := &c.m.Layers[l].Attn
	c.passes++
	q, k, v := attention.ProjectAt(ac, w, c.m.RoPE(), normed, pos)
	rows, _ := normed.Dims()
	qw := ac.Heads * ac.HeadDim
	ctx := mat.NewDense(rows, qw, nil)
	for i, s := range c.seqs {
		if len(s.real) != c.width+n {
			panic(fmt.Sprintf("batching: sequence %d has real flags for %d columns, its keys fill %d: each new column needs its flag (true for a token) before the model runs",
				i, len(s.real), c.width+n))
		}
		r0, r1 := i*n, i*n+n
		s.k[l] = appendRows(s.k[l], k.Slice(r0, r1, 0, c.kvw))
		s.v[l] = appendRows(s.v[l], v.Slice(r0, r1, 0, c.kvw))
		cols := c.width + n
		keys := mat.NewDense(cols, c.kvw, s.k[l])
		values := mat.NewDense(cols, c.kvw, s.v[l])
		ci, _ := attention.AttendMask(ac, q.Slice(r0, r1, 0, qw).(*mat.Dense), keys, values, Mask(s.real, n))
		ctx.Slice(r0, r1, 0, qw).(*mat.Dense).Copy(ci)
	}
	out := mat.NewDense(rows, ac.Hidden, nil)
	out.Mul(ctx, w.O.T())
	return out
}

// appendRows appends the rows of a to buf (row-major, as wide as a).
func appendRows(buf []float64, a mat.Matrix) []float64 {
	r, _ := a.Dims()
	for i := 0; i < r; i++ {
		buf = append(buf, mat.Row(nil, i, a)...)
	}
	return buf
}
