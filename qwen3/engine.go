package qwen3

import (
	"context"
	"errors"
	"fmt"
	"math"

	rope "github.com/qwen3go/qwen3go/chapters/04_rope"
	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// The engine: the forward pass of chapters 07 and 08 in float32, over all cores, allocation-free.
//
// A Session owns a KV cache and every buffer a forward pass needs, sized once. Prompts are
// processed in chunks of up to maxChunk tokens, so that each weight row, once read from memory,
// is used for every token of the chunk; decoding is a chunk of one. The layer loop reads like
// chapter 07:
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

// maxChunk is the most prompt tokens processed together: each weight row is decoded and packed
// once per chunk (matmul.go), so longer chunks amortize that better, at the cost of buffers.
const maxChunk = 128

// ErrContextFull is returned when a session has no room left for more tokens.
var ErrContextFull = errors.New("qwen3: context is full")

// Session is one conversation's state: the KV cache and the ids in it. It is not safe for
// concurrent use; use one Session per goroutine.
type Session struct {
	m      *Model
	c      sizes
	maxLen int
	tokens []int // the ids whose keys and values are cached, in order

	// The KV cache, per layer and key/value head in the layouts of attention.go, in the model's
	// KVCache type: keys and values for F32, keysH and valuesH (half-precision bits) for F16; the
	// other pair is nil. kh is storeKV's room for one head's keys on their way into keysH.
	keys, values   [][]float32
	keysH, valuesH [][]uint16
	kh             []uint16
	prepared       bool // attend applies QK-norm and RoPE and stores the keys and values of its items

	// buffers for a chunk of up to maxChunk tokens, row t at t*width
	x, xb, q, k, v, att, hb []float32
	cos, sin                []float32 // per token: HeadDim/2
	final                   []float32 // the last position after the final norm
	logits                  []float32 // Vocab
	invFreq                 []float64
	scratch                 []tileScratch // per worker, for prompt chunks (matmul.go)
	attn                    []attnScratch // per worker (attention.go)

	// The inputs of a matrix pass rounded to int16 blocks for the quantized matrices
	// (kernels.Act), all the chunk's tokens in one Act (row t at t*width): for TileQ (prompts)
	// and for the dot kernels (decoding, and a Batch's tokens); nil when no matrix is quantized.
	xbChunk, attChunk, hbChunk *kernels.Act
	finalAct                   *kernels.Act // the last position's final-norm row (the LM head's input)

	// progress, when not nil, is called by Prefill after each chunk with the prompt tokens done
	// and the total (generate.go sets it from Options.Progress, for long prompts).
	progress func(done, total int)

	// the chunk being processed: n tokens from position pos, in layer li (l)
	n, pos, li int
	l          *layer
	// Per token of the chunk: its position and the session whose cache holds its keys and
	// values. For a prompt chunk they are pos+t and s; a Batch's step gives each token its own
	// session (batch is then true, and attention never mixes two tokens in one item).
	posOf []int
	owner []*Session
	batch bool
	// a Batch's step: each token's final-norm row, their Act, and their logits (Vocab each)
	finals      []float32
	finalsAct   *kernels.Act
	batchLogits []float32

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
	actViews                                  []kernels.Act // per worker
	khs                                       [][]uint16    // per worker: storeKV's kh
	normQuantBody, quantBody, rotateStoreBody func(worker, lo, hi int)
}

// NewSession returns a session whose cache holds maxLen tokens; 0 means min(DefaultMaxContext,
// the model's context). The cache is allocated here but the operating system commits its pages only as they
// are written, so a long maxLen costs memory only when used.
func (m *Model) NewSession(maxLen int) (*Session, error) {
	c := m.sizes
	if maxLen == 0 {
		maxLen = min(DefaultMaxContext, c.MaxContext)
	}
	if maxLen < 1 || maxLen > c.MaxContext {
		return nil, fmt.Errorf("qwen3: session length %d outside 1..%d (the model's context)", maxLen, c.MaxContext)
	}
	if err := checkAttention(c); err != nil {
		return nil, err
	}
	padded := maxChunk + kernels.TileTokens - 1 // the inputs of a matrix pass: tiles read up to TileTokens-1 rows past the chunk
	s := &Session{
		m: m, c: c, maxLen: maxLen,
		tokens:  make([]int, 0, maxLen),
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
		logits:  make([]float32, c.Vocab),
		invFreq: rope.InvFreq(c.HeadDim, c.Theta),
		posOf:   make([]int, maxChunk),
		owner:   make([]*Session, maxChunk),
	}
	keyLen, valueLen := c.KVHeads*keyBlocks(maxLen)*kernels.AttnLanes*c.HeadDim, c.KVHeads*maxLen*c.HeadDim
	for range c.Layers {
		if m.kv == F16 {
			s.keysH, s.valuesH = append(s.keysH, make([]uint16, keyLen)), append(s.valuesH, make([]uint16, valueLen))
		} else {
			s.keys, s.values = append(s.keys, make([]float32, keyLen)), append(s.values, make([]float32, valueLen))
		}
	}
	s.kh = make([]uint16, c.HeadDim)
	if m.roundsActs() {
		s.finalAct = kernels.NewAct(c.Hidden)
		s.xbChunk, s.attChunk = kernels.NewAct(padded*c.Hidden), kernels.NewAct(padded*c.qDim())
		s.hbChunk = kernels.NewAct(padded * c.Intermediate)
	}
	widest := max(c.Hidden, c.Intermediate, c.qDim())
	for range m.pool.workers() {
		s.scratch = append(s.scratch, newTileScratch(widest))
		s.attn = append(s.attn, newAttnScratch(c.HeadDim))
	}
	s.qkvBody, s.attnBody, s.oBody = s.qkvRows, s.attend, s.oRows
	s.gateUpBody, s.downBody, s.headBody = s.gateUpRows, s.downRows, s.headRows
	s.headBatchBody = s.headBatchRows
	s.qkvTileBody, s.oTileBody = s.qkvTiles, s.oTiles
	s.gateUpTileBody, s.downTileBody = s.gateUpTiles, s.downTiles
	s.actViews = make([]kernels.Act, m.pool.workers())
	for range m.pool.workers() {
		s.khs = append(s.khs, make([]uint16, c.HeadDim))
	}
	s.normQuantBody, s.quantBody, s.rotateStoreBody = s.normQuantTokens, s.quantTokens, s.rotateStoreTokens
	return s, nil
}

// Len is the number of tokens in the cache; the next token goes at this position.
func (s *Session) Len() int { return len(s.tokens) }

// MaxLen is the cache's capacity.
func (s *Session) MaxLen() int { return s.maxLen }

// Tokens returns the ids in the cache (the slice is the session's: do not modify it).
func (s *Session) Tokens() []int { return s.tokens }

// Reset empties the cache.
func (s *Session) Reset() { s.tokens = s.tokens[:0] }

// Truncate keeps the first n cached tokens and forgets the rest: the cached keys and values of a
// prefix do not depend on what follows it, so a chat can reuse the prefix it shares with its
// previous turn.
func (s *Session) Truncate(n int) {
	if n < len(s.tokens) {
		s.tokens = s.tokens[:max(n, 0)]
	}
}

// Prefill runs ids through the model after the cached tokens and returns the logits that predict
// the token after the last one (a slice owned by the session, valid until its next call).
func (s *Session) Prefill(ctx context.Context, ids []int) ([]float32, error) {
	if len(ids) == 0 {
		return nil, errors.New("qwen3: prefill of no tokens")
	}
	if err := s.check(ids); err != nil {
		return nil, err
	}
	for start := 0; start < len(ids); start += maxChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+maxChunk, len(ids))
		s.forward(ids[start:end], end == len(ids))
		if s.progress != nil {
			s.progress(end, len(ids))
		}
	}
	return s.logits, nil
}

// Step runs one token and returns the logits for the next (owned by the session).
func (s *Session) Step(id int) ([]float32, error) {
	var one [1]int
	one[0] = id
	if err := s.check(one[:]); err != nil {
		return nil, err
	}
	s.forward(one[:], true)
	return s.logits, nil
}

func (s *Session) check(ids []int) error {
	if len(s.tokens)+len(ids) > s.maxLen {
		return fmt.Errorf("%w: %d cached + %d new tokens > %d", ErrContextFull, len(s.tokens), len(ids), s.maxLen)
	}
	for i, id := range ids {
		if id < 0 || id >= s.c.Vocab {
			return fmt.Errorf("qwen3: token %d at index %d is outside the vocabulary (0..%d)", id, i, s.c.Vocab-1)
		}
	}
	return nil
}

// forward runs a chunk of n <= maxChunk tokens at positions Len() .. Len()+n-1 and, if wantLogits,
// leaves the logits of the last one in s.logits.
func (s *Session) forward(ids []int, wantLogits bool) {
	c, p := s.c, s.m.pool
	s.n, s.pos = len(ids), len(s.tokens)
	if !s.batch {
		for t := range ids {
			s.posOf[t], s.owner[t] = s.pos+t, s
		}
	}
	H := c.Hidden
	for t, id := range ids {
		s.m.embed.Row(id, s.x[t*H:(t+1)*H])
	}
	s.ropeAngles()
	tiles := s.n >= minTileTokens && !s.batch    // a prompt chunk: tiles; decoding: dot products
	s.prepared = !tiles && (s.n == 1 || s.batch) // see the attention block below
	if _, _, perHead := s.attentionItems(); perHead != 1 {
		s.prepared = false // an item per key/value head and token only
	}
	for i := range s.m.layers {
		s.li, s.l = i, &s.m.layers[i]
		// attention block
		if tiles {
			s.normQuantize(s.l.attnNorm)
			p.run(blocks(c.qDim())+2*blocks(c.kvDim()), 1, s.qkvTileBody)
			p.run(s.n, tokenGrain, s.rotateStoreBody)
			p.run(s.attentionItemCount(), 1, s.attnBody)
			s.quantizeTokens(s.attChunk, s.att, c.qDim())
			p.run(blocks(H), 1, s.oTileBody)
			// MLP block
			s.normQuantize(s.l.ffnNorm)
			p.run(blocks(c.Intermediate), 1, s.gateUpTileBody)
			s.quantizeTokens(s.hbChunk, s.hb, c.Intermediate)
			p.run(blocks(H), 1, s.downTileBody)
			continue
		}
		for t := 0; t < s.n; t++ {
			rmsnorm(s.xb[t*H:(t+1)*H], s.x[t*H:(t+1)*H], s.l.attnNorm, c.Eps)
		}
		s.quantizeChunk(s.xbChunk, s.xb, H)
		p.run(c.qDim()+2*c.kvDim(), 32, s.qkvBody)
		// One item per token and key/value head (one token, or a Batch's step): each item
		// prepares its own heads (QK-norm, RoPE, into the cache) on its worker first, where
		// these steps ran on one core between the passes (200-300 µs a Q4_K_M token, 2-3%).
		if !s.prepared {
			s.normRotate()
			s.storeKV()
		}
		p.run(s.attentionItemCount(), 1, s.attnBody)
		s.quantizeChunk(s.attChunk, s.att, c.qDim())
		p.run(H, 16, s.oBody)
		// MLP block
		for t := 0; t < s.n; t++ {
			rmsnorm(s.xb[t*H:(t+1)*H], s.x[t*H:(t+1)*H], s.l.ffnNorm, c.Eps)
		}
		s.quantizeChunk(s.xbChunk, s.xb, H)
		p.run(c.Intermediate, 32, s.gateUpBody)
		s.quantizeChunk(s.hbChunk, s.hb, c.Intermediate)
		p.run(H, 16, s.downBody)
	}
	if s.batch {
		for t, id := range ids {
			s.owner[t].tokens = append(s.owner[t].tokens, id)
		}
		if wantLogits {
			for t := 0; t < s.n; t++ {
				rmsnorm(s.finals[t*H:(t+1)*H], s.x[t*H:(t+1)*H], s.m.norm, c.Eps)
			}
			s.quantizeChunk(s.finalsAct, s.finals, H)
			p.run(c.Vocab, 256, s.headBatchBody)
		}
		return
	}
	s.tokens = append(s.tokens, ids...)
	if wantLogits {
		last := s.x[(s.n-1)*H : s.n*H]
		rmsnorm(s.final, last, s.m.norm, c.Eps)
		if s.finalAct != nil {
			s.finalAct.Quantize(s.final)
		}
		p.run(c.Vocab, 256, s.headBody)
	}
}

// ropeAngles fills cos and sin for the chunk's positions, with transformers' float32 angles
// (chapter 04): angle = float32(pos)·inv_freq rounded to float32.
func (s *Session) ropeAngles() {
	half := s.c.HeadDim / 2
	for t := 0; t < s.n; t++ {
		for i, f := range s.invFreq {
			a := rope.Angle32(s.posOf[t], f)
			s.cos[t*half+i] = float32(math.Cos(a))
			s.sin[t*half+i] = float32(math.Sin(a))
		}
	}
}

// normRotate applies QK-norm and RoPE to every head of q and k.
func (s *Session) normRotate() { s.normRotateTokens(0, s.n) }

// normRotateTokens applies QK-norm and RoPE to tokens [lo, hi) of the chunk.
func (s *Session) normRotateTokens(lo, hi int) {
	for t := lo; t < hi; t++ {
		for g := 0; g < s.c.KVHeads; g++ {
			s.normRotateGroup(t, g)
		}
	}
}

// normRotateGroup applies QK-norm and RoPE to token t's key/value head g and the query heads that
// share it (g·group .. (g+1)·group−1).
func (s *Session) normRotateGroup(t, g int) {
	c := s.c
	d, half, group := c.HeadDim, c.HeadDim/2, c.Heads/c.KVHeads
	cos, sin := s.cos[t*half:(t+1)*half], s.sin[t*half:(t+1)*half]
	for h := g * group; h < (g+1)*group; h++ {
		head := s.q[t*c.qDim()+h*d : t*c.qDim()+(h+1)*d]
		rmsnorm(head, head, s.l.qNorm, c.Eps)
		rotate(head, cos, sin)
	}
	head := s.k[t*c.kvDim()+g*d : t*c.kvDim()+(g+1)*d]
	rmsnorm(head, head, s.l.kNorm, c.Eps)
	rotate(head, cos, sin)
}

// headRows computes logits [lo, hi) for the last position.
func (s *Session) headRows(_, lo, hi int) { s.m.head.dotRows(lo, s.logits[lo:hi], s.final, s.finalAct) }

// headBatchRows computes logits [lo, hi) for every token of a Batch's step in one kernel call:
// each block of the head's rows is read from memory once and multiplied with every token's row.
func (s *Session) headBatchRows(_, lo, hi int) {
	s.m.head.dotRowsN(lo, hi-lo, s.batchLogits[lo:], s.c.Vocab, s.finals, s.c.Hidden, s.finalsAct, s.n)
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
