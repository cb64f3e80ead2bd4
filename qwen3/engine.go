package qwen3

import (
	"fmt"
	"math"
	"sync"

	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// The engine: the forward pass of chapters 07 and 08 in float32, over all cores, allocation-free.
//
// A Cache (cache.go) holds one sequence's keys and values; the engine below holds every buffer
// a forward pass needs, sized once per model. Prompts are processed in chunks of up to maxChunk
// tokens, so that each weight row, once read from memory, is used for every token of the chunk;
// decoding is a chunk of one, and a Batch's step a chunk of one token per cache. The layer loop
// reads like chapter 07:
//
//	x  = embed(ids)
//	for each layer:
//	    xb      = rmsnorm(x, input_layernorm)
//	    q, k, v = xb·Qᵀ, xb·Kᵀ, xb·Vᵀ                  one pass over the three matrices (fused)
//	    q, k    = rope(qk_norm(q)), rope(qk_norm(k))   per head, at absolute positions
//	    cache  <- k, v
//	    att     = softmax(q·kᵀ/√d + causal mask)·v     per query head, reading KV head h/group
//	    x      += att·Oᵀ                               the residual add fused into the matrix pass
//	    xb      = rmsnorm(x, post_attention_layernorm)
//	    hb      = silu(xb·Gateᵀ) ⊙ (xb·Upᵀ)             gate and up in one pass (fused)
//	    x      += hb·Downᵀ
//	logits = rmsnorm(x_last, norm)·Headᵀ                the LM head for the last position only

// batchTileMin is the smallest Batch step whose quantized matrices go through kernels.TileQN
// (tokens in lanes, a block's sum flushed once per row and token) instead of the batched dots,
// which keep the one-token kernels' eight lanes per block and so Step's bits: below it the dots
// are faster (a group of 16 lanes would be mostly empty).
const batchTileMin = 12

// maxChunk is the most prompt tokens processed together: each weight row is decoded and packed
// once per chunk (matmul.go), so longer chunks amortize that better, at the cost of buffers.
const maxChunk = 128

// engine is a model's forward pass: every buffer a chunk of up to maxChunk tokens needs, sized
// once, and the loop bodies the worker pool runs. There is one per model, shared by every cache
// and batch: mu lets one forward pass run at a time (the pool runs one matrix pass at a time
// anyway), and Close takes it to wait for the pass in progress before the weights go away.
//
// A chunk is n tokens; token t is ids[t] at position posOf[t] of cache owner[t]. The tokens come
// in segments, each a run of one cache's next positions: segment s is tokens segs[s] ..
// segs[s+1]−1. A prompt chunk is one segment; a Batch's step a segment of one token per cache
// (oneEach); Batch.Run's pass any mix, such as one cache's prompt chunk beside other caches'
// decoding tokens. Attention never mixes two segments in one item: each reads its own cache.
type engine struct {
	m *Model
	c sizes

	mu     sync.Mutex // held by a forward pass, Close, and Cache.Close
	closed bool       // Model.Close ran: no forward pass may start
	idle   *Cache     // Generate's cache between calls (getCache, putCache)

	kh       []uint16 // storeKV's room for one head's keys on their way into a float16 cache
	prepared bool     // attend applies QK-norm and RoPE and stores the keys and values of its items

	// buffers for a chunk of up to maxChunk tokens, row t at t*width
	x, xb, q, k, v, att, hb []float32
	cos, sin                []float32 // per token: HeadDim/2
	final                   []float32 // the last position after the final norm
	invFreq                 []float64
	scratch                 []tileScratch // per worker, for prompt chunks (matmul.go)
	attn                    []attnScratch // per worker (attention.go)

	// The inputs of a matrix pass rounded to int16 blocks for the quantized matrices
	// (kernels.Act), all the chunk's tokens in one Act (row t at t*width): for TileQ (prompts)
	// and for the dot kernels (decoding, and a Batch's tokens); nil when no matrix is quantized.
	xbChunk, attChunk, hbChunk *kernels.Act
	finalAct                   *kernels.Act // the last position's final-norm row (the LM head's input)
	// A Batch's step of batchTileMin tokens or more: the same Acts laid out for kernels.TileQN
	// (nil otherwise, and when no matrix is quantized).
	xbN, attN, hbN, finalsN *kernels.ActN
	tileN                   struct{ xb, att, hb, finals *kernels.ActN } // the buffers behind them

	// the chunk being processed: n tokens, in layer li (l)
	n, li   int
	l       *layer
	posOf   []int
	owner   []*Cache
	segs    []int     // segment starts, and n at the end: len(segs)-1 segments
	items   []int     // attention items before each segment (attentionItems), and all of them at the end
	batch   bool      // a Batch's pass: the logits of every segment's last token, into batchLogits
	oneEach bool      // a Batch's step: every segment is one token
	logits  []float32 // where the last position's logits go: its cache's (one sequence)
	// a Batch's pass: each segment's last token's final-norm row, their Act, and where their
	// logits go (Vocab each: the batch's)
	finals      []float32
	finalsAct   *kernels.Act
	batchLogits []float32

	// what the pool is running, for the error a panic becomes (panic.go)
	stage stage

	// loop bodies, bound once so that running them allocates nothing
	qkvBody, attnBody, oBody, gateUpBody, downBody, headBody func(worker, lo, hi int)
	headBatchBody                                            func(worker, lo, hi int)
	qkvTileBody, oTileBody, gateUpTileBody, downTileBody     func(worker, lo, hi int)

	// A prompt chunk's per-token steps between its matrix passes run over all cores too
	// (tokens.go): the job's operands, each worker's view of an Act, and the bound bodies.
	jobNorm                                   []float32     // normQuantize's weights
	jobAct                                    *kernels.Act  // quantizeTokens' Act (nil: none)
	jobX                                      []float32     // and its inputs,
	jobWidth                                  int           // jobWidth values per token
	jobN                                      *kernels.ActN // layOut's layout of jobAct
	actViews                                  []kernels.Act // per worker
	khs                                       [][]uint16    // per worker: storeKV's kh
	normQuantBody, quantBody, rotateStoreBody func(worker, lo, hi int)
	layOutBody                                func(worker, lo, hi int)
}

// newEngine sizes the buffers of m's forward pass for m.pool's workers.
func newEngine(m *Model) *engine {
	c := m.sizes
	padded := maxChunk + kernels.TileTokens - 1 // the inputs of a matrix pass: tiles read up to TileTokens-1 rows past the chunk
	e := &engine{
		m: m, c: c,
		x:       make([]float32, maxChunk*c.Hidden),
		xb:      make([]float32, padded*c.Hidden),
		q:       make([]float32, maxChunk*c.qDim()),
		k:       make([]float32, maxChunk*c.kvDim()),
		v:       make([]float32, maxChunk*c.kvDim()),
		att:     make([]float32, padded*c.qDim()),
		hb:      make([]float32, padded*c.Intermediate),
		cos:     make([]float32, maxChunk*c.HeadDim/2),
		sin:     make([]float32, maxChunk*c.HeadDim/2),
		final:   make([]float32, c.Hidden),
		finals:  make([]float32, maxChunk*c.Hidden),
		invFreq: rope.InvFreq(c.HeadDim, c.Theta),
		posOf:   make([]int, maxChunk),
		owner:   make([]*Cache, maxChunk),
		segs:    make([]int, 0, maxChunk+1),
		items:   make([]int, 0, maxChunk+1),
		kh:      make([]uint16, c.HeadDim),
	}
	if m.roundsActs() {
		e.finalAct = kernels.NewAct(c.Hidden)
		e.xbChunk, e.attChunk = kernels.NewAct(padded*c.Hidden), kernels.NewAct(padded*c.qDim())
		e.hbChunk = kernels.NewAct(padded * c.Intermediate)
		e.finalsAct = kernels.NewAct(maxChunk * c.Hidden)
		e.tileN.xb, e.tileN.att = kernels.NewActN(maxChunk, c.Hidden), kernels.NewActN(maxChunk, c.qDim())
		e.tileN.hb, e.tileN.finals = kernels.NewActN(maxChunk, c.Intermediate), kernels.NewActN(maxChunk, c.Hidden)
	}
	widest := max(c.Hidden, c.Intermediate, c.qDim())
	for range m.pool.workers() {
		e.scratch = append(e.scratch, newTileScratch(widest))
		e.attn = append(e.attn, newAttnScratch(c.HeadDim))
		e.khs = append(e.khs, make([]uint16, c.HeadDim))
	}
	e.actViews = make([]kernels.Act, m.pool.workers())
	e.qkvBody, e.attnBody, e.oBody = e.qkvRows, e.attend, e.oRows
	e.gateUpBody, e.downBody, e.headBody = e.gateUpRows, e.downRows, e.headRows
	e.headBatchBody = e.headBatchRows
	e.qkvTileBody, e.oTileBody = e.qkvTiles, e.oTiles
	e.gateUpTileBody, e.downTileBody = e.gateUpTiles, e.downTiles
	e.normQuantBody, e.quantBody, e.rotateStoreBody = e.normQuantTokens, e.quantTokens, e.rotateStoreTokens
	e.layOutBody = e.layOutBlocks
	return e
}

// isClosed reports whether Model.Close has run.
func (e *engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// runCache runs a chunk of ids (at most maxChunk, checked by the cache) after cache c's tokens
// and, if wantLogits, leaves the logits of the last one in c.logits.
func (e *engine) runCache(c *Cache, ids []int, wantLogits bool) (err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.usable(c); err != nil {
		return err
	}
	if wantLogits && c.logits == nil {
		c.logits = make([]float32, e.c.Vocab)
	}
	for t := range ids {
		e.owner[t], e.posOf[t] = c, c.Len()+t
	}
	e.segs = append(e.segs[:0], 0, len(ids))
	e.batch, e.oneEach, e.logits = false, false, c.logits
	defer func() { clear(e.owner[:len(ids)]); e.logits = nil }() // the engine keeps no cache alive
	defer e.recover(&err)
	e.forward(ids, wantLogits)
	return nil
}

// runBatch runs ids[i] after the tokens of caches[i] for every i, and leaves the logits of token
// i in logits[i*Vocab:].
func (e *engine) runBatch(caches []*Cache, ids []int, logits []float32) (err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range caches {
		if err := e.usable(c); err != nil {
			return err
		}
	}
	e.segs = e.segs[:0]
	for i, c := range caches {
		e.owner[i], e.posOf[i] = c, c.Len()
		e.segs = append(e.segs, i)
	}
	e.segs = append(e.segs, len(caches))
	e.batch, e.oneEach, e.batchLogits = true, true, logits
	defer func() { clear(e.owner[:len(caches)]); e.batchLogits = nil }() // the engine keeps no cache or batch alive
	defer e.recover(&err)
	e.forward(ids, true)
	return nil
}

// runSegments runs ids[i] after the tokens of caches[i] for every i, all in one pass (flat holds
// room for every id), and leaves the logits of the last token of ids[i] in logits[i*Vocab:].
func (e *engine) runSegments(caches []*Cache, ids [][]int, flat []int, logits []float32) (err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range caches {
		if err := e.usable(c); err != nil {
			return err
		}
	}
	flat, e.segs = flat[:0], e.segs[:0]
	for i, c := range caches {
		e.segs = append(e.segs, len(flat))
		for t := range ids[i] {
			e.owner[len(flat)+t], e.posOf[len(flat)+t] = c, c.Len()+t
		}
		flat = append(flat, ids[i]...)
	}
	e.segs = append(e.segs, len(flat))
	e.batch, e.oneEach, e.batchLogits = true, len(flat) == len(caches), logits
	defer func() { clear(e.owner[:len(flat)]); e.batchLogits = nil }() // the engine keeps no cache or batch alive
	defer e.recover(&err)
	e.forward(flat, true)
	return nil
}

// usable says whether a forward pass may run on cache c; the caller holds mu.
func (e *engine) usable(c *Cache) error {
	switch {
	case e.closed:
		return fmt.Errorf("the model is %w", ErrClosed)
	case c.mem == nil:
		return fmt.Errorf("the cache is %w", ErrClosed)
	}
	return nil
}

// forward runs a chunk of n <= maxChunk tokens: token t is ids[t] at position posOf[t] of cache
// owner[t], in segments segs. If wantLogits, it leaves the logits of the last token in logits,
// or for a Batch's pass those of every segment's last token in batchLogits. The tokens join their caches at the end, so that a
// pass that panics part way leaves every cache as it was.
func (e *engine) forward(ids []int, wantLogits bool) {
	c, p := e.c, e.m.pool
	e.n = len(ids)
	H := c.Hidden
	e.stage = stage{pass: passEmbed}
	for t, id := range ids {
		e.m.embed.Row(id, e.x[t*H:(t+1)*H])
	}
	e.ropeAngles()
	e.countItems()
	outs := len(e.segs) - 1                     // rows of logits
	tiles := e.n >= minTileTokens && !e.oneEach // a prompt chunk (with other caches' tokens or not): tiles; decoding: dot products
	e.xbN, e.attN, e.hbN, e.finalsN = nil, nil, nil, nil
	if e.oneEach && e.n >= batchTileMin && e.tileN.xb != nil && batchTiles() {
		e.xbN, e.attN, e.hbN = e.tileN.xb, e.tileN.att, e.tileN.hb
	}
	if e.batch && outs >= batchTileMin && e.tileN.xb != nil {
		e.finalsN = e.tileN.finals
	}
	e.prepared = !tiles && (e.n == 1 || e.oneEach) // see the attention block below
	if _, _, perHead := e.segItems(1); perHead != 1 {
		e.prepared = false // an item per key/value head and token only
	}
	for i := range e.m.layers {
		e.li, e.l = i, &e.m.layers[i]
		// attention block
		if tiles {
			e.at(passNorm, nil)
			e.normQuantize(e.l.attnNorm)
			e.at(passQKV, e.l.q)
			p.run(blocks(c.qDim())+2*blocks(c.kvDim()), 1, e.qkvTileBody)
			e.at(passRotateStore, nil)
			p.run(e.n, tokenGrain, e.rotateStoreBody)
			e.at(passAttention, nil)
			p.run(e.attentionItemCount(), 1, e.attnBody)
			e.at(passQuantize, nil)
			e.quantizeTokens(e.attChunk, e.att, c.qDim())
			e.at(passO, e.l.o)
			p.run(blocks(H), 1, e.oTileBody)
			// MLP block
			e.at(passNorm, nil)
			e.normQuantize(e.l.ffnNorm)
			e.at(passGateUp, e.l.gate)
			p.run(blocks(c.Intermediate), 1, e.gateUpTileBody)
			e.at(passQuantize, nil)
			e.quantizeTokens(e.hbChunk, e.hb, c.Intermediate)
			e.at(passDown, e.l.down)
			p.run(blocks(H), 1, e.downTileBody)
			continue
		}
		e.at(passNorm, nil)
		e.normQuantizeStep(e.l.attnNorm)
		e.at(passQKV, e.l.q)
		p.run(c.qDim()+2*c.kvDim(), 32, e.qkvBody)
		// One item per token and key/value head (one token, or a Batch's step): each item
		// prepares its own heads (QK-norm, RoPE, into the cache) on its worker first, where
		// these steps ran on one core between the passes (200-300 µs a Q4_K_M token, 2-3%).
		if !e.prepared {
			e.at(passRotateStore, nil)
			e.normRotate()
			e.storeKV()
		}
		e.at(passAttention, nil)
		p.run(e.attentionItemCount(), 1, e.attnBody)
		e.quantizeChunk(e.attChunk, e.attN, e.att, c.qDim())
		e.at(passO, e.l.o)
		p.run(H, 16, e.oBody)
		// MLP block
		e.at(passNorm, nil)
		e.normQuantizeStep(e.l.ffnNorm)
		e.at(passGateUp, e.l.gate)
		p.run(c.Intermediate, 32, e.gateUpBody)
		e.quantizeChunk(e.hbChunk, e.hbN, e.hb, c.Intermediate)
		e.at(passDown, e.l.down)
		p.run(H, 16, e.downBody)
	}
	e.li, e.l = -1, nil
	if wantLogits {
		e.at(passHead, e.m.head)
		if e.batch {
			for s := range outs {
				t := e.segs[s+1] - 1 // the segment's last token
				rmsnorm(e.finals[s*H:(s+1)*H], e.x[t*H:(t+1)*H], e.m.norm, c.Eps)
			}
			quantizeRows(e.finalsAct, e.finalsN, e.finals, outs, H)
			p.run(c.Vocab, 256, e.headBatchBody)
		} else {
			rmsnorm(e.final, e.x[(e.n-1)*H:e.n*H], e.m.norm, c.Eps)
			if e.finalAct != nil {
				e.finalAct.Quantize(e.final)
			}
			p.run(c.Vocab, 256, e.headBody)
		}
	}
	for t, id := range ids {
		e.owner[t].tokens = append(e.owner[t].tokens, id)
	}
}

// ropeAngles fills cos and sin for the chunk's positions, with transformers' float32 angles
// (chapter 04): angle = float32(pos)·inv_freq rounded to float32.
func (e *engine) ropeAngles() {
	half := e.c.HeadDim / 2
	for t := 0; t < e.n; t++ {
		for i, f := range e.invFreq {
			a := rope.Angle32(e.posOf[t], f)
			e.cos[t*half+i] = float32(math.Cos(a))
			e.sin[t*half+i] = float32(math.Sin(a))
		}
	}
}

// normRotate applies QK-norm and RoPE to every head of q and k.
func (e *engine) normRotate() { e.normRotateTokens(0, e.n) }

// normRotateTokens applies QK-norm and RoPE to tokens [lo, hi) of the chunk.
func (e *engine) normRotateTokens(lo, hi int) {
	for t := lo; t < hi; t++ {
		for g := 0; g < e.c.KVHeads; g++ {
			e.normRotateGroup(t, g)
		}
	}
}

// normRotateGroup applies QK-norm and RoPE to token t's key/value head g and the query heads that
// share it (g·group .. (g+1)·group−1).
func (e *engine) normRotateGroup(t, g int) {
	c := e.c
	d, half, group := c.HeadDim, c.HeadDim/2, c.Heads/c.KVHeads
	cos, sin := e.cos[t*half:(t+1)*half], e.sin[t*half:(t+1)*half]
	for h := g * group; h < (g+1)*group; h++ {
		head := e.q[t*c.qDim()+h*d : t*c.qDim()+(h+1)*d]
		rmsnorm(head, head, e.l.qNorm, c.Eps)
		rotate(head, cos, sin)
	}
	head := e.k[t*c.kvDim()+g*d : t*c.kvDim()+(g+1)*d]
	rmsnorm(head, head, e.l.kNorm, c.Eps)
	rotate(head, cos, sin)
}

// headRows computes logits [lo, hi) for the last position.
func (e *engine) headRows(_, lo, hi int) { e.m.head.dotRows(lo, e.logits[lo:hi], e.final, e.finalAct) }

// headBatchRows computes logits [lo, hi) for every segment of a Batch's pass in one kernel call:
// each block of the head's rows is read from memory once and multiplied with every segment's
// last row.
func (e *engine) headBatchRows(_, lo, hi int) {
	e.m.head.dotRowsN(lo, hi-lo, e.batchLogits[lo:], e.c.Vocab, e.finals, e.c.Hidden, e.finalsAct, e.finalsN, len(e.segs)-1)
}

// rmsnorm writes x / sqrt(mean(x²) + eps) · w into dst (dst may be x). The sum of squares is
// accumulated in float64: it is one pass, and it keeps the norm exact to float32 rounding. Four
// partial sums (every fourth value each) let four additions run at once where one sum waits for
// each addition in turn; a prompt's norms (two per token per layer, and QK-norm's per head)
// took 6% of its time with one.
func rmsnorm(dst, x, w []float32, eps float64) {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(x); i += 4 {
		v := x[i : i+4 : i+4]
		s0 += float64(v[0]) * float64(v[0])
		s1 += float64(v[1]) * float64(v[1])
		s2 += float64(v[2]) * float64(v[2])
		s3 += float64(v[3]) * float64(v[3])
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(x[i])
	}
	ss := (s0 + s1) + (s2 + s3)
	scale := float32(1 / math.Sqrt(ss/float64(len(x))+eps))
	dst, w = dst[:len(x)], w[:len(x)]
	for i, v := range x {
		dst[i] = v * scale * w[i]
	}
}

// rotate applies RoPE to one head: element i turns with element i+d/2 (the half-split pairing).
func rotate(head, cos, sin []float32) {
	half := len(head) / 2
	for i := 0; i < half; i++ {
		x0, x1 := head[i], head[i+half]
		head[i] = x0*cos[i] - x1*sin[i]
		head[i+half] = x1*cos[i] + x0*sin[i]
	}
}
