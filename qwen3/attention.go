package qwen3

import (
	"fmt"
	"math"

	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// Causal attention over the KV cache, flash-attention style.
//
// The cache keeps each key/value head's positions together: keys packed sixteen positions at a
// time, dimension-major (block b holds keys[16b+i][j] at j*16+i), so that the scores of sixteen
// keys for several query rows are one kernels.AttnTile; values row by row (position-major), so
// that value sums are AttnTiles too. A work item is one key/value head and up to six query rows
// (tokens x the query heads that share it); it walks the keys in blocks of attnKeys with an online
// softmax: per row a running maximum m and sum l, the output o rescaled by e^(m_old−m_new)
// whenever the maximum grows, and divided by l at the end. No score array as long as the context
// is ever stored, and every key and value loaded serves all the rows of the item.

// attnKeys is the number of keys per step of the online softmax.
const attnKeys = 64

// attnScratch is one worker's space for an attention item.
type attnScratch struct {
	q, o []float32 // AttnRows x HeadDim: the rows' queries (scaled by 1/√d) and outputs
	s    []float32 // AttnRows x attnKeys: scores, then softmax weights
	m, l [kernels.AttnRows]float32
}

func newAttnScratch(d int) attnScratch {
	return attnScratch{
		q: make([]float32, kernels.AttnRows*d),
		o: make([]float32, kernels.AttnRows*d),
		s: make([]float32, kernels.AttnRows*attnKeys),
	}
}

// checkAttention says whether the engine's attention can run this configuration.
func checkAttention(c Config) error {
	if c.HeadDim%kernels.AttnLanes != 0 {
		return fmt.Errorf("qwen3: head_dim %d: the engine's attention needs a multiple of %d", c.HeadDim, kernels.AttnLanes)
	}
	return nil
}

// keyBlocks is the number of 16-position key blocks per head in a cache of maxLen positions.
func keyBlocks(maxLen int) int { return (maxLen + kernels.AttnLanes - 1) / kernels.AttnLanes }

// storeKV appends the chunk's keys and values (after QK-norm and RoPE) to the current layer's
// cache, in the layouts above.
func (s *Session) storeKV() {
	c := s.c
	d, kvd, L := c.HeadDim, c.kvDim(), kernels.AttnLanes
	keys, values := s.keys[s.li], s.values[s.li]
	kStride, vStride := keyBlocks(s.maxLen)*d*L, s.maxLen*d
	for t := 0; t < s.n; t++ {
		p := s.pos + t
		for g := 0; g < c.KVHeads; g++ {
			k := s.k[t*kvd+g*d : t*kvd+(g+1)*d]
			blk := keys[g*kStride+p/L*d*L+p%L:]
			for j, v := range k {
				blk[j*L] = v
			}
			copy(values[g*vStride+p*d:g*vStride+(p+1)*d], s.v[t*kvd+g*d:t*kvd+(g+1)*d])
		}
	}
}

// attentionItems returns the number of rows per item (2 when decoding one token of a head pair,
// else 6) and the number of items per key/value head for a chunk of n tokens.
func (s *Session) attentionItems() (rows, perHead int) {
	group := s.c.Heads / s.c.KVHeads
	rows = kernels.AttnRows
	if s.n*group <= 2 {
		rows = 2
	}
	return rows, (s.n*group + rows - 1) / rows
}

// attend runs attention items [lo, hi): item i is key/value head i/perHead and rows
// (i%perHead)·rows .. +rows−1 of the head's n·group query rows (token-major).
func (s *Session) attend(worker, lo, hi int) {
	c := s.c
	d, qd, L := c.HeadDim, c.qDim(), kernels.AttnLanes
	group := c.Heads / c.KVHeads
	rows, perHead := s.attentionItems()
	sc := &s.attn[worker]
	scale := float32(1 / math.Sqrt(float64(d)))
	kStride, vStride := keyBlocks(s.maxLen)*d*L, s.maxLen*d
	for it := lo; it < hi; it++ {
		g, first := it/perHead, it%perHead*rows
		var limit [kernels.AttnRows]int // keys visible to each row: pos+t+1 (0 for padding rows)
		maxKeys := 0
		for r := 0; r < rows; r++ {
			q := sc.q[r*d : (r+1)*d]
			sc.m[r], sc.l[r] = float32(math.Inf(-1)), 0
			clear(sc.o[r*d : (r+1)*d])
			gr := first + r
			if gr >= s.n*group {
				clear(q)
				limit[r] = 0
				continue
			}
			t, h := gr/group, g*group+gr%group
			for i, v := range s.q[t*qd+h*d : t*qd+(h+1)*d] {
				q[i] = v * scale
			}
			limit[r] = s.pos + t + 1
			maxKeys = max(maxKeys, limit[r])
		}
		keys := s.keys[s.li][g*kStride : (g+1)*kStride]
		values := s.values[s.li][g*vStride : (g+1)*vStride]
		for k0 := 0; k0 < maxKeys; k0 += attnKeys {
			kn := min(attnKeys, maxKeys-k0)
			for b := 0; b < kn; b += L { // scores of 16 keys for every row
				kernels.AttnTile(rows, keys[(k0+b)/L*d*L:], L, sc.q, d, d, sc.s[b:], attnKeys, false)
			}
			for r := 0; r < rows; r++ { // online softmax
				w := sc.s[r*attnKeys : r*attnKeys+kn]
				valid := min(kn, limit[r]-k0)
				if valid <= 0 {
					clear(w)
					continue
				}
				mb := w[0]
				for _, v := range w[1:valid] {
					mb = max(mb, v)
				}
				if mb > sc.m[r] {
					if sc.l[r] != 0 {
						alpha := float32(math.Exp(float64(sc.m[r] - mb)))
						sc.l[r] *= alpha
						for i := range sc.o[r*d : (r+1)*d] {
							sc.o[r*d+i] *= alpha
						}
					}
					sc.m[r] = mb
				}
				sc.l[r] += kernels.ExpSub(w[:valid], sc.m[r])
				clear(w[valid:])
			}
			for d0 := 0; d0 < d; d0 += L { // o += weights · values
				kernels.AttnTile(rows, values[k0*d+d0:], d, sc.s, attnKeys, kn, sc.o[d0:], d, true)
			}
		}
		for r := 0; r < rows; r++ {
			gr := first + r
			if gr >= s.n*group {
				break
			}
			t, h := gr/group, g*group+gr%group
			inv := 1 / sc.l[r]
			out := s.att[t*qd+h*d : t*qd+(h+1)*d]
			for i, v := range sc.o[r*d : (r+1)*d] {
				out[i] = v * inv
			}
		}
	}
}
