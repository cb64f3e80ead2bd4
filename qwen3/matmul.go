package qwen3

import (
	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// The matrix passes of a layer, in two forms.
//
// Decoding (one token): each output row is one dot product of a weight row, read straight from
// the file's bytes, with the input. The pass streams the matrix once; memory bandwidth bounds it.
//
// Prompts (a chunk of several tokens): the work is rows x tokens dot products, so arithmetic
// bounds it. Rows are taken 32 at a time (kernels.TileRows), decoded to float32 and packed column
// by column (matrix.packRows), then multiplied with twelve tokens at a time (kernels.Tile), so
// that every weight loaded into a register serves many tokens and every input many rows. The
// block-quantized types multiply integers instead, as decoding does: their rows are decoded to
// int16 with float scales (kernels.QPack) and the chunk's inputs rounded once per pass to int16
// blocks (quantizeChunk), for kernels.TileQ.

// minTileTokens is the smallest chunk that uses tiles: below it the dot products are cheaper
// than packing.
const minTileTokens = 3

// blocks is the number of kernels.TileRows-row blocks covering n rows.
func blocks(n int) int { return (n + kernels.TileRows - 1) / kernels.TileRows }

// tileScratch is one worker's space for the prompt form.
type tileScratch struct {
	pack    []float32      // TileRows rows, packed
	staging []float32      // TileRows rows, decoded
	out     []float32      // a block's results for every token: out[t*TileRows+i]
	out2    []float32      // a second block (gate and up together)
	qpack   *kernels.QPack // TileRows rows of a quantized matrix
}

func newTileScratch(widest int) tileScratch {
	return tileScratch{
		pack:    make([]float32, widest*kernels.TileRows),
		staging: make([]float32, widest*kernels.TileRows),
		out:     make([]float32, (maxChunk+kernels.TileTokens)*kernels.TileRows),
		out2:    make([]float32, (maxChunk+kernels.TileTokens)*kernels.TileRows),
		qpack:   kernels.NewQPack(widest),
	}
}

// batchTiles reports whether kernels.TileQN runs in assembly on this processor (AVX-512 VNNI,
// where every block-quantized type has a form): elsewhere a Batch's step takes the batched dots,
// and laying its inputs out for the tile would be work nobody reads.
func batchTiles() bool { return kernels.TileQNFast(kernels.QQ8_0) }

// quantizeChunk rounds the chunk's inputs of a matrix pass (width values per token) into a, for
// the quantized matrices, and lays them out in xn for kernels.TileQN when xn is not nil (a
// Batch's step of batchTileMin tokens or more); it does nothing when the model has none (a is nil).
func (e *engine) quantizeChunk(a *kernels.Act, xn *kernels.ActN, x []float32, width int) {
	if a != nil && xn != nil && e.m.pool.workers() > 1 {
		e.quantizeTokensN(a, xn, x, width)
		return
	}
	quantizeRows(a, xn, x, e.n, width)
}

// quantizeRows is quantizeChunk for the first n rows of x.
func quantizeRows(a *kernels.Act, xn *kernels.ActN, x []float32, n, width int) {
	if a != nil {
		a.Quantize(x[:n*width])
	}
	if xn != nil {
		xn.Set(a, n, width)
	}
}

// blockTimes computes out[t*R+i] = W[r0+i]·in[t*width : t*width+Cols] for the R = TileRows rows from r0
// (rows past the end of W give 0) and every token of the chunk; a is the chunk's inputs rounded
// to int16 blocks (quantizeChunk), which the block-quantized types read instead of in; without
// it (WithExactActivations) they take the float tile.
func (e *engine) blockTimes(sc *tileScratch, w *matrix, r0 int, in []float32, width int, a *kernels.Act, out []float32) {
	k := w.Cols
	rb := w.Type.rowBytes(k)
	// The next block's rows (the worker's next block, as the pool hands out runs of blocks) come
	// from memory while this block's tiles compute, so that packing them finds them in cache: a
	// share of them before each tile, not all at once, where most requests would find the
	// core's queue of misses full, and only once this block is packed.
	next := w.raw[min(r0+kernels.TileRows, w.Rows)*rb : min(r0+2*kernels.TileRows, w.Rows)*rb]
	tiles := (e.n + kernels.TileTokens - 1) / kernels.TileTokens
	if kind, ok := w.Type.qKind(); ok && a != nil {
		rows := min(kernels.TileRows, w.Rows-r0)
		sc.qpack.Pack(kind, k, w.raw[r0*rb:(r0+rows)*rb], rb, rows)
		for i := range tiles {
			kernels.Prefetch(next[i*len(next)/tiles : (i+1)*len(next)/tiles])
			t0 := i * kernels.TileTokens
			kernels.TileQPart(sc.qpack, a, t0, min(kernels.TileTokens, e.n-t0), tileOut(out, t0))
		}
		return
	}
	pack := sc.pack[:k*kernels.TileRows]
	w.packRows(r0, min(kernels.TileRows, w.Rows-r0), pack, sc.staging)
	for i := range tiles {
		t0 := i * kernels.TileTokens
		kernels.Prefetch(next[i*len(next)/tiles : (i+1)*len(next)/tiles])
		kernels.TilePart(pack, in[t0*width:], width, k, min(kernels.TileTokens, e.n-t0), tileOut(out, t0))
	}
}

// tileOut is the part of a block's results (out[t*TileRows+i]) that the tile of tokens t0..t0+11
// writes: the tiles write there directly (out has room for a whole last tile past the chunk).
func tileOut(out []float32, t0 int) *[kernels.TileTokens * kernels.TileRows]float32 {
	return (*[kernels.TileTokens * kernels.TileRows]float32)(out[t0*kernels.TileRows:])
}

// qkvTiles computes blocks [lo, hi) of the fused [Q; K; V] projection for a prompt chunk.
func (e *engine) qkvTiles(worker, lo, hi int) {
	c := e.c
	sc := &e.scratch[worker]
	bq, bk := blocks(c.qDim()), blocks(c.kvDim())
	for b := lo; b < hi; b++ {
		w, out, width, blk := e.l.q, e.q, c.qDim(), b
		if b >= bq+bk {
			w, out, width, blk = e.l.v, e.v, c.kvDim(), b-bq-bk
		} else if b >= bq {
			w, out, width, blk = e.l.k, e.k, c.kvDim(), b-bq
		}
		r0 := blk * kernels.TileRows
		e.blockTimes(sc, w, r0, e.xb, c.Hidden, e.xbChunk, sc.out)
		scatter(out, width, r0, min(kernels.TileRows, width-r0), e.n, sc.out)
	}
}

// scatter writes a block's results (out[t*TileRows+i]) into rows r0..r0+rows-1 of y (row t at t*width).
func scatter(y []float32, width, r0, rows, n int, out []float32) {
	if rows == kernels.TileRows {
		kernels.CopyRows(y[r0:], width, out, n)
		return
	}
	for t := 0; t < n; t++ {
		copy(y[t*width+r0:t*width+r0+rows], out[t*kernels.TileRows:t*kernels.TileRows+rows])
	}
}

// oTiles: blocks [lo, hi) of the output projection, added to the residual stream.
func (e *engine) oTiles(worker, lo, hi int) {
	H, qd := e.c.Hidden, e.c.qDim()
	sc := &e.scratch[worker]
	for b := lo; b < hi; b++ {
		r0 := b * kernels.TileRows
		e.blockTimes(sc, e.l.o, r0, e.att, qd, e.attChunk, sc.out)
		addBlock(e.x, H, r0, min(kernels.TileRows, H-r0), e.n, sc.out)
	}
}

// addBlock adds a block's results into rows r0..r0+rows-1 of y.
func addBlock(y []float32, width, r0, rows, n int, out []float32) {
	if rows == kernels.TileRows {
		kernels.AddRows(y[r0:], width, out, n)
		return
	}
	for t := 0; t < n; t++ {
		dst := y[t*width+r0 : t*width+r0+rows]
		for i, v := range out[t*kernels.TileRows : t*kernels.TileRows+rows] {
			dst[i] += v
		}
	}
}

// gateUpTiles: blocks [lo, hi) of silu(gate)·up.
func (e *engine) gateUpTiles(worker, lo, hi int) {
	H, I := e.c.Hidden, e.c.Intermediate
	sc := &e.scratch[worker]
	for b := lo; b < hi; b++ {
		r0 := b * kernels.TileRows
		rows := min(kernels.TileRows, I-r0)
		e.blockTimes(sc, e.l.gate, r0, e.xb, H, e.xbChunk, sc.out)
		e.blockTimes(sc, e.l.up, r0, e.xb, H, e.xbChunk, sc.out2)
		// silu(gate)·up for the whole block in one call (in place: the block's results are
		// contiguous), then each token's rows into hb: a call per token cost more than its 32 values.
		all := sc.out[:e.n*kernels.TileRows]
		kernels.SiLUMul(all, all, sc.out2)
		scatter(e.hb, I, r0, rows, e.n, sc.out)
	}
}

// downTiles: blocks [lo, hi) of the down projection, added to the residual stream.
func (e *engine) downTiles(worker, lo, hi int) {
	H, I := e.c.Hidden, e.c.Intermediate
	sc := &e.scratch[worker]
	for b := lo; b < hi; b++ {
		r0 := b * kernels.TileRows
		e.blockTimes(sc, e.l.down, r0, e.hb, I, e.hbChunk, sc.out)
		addBlock(e.x, H, r0, min(kernels.TileRows, H-r0), e.n, sc.out)
	}
}

// --- decoding: dot products -----------------------------------------------------------------

// A chunk of decoding is one token (Cache.Step) or one token of each sequence of a Batch: each
// output row is a dot product of a weight row, read straight from the file's bytes, with each
// token's input. The pass streams the matrix once; memory bandwidth bounds it for one token. For
// several tokens the batched kernels (matrix.dotRowsN) decode each block of weights once and
// multiply it with every token's input, so the arithmetic per token shrinks too.

// qkvRows computes rows [lo, hi) of the fused [Q; K; V] projection for every token of the chunk,
// one kernel call per matrix.
func (e *engine) qkvRows(_, lo, hi int) {
	c := e.c
	qd, kvd, H := c.qDim(), c.kvDim(), c.Hidden
	for r := lo; r < hi; {
		w, out, width, first, end := e.l.q, e.q, qd, 0, qd
		if r >= qd+kvd {
			w, out, width, first, end = e.l.v, e.v, kvd, qd+kvd, qd+2*kvd
		} else if r >= qd {
			w, out, width, first, end = e.l.k, e.k, kvd, qd, qd+kvd
		}
		end = min(end, hi)
		w.dotRowsN(r-first, end-r, out[r-first:], width, e.xb, H, e.xbChunk, e.xbN, e.n)
		r = end
	}
}

// addRows computes rows [lo, hi) of w times each token's input (width values per token) and adds
// them to the residual stream: the output and down projections. The products go through the
// worker's scratch, kernels.TileRows rows for every token at a time.
func (e *engine) addRows(worker int, w *matrix, lo, hi int, in []float32, width int, a *kernels.Act, xn *kernels.ActN) {
	H, y := e.c.Hidden, e.scratch[worker].out
	R := e.rowsPerCall(xn, len(y))
	for r0 := lo; r0 < hi; r0 += R {
		rows := min(hi-r0, R)
		w.dotRowsN(r0, rows, y, R, in, width, a, xn, e.n)
		for t := 0; t < e.n; t++ {
			x := e.x[t*H+r0 : t*H+r0+rows]
			for i, v := range y[t*R : t*R+rows] {
				x[i] += v
			}
		}
	}
}

// rowsPerCall is how many rows of a matrix the decoding passes that go through a worker's scratch
// (addRows, gateUpRows) give one dotRowsN call, for a scratch of room floats: kernels.TileRows,
// or for the batched tile (xn not nil) as many whole TileRows as the scratch holds for every token
// of the step. TileQN starts the prefetchers on 16 new rows at each call, and gate and up take
// turns: runs of 32 rows started them about 190 times a layer.
func (e *engine) rowsPerCall(xn *kernels.ActN, room int) int {
	if xn == nil {
		return kernels.TileRows
	}
	return max(room/e.n/kernels.TileRows, 1) * kernels.TileRows
}

// oRows computes rows [lo, hi) of the output projection and adds them to the residual stream.
func (e *engine) oRows(worker, lo, hi int) {
	e.addRows(worker, e.l.o, lo, hi, e.att, e.c.qDim(), e.attChunk, e.attN)
}

// downRows computes rows [lo, hi) of the down projection and adds them to the residual stream.
func (e *engine) downRows(worker, lo, hi int) {
	e.addRows(worker, e.l.down, lo, hi, e.hb, e.c.Intermediate, e.hbChunk, e.hbN)
}

// gateUpRows computes rows [lo, hi) of silu(gate)·up for every token.
func (e *engine) gateUpRows(worker, lo, hi int) {
	H, I := e.c.Hidden, e.c.Intermediate
	g, u := e.scratch[worker].out, e.scratch[worker].out2
	// One token: each matrix's rows in one run, not 32 gate rows then 32 up rows in turn. Each
	// switch between the two matrices started a new stream cold (the kernels prefetch 4 KB ahead
	// in the matrix they read), 192 times a layer: this took Q4_K_M decoding from 85-92 to 90-96
	// tok/s and Q8_0 from 67 to 69.5 (alternated in one process, 2026-11-27).
	if e.n == 1 && hi-lo <= len(g) {
		e.l.gate.dotRows(lo, g[:hi-lo], e.xb, e.xbChunk)
		e.l.up.dotRows(lo, u[:hi-lo], e.xb, e.xbChunk)
		kernels.SiLUMul(e.hb[lo:hi], g[:hi-lo], u[:hi-lo])
		return
	}
	R := e.rowsPerCall(e.xbN, len(g))
	for r0 := lo; r0 < hi; r0 += R {
		rows := min(hi-r0, R)
		e.l.gate.dotRowsN(r0, rows, g, R, e.xb, H, e.xbChunk, e.xbN, e.n)
		e.l.up.dotRowsN(r0, rows, u, R, e.xb, H, e.xbChunk, e.xbN, e.n)
		for t := 0; t < e.n; t++ {
			kernels.SiLUMul(e.hb[t*I+r0:t*I+r0+rows], g[t*R:t*R+rows], u[t*R:t*R+rows])
		}
	}
}
