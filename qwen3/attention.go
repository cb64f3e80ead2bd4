package qwen3

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// Causal attention over the KV cache, flash-attention style.
//
// The cache keeps each key/value head's positions together: keys packed sixteen positions at a
// time, dimension-major (block b holds keys[16b+i][j] at j*16+i), so that the scores of sixteen
// keys for several query rows are one kernels.AttnTile; values row by row (position-major), so
// that value sums are AttnTiles too. Tiles go two at a time where they can (kernels.AttnTile32:
// two key blocks, or 32 value dimensions, for the same rows; the same bits as two AttnTiles, and
// on AVX-512 each input is loaded once for both). A work item is one key/value head and up to six query rows
// (tokens x the query heads that share it) in tiles of six, up to attnTiles tiles; it walks the
// keys in blocks of attnKeys (a decoding item of a short context: all of them, see stepKeys)
// with an online softmax: per row a running maximum m and sum l, the
// output o rescaled by e^(m_old−m_new) whenever the maximum grows, and divided by l at the end. No
// score array as long as the context is ever stored, and every key and value loaded from memory
// serves all the rows of the item: a long prompt's attention reads its keys and values once per
// 24 query rows (at 2048 tokens they come from L3, and this is what bounds the attention).
//
// The cache holds float32 or IEEE half precision (KVType: by default float32 for one sequence of
// up to DefaultMaxContext tokens, half for a longer one and a Batch's), in the same
// layouts: storeKV rounds each key and value to the nearest half (kernels.NarrowF16), and the
// tiles widen them as they load them (kernels.AttnTileF16: VCVTPH2PS, exact), so attention never
// makes a float32 copy of the cache. Half the bytes: a decoded token deep in a context reads the
// whole cache once, and the cache's memory at 32k tokens (Qwen3-0.6B: 7 GiB in float32) is more
// than ten times the Q8_0 weights'.

// attnKeys is the number of keys per step of the online softmax; attnTiles the most 6-row tiles
// of an item; attnWhole the most bytes of keys and values a decoding item (two rows) takes in
// one step (256 positions of a float16 cache at Qwen3's head_dim 128, 128 of a float32 one).
const (
	attnKeys  = 64
	attnTiles = 4
	attnMax   = attnTiles * kernels.AttnRows
	attnWhole = 128 << 10
)

// stepKeys is the number of keys per step of an item of rows query rows that sees keys keys,
// each key and value of headBytes bytes. Decoding (two rows) takes a short context whole, in one
// step: there is no rescaling, and the step's prefetches ask for the worker's whole next item
// while it computes this one (its two rows of scores fit the scratch, attnMax x attnKeys, up to
// attnMax·attnKeys/2 keys). A Batch step at the contexts of a chat (16 sequences at 160
// positions) reads its keys and values 1.15-1.27x faster so (BenchmarkAttendDecode, one core,
// 2026-11-27); a longer context keeps steps of attnKeys, whose prefetches stay within the caches
// (steps of 192 to 384 keys read a context of 2,048 positions 6-20% more slowly, 128 as fast).
func stepKeys(rows, keys, headBytes int) int {
	if rows == 2 && keys <= attnMax*attnKeys/2 && 2*keys*headBytes <= attnWhole {
		return (keys + 2*kernels.AttnLanes - 1) &^ (2*kernels.AttnLanes - 1)
	}
	return attnKeys
}

// attnScratch is one worker's space for an attention item.
type attnScratch struct {
	q, o []float32 // attnMax x HeadDim: the rows' queries (scaled by 1/√d) and outputs
	s    []float32 // attnMax x attnKeys: scores, then softmax weights
	m, l [attnMax]float32
}

func newAttnScratch(d int) attnScratch {
	return attnScratch{
		q: make([]float32, attnMax*d),
		o: make([]float32, attnMax*d),
		s: make([]float32, attnMax*attnKeys),
	}
}

// checkAttention says whether the engine's attention can run this configuration.
func checkAttention(c sizes) error {
	if c.HeadDim%kernels.AttnLanes != 0 {
		return fmt.Errorf("qwen3: head_dim %d: the engine's attention needs a multiple of %d", c.HeadDim, kernels.AttnLanes)
	}
	return nil
}

// keyBlocks is the number of 16-position key blocks per head in a cache of maxLen positions.
func keyBlocks(maxLen int) int { return (maxLen + kernels.AttnLanes - 1) / kernels.AttnLanes }

// storeKV appends the chunk's keys and values (after QK-norm and RoPE) to the current layer's
// cache, in the layouts above; a float16 cache gets them rounded to the nearest half
// (kernels.NarrowF16), the only rounding it adds.
func (e *engine) storeKV() { e.storeKVTokens(0, e.n, e.kh) }

// storeKVTokens stores tokens [lo, hi) of the chunk, with kh as room for one head's keys on their
// way into a float16 cache (each token has its own positions: the ranges of several workers, each
// with its own kh, never write the same value).
func (e *engine) storeKVTokens(lo, hi int, kh []uint16) {
	for t := lo; t < hi; t++ {
		for g := 0; g < e.c.KVHeads; g++ {
			e.storeKVHead(t, g, kh)
		}
	}
}

// storeKVHead stores token t's key and value of key/value head g.
func (e *engine) storeKVHead(t, g int, kh []uint16) {
	c := e.c
	d, kvd, L := c.HeadDim, c.kvDim(), kernels.AttnLanes
	o, p := e.owner[t], e.posOf[t]
	kStride, vStride := keyBlocks(o.maxLen)*d*L, o.maxLen*d
	k, v := e.k[t*kvd+g*d:t*kvd+(g+1)*d], e.v[t*kvd+g*d:t*kvd+(g+1)*d]
	kAt, vAt := g*kStride+p/L*d*L+p%L, g*vStride+p*d // key j of the head goes at kAt+j*L
	if o.keysH != nil {
		kernels.NarrowF16(kh, k)
		blk := o.keysH[e.li][kAt:]
		for j, h := range kh {
			blk[j*L] = h
		}
		kernels.NarrowF16(o.valuesH[e.li][vAt:vAt+d], v)
		return
	}
	blk := o.keys[e.li][kAt:]
	for j, x := range k {
		blk[j*L] = x
	}
	copy(o.values[e.li][vAt:vAt+d], v)
}

// headKV is key/value head g's keys and values in layer li of cache o: keys and values for a
// float32 cache, keysH and valuesH for a float16 one (the other pair nil).
func headKV(o *Cache, li, g, d int) (keys, values []float32, keysH, valuesH []uint16) {
	kStride, vStride := keyBlocks(o.maxLen)*d*kernels.AttnLanes, o.maxLen*d
	if o.keysH != nil {
		return nil, nil, o.keysH[li][g*kStride : (g+1)*kStride], o.valuesH[li][g*vStride : (g+1)*vStride]
	}
	return o.keys[li][g*kStride : (g+1)*kStride], o.values[li][g*vStride : (g+1)*vStride], nil, nil
}

// headBytes is the size of one position's key (or value) for one head in cache o, in bytes.
func (e *engine) headBytes(o *Cache) int {
	if o.keysH != nil {
		return 2 * e.c.HeadDim
	}
	return 4 * e.c.HeadDim
}

// kvBytes is n values from off of a head's keys or values (the pair of the cache's type; the
// other is nil), as bytes, for kernels.Prefetch.
func kvBytes(f []float32, h []uint16, off, n int) []byte {
	if n <= 0 {
		return nil
	}
	if h != nil {
		return unsafe.Slice((*byte)(unsafe.Pointer(&h[off])), 2*n)
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[off])), 4*n)
}

// segItems returns the rows per tile (2 when decoding one token of a head pair, else 6), the
// tiles per item and the number of items per key/value head for a segment of n tokens (one
// cache's: a prompt chunk, or one token of a Batch's step).
func (e *engine) segItems(n int) (rows, tiles, perHead int) {
	all := n * e.c.Heads / e.c.KVHeads // query rows per key/value head
	if all <= 2 {
		return 2, 1, 1
	}
	rows = kernels.AttnRows
	tiles = min(attnTiles, (all+rows-1)/rows)
	return rows, tiles, (all + rows*tiles - 1) / (rows * tiles)
}

// countItems fills items: the attention items of the segments before each one, segment by
// segment (KVHeads·perHead each), and their total at the end.
func (e *engine) countItems() {
	e.items = append(e.items[:0], 0)
	for s := 0; s+1 < len(e.segs); s++ {
		_, _, perHead := e.segItems(e.segs[s+1] - e.segs[s])
		e.items = append(e.items, e.items[s]+e.c.KVHeads*perHead)
	}
}

// attentionItemCount is the number of attention items of the chunk (see attend).
func (e *engine) attentionItemCount() int { return e.items[len(e.items)-1] }

// item locates attention item it: it belongs to segment s, reads key/value head g of that
// segment's cache, and computes the query rows first .. end−1 of the chunk's n·group rows
// (token-major: row r is token r/group's query head g·group + r%group), in tiles of rows.
func (e *engine) item(it int) (g, first, end, rows, tiles int) {
	s, found := slices.BinarySearch(e.items, it) // items[s] <= it < items[s+1]
	if !found {                                  // every segment has items: a match is the first item of segment s
		s--
	}
	group := e.c.Heads / e.c.KVHeads
	rows, tiles, perHead := e.segItems(e.segs[s+1] - e.segs[s])
	rest := it - e.items[s]
	g, first = rest/perHead, e.segs[s]*group+rest%perHead*rows*tiles
	return g, first, min(first+rows*tiles, e.segs[s+1]*group), rows, tiles
}

// attend runs attention items [lo, hi) (see item): a segment's items are its key/value heads,
// each split into runs of up to rows·tiles query rows, and an item only reads its segment's rows
// and cache.
func (e *engine) attend(worker, lo, hi int) {
	c := e.c
	d, qd, L := c.HeadDim, c.qDim(), kernels.AttnLanes
	group := c.Heads / c.KVHeads
	sc := &e.attn[worker]
	scale := float32(1 / math.Sqrt(float64(d)))
	for it := lo; it < hi; it++ {
		g, first, end, rows, tiles := e.item(it)
		if e.prepared { // the item is token first/group's head g, and prepares it (forward)
			t := first / group
			e.normRotateGroup(t, g)
			e.storeKVHead(t, g, e.khs[worker])
		}
		o := e.owner[first/group] // every row of the item reads this cache
		var limit [attnMax]int    // keys visible to each row: pos+t+1 (0 for padding rows)
		maxKeys, used := 0, 0     // used: tiles holding at least one real row
		for r := 0; r < rows*tiles; r++ {
			q := sc.q[r*d : (r+1)*d]
			sc.m[r], sc.l[r] = float32(math.Inf(-1)), 0
			clear(sc.o[r*d : (r+1)*d])
			gr := first + r
			if gr >= end {
				clear(q)
				limit[r] = 0
				continue
			}
			t, h := gr/group, g*group+gr%group
			kernels.Scale(q, e.q[t*qd+h*d:t*qd+(h+1)*d], scale)
			limit[r] = e.posOf[t] + 1
			maxKeys = max(maxKeys, limit[r])
			used = r/rows + 1
		}
		keys, values, keysH, valuesH := headKV(o, e.li, g, d) // in the cache's type (the other pair is nil)
		// Decoding reads each key and value once per item, from memory, and this processor's
		// prefetchers stop at every 4 KB page (16 float16 keys): the two-row tiles of one step ask
		// for the next step's keys and values as they compute (kernels.AttnTile32's pf), the
		// scores' calls for its keys, the value sums' for its values, a share each; the last step
		// asks for the first of the worker's next item.
		var kNext, vNext []byte
		ks := stepKeys(rows, maxKeys, e.headBytes(o)) // keys per step, and the stride of the scores' rows
		for k0 := 0; k0 < maxKeys; k0 += ks {
			kn := min(ks, maxKeys-k0)
			if rows == 2 {
				nn := min(ks, maxKeys-k0-kn) // the next step's keys
				kNext, vNext = kvBytes(keys, keysH, (k0+kn)*d, keyBlocks(nn)*d*L), kvBytes(values, valuesH, (k0+kn)*d, nn*d)
				if nn == 0 && it+1 < hi {
					g, first, _, rows, _ := e.item(it + 1)
					t := first / group
					nk, nv, nkH, nvH := headKV(e.owner[t], e.li, g, d)
					nn = min(stepKeys(rows, e.posOf[t]+1, e.headBytes(e.owner[t])), e.posOf[t]+1)
					kNext, vNext = kvBytes(nk, nkH, 0, keyBlocks(nn)*d*L), kvBytes(nv, nvH, 0, nn*d)
				}
			}
			calls := (kn + 2*L - 1) / (2 * L)
			for b := 0; b < kn; { // scores of 32 keys (two blocks: AttnTile32), or of the last 16, for every row
				at, two := (k0+b)/L*d*L, b+L < kn
				i := b / (2 * L)
				pf := kNext[i*len(kNext)/calls : (i+1)*len(kNext)/calls]
				for tl := 0; tl < used; tl++ {
					q, out := sc.q[tl*rows*d:], sc.s[tl*rows*ks+b:]
					switch {
					case keysH != nil && two:
						kernels.AttnTile32F16(rows, keysH[at:], d*L, L, q, d, d, out, ks, false, pf)
					case keysH != nil:
						kernels.AttnTileF16(rows, keysH[at:], L, q, d, d, out, ks, false)
					case two:
						kernels.AttnTile32(rows, keys[at:], d*L, L, q, d, d, out, ks, false, pf)
					default:
						kernels.AttnTile(rows, keys[at:], L, q, d, d, out, ks, false)
					}
				}
				b += L
				if two {
					b += L
				}
			}
			for r := 0; r < used*rows; r++ { // online softmax
				w := sc.s[r*ks : r*ks+kn]
				valid := min(kn, limit[r]-k0)
				if valid <= 0 {
					clear(w)
					continue
				}
				if mb := kernels.Max(w[:valid]); mb > sc.m[r] {
					if sc.l[r] != 0 {
						alpha := float32(math.Exp(float64(sc.m[r] - mb)))
						sc.l[r] *= alpha
						o := sc.o[r*d : (r+1)*d]
						kernels.Scale(o, o, alpha)
					}
					sc.m[r] = mb
				}
				sc.l[r] += kernels.ExpSub(w[:valid], sc.m[r])
				clear(w[valid:])
			}
			for d0 := 0; d0 < d; { // o += weights · values, 32 dimensions at a time (the last 16 alone)
				two := d0+2*L <= d
				pf := vNext[d0*len(vNext)/d : min(d0+2*L, d)*len(vNext)/d]
				for tl := 0; tl < used; tl++ {
					w, out := sc.s[tl*rows*ks:], sc.o[tl*rows*d+d0:]
					switch {
					case valuesH != nil && two:
						kernels.AttnTile32F16(rows, valuesH[k0*d+d0:], L, d, w, ks, kn, out, d, true, pf)
					case valuesH != nil:
						kernels.AttnTileF16(rows, valuesH[k0*d+d0:], d, w, ks, kn, out, d, true)
					case two:
						kernels.AttnTile32(rows, values[k0*d+d0:], L, d, w, ks, kn, out, d, true, pf)
					default:
						kernels.AttnTile(rows, values[k0*d+d0:], d, w, ks, kn, out, d, true)
					}
				}
				d0 += L
				if two {
					d0 += L
				}
			}
		}
		for r := 0; r < used*rows; r++ {
			gr := first + r
			if gr >= end {
				break
			}
			t, h := gr/group, g*group+gr%group
			kernels.Scale(e.att[t*qd+h*d:t*qd+(h+1)*d], sc.o[r*d:(r+1)*d], 1/sc.l[r])
		}
	}
}
