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
// by column (Matrix.packRows), then multiplied with twelve tokens at a time (kernels.Tile), so
// that every weight loaded into a register serves many tokens and every input many rows.

// minTileTokens is the smallest chunk that uses tiles: below it the dot products are cheaper
// than packing.
const minTileTokens = 3

// blocks is the number of kernels.TileRows-row blocks covering n rows.
func blocks(n int) int { return (n + kernels.TileRows - 1) / kernels.TileRows }

// tileScratch is one worker's space for the prompt form.
type tileScratch struct {
	pack    []float32                                      // TileRows rows, packed
	staging []float32                                      // TileRows rows, decoded
	tile    [kernels.TileTokens * kernels.TileRows]float32 // one tile's results
	out     []float32                                      // a block's results for every token: out[t*TileRows+i]
	out2    []float32                                      // a second block (gate and up together)
}

func newTileScratch(widest int) tileScratch {
	return tileScratch{
		pack:    make([]float32, widest*kernels.TileRows),
		staging: make([]float32, widest*kernels.TileRows),
		out:     make([]float32, (maxChunk+kernels.TileTokens)*kernels.TileRows),
		out2:    make([]float32, (maxChunk+kernels.TileTokens)*kernels.TileRows),
	}
}

// blockTimes computes out[t*R+i] = W[r0+i]·in[t*width : t*width+Cols] for the R = TileRows rows from r0
// (rows past the end of W give 0) and every token of the chunk.
func (s *Session) blockTimes(sc *tileScratch, w *Matrix, r0 int, in []float32, width int, out []float32) {
	k := w.Cols
	pack := sc.pack[:k*kernels.TileRows]
	w.packRows(r0, min(kernels.TileRows, w.Rows-r0), pack, sc.staging)
	for t0 := 0; t0 < s.n; t0 += kernels.TileTokens {
		kernels.Tile(pack, in[t0*width:], width, k, &sc.tile)
		copy(out[t0*kernels.TileRows:], sc.tile[:])
	}
}

// qkvTiles computes blocks [lo, hi) of the fused [Q; K; V] projection for a prompt chunk.
func (s *Session) qkvTiles(worker, lo, hi int) {
	c := s.c
	sc := &s.scratch[worker]
	bq, bk := blocks(c.qDim()), blocks(c.kvDim())
	for b := lo; b < hi; b++ {
		w, out, width, blk := s.l.q, s.q, c.qDim(), b
		if b >= bq+bk {
			w, out, width, blk = s.l.v, s.v, c.kvDim(), b-bq-bk
		} else if b >= bq {
			w, out, width, blk = s.l.k, s.k, c.kvDim(), b-bq
		}
		r0 := blk * kernels.TileRows
		s.blockTimes(sc, w, r0, s.xb, c.Hidden, sc.out)
		scatter(out, width, r0, min(kernels.TileRows, width-r0), s.n, sc.out)
	}
}

// scatter writes a block's results (out[t*TileRows+i]) into rows r0..r0+rows-1 of y (row t at t*width).
func scatter(y []float32, width, r0, rows, n int, out []float32) {
	for t := 0; t < n; t++ {
		copy(y[t*width+r0:t*width+r0+rows], out[t*kernels.TileRows:t*kernels.TileRows+rows])
	}
}

// oTiles: blocks [lo, hi) of the output projection, added to the residual stream.
func (s *Session) oTiles(worker, lo, hi int) {
	H, qd := s.c.Hidden, s.c.qDim()
	sc := &s.scratch[worker]
	for b := lo; b < hi; b++ {
		r0 := b * kernels.TileRows
		s.blockTimes(sc, s.l.o, r0, s.att, qd, sc.out)
		addBlock(s.x, H, r0, min(kernels.TileRows, H-r0), s.n, sc.out)
	}
}

// addBlock adds a block's results into rows r0..r0+rows-1 of y.
func addBlock(y []float32, width, r0, rows, n int, out []float32) {
	for t := 0; t < n; t++ {
		dst := y[t*width+r0 : t*width+r0+rows]
		for i, v := range out[t*kernels.TileRows : t*kernels.TileRows+rows] {
			dst[i] += v
		}
	}
}

// gateUpTiles: blocks [lo, hi) of silu(gate)·up.
func (s *Session) gateUpTiles(worker, lo, hi int) {
	H, I := s.c.Hidden, s.c.Intermediate
	sc := &s.scratch[worker]
	for b := lo; b < hi; b++ {
		r0 := b * kernels.TileRows
		rows := min(kernels.TileRows, I-r0)
		s.blockTimes(sc, s.l.gate, r0, s.xb, H, sc.out)
		s.blockTimes(sc, s.l.up, r0, s.xb, H, sc.out2)
		for t := 0; t < s.n; t++ {
			kernels.SiLUMul(s.hb[t*I+r0:t*I+r0+rows], sc.out[t*kernels.TileRows:], sc.out2[t*kernels.TileRows:])
		}
	}
}

// downTiles: blocks [lo, hi) of the down projection, added to the residual stream.
func (s *Session) downTiles(worker, lo, hi int) {
	H, I := s.c.Hidden, s.c.Intermediate
	sc := &s.scratch[worker]
	for b := lo; b < hi; b++ {
		r0 := b * kernels.TileRows
		s.blockTimes(sc, s.l.down, r0, s.hb, I, sc.out)
		addBlock(s.x, H, r0, min(kernels.TileRows, H-r0), s.n, sc.out)
	}
}

// --- one token: dot products ----------------------------------------------------------------

// qkvRows computes rows [lo, hi) of the fused [Q; K; V] projection.
func (s *Session) qkvRows(_, lo, hi int) {
	c := s.c
	qd, kvd, H := c.qDim(), c.kvDim(), c.Hidden
	for r := lo; r < hi; r++ {
		w, out, width, row := s.l.q, s.q, qd, r
		if r >= qd+kvd {
			w, out, width, row = s.l.v, s.v, kvd, r-qd-kvd
		} else if r >= qd {
			w, out, width, row = s.l.k, s.k, kvd, r-qd
		}
		for t := 0; t < s.n; t++ {
			out[t*width+row] = w.dot(row, s.xb[t*H:(t+1)*H], s.act(s.xbAct, t))
		}
	}
}

// oRows computes rows [lo, hi) of the output projection and adds them to the residual stream.
func (s *Session) oRows(_, lo, hi int) {
	H, qd := s.c.Hidden, s.c.qDim()
	for r := lo; r < hi; r++ {
		for t := 0; t < s.n; t++ {
			s.x[t*H+r] += s.l.o.dot(r, s.att[t*qd:(t+1)*qd], s.act(s.attAct, t))
		}
	}
}

// gateUpRows computes rows [lo, hi) of silu(gate)·up, up to 64 rows at a time.
func (s *Session) gateUpRows(_, lo, hi int) {
	H, I := s.c.Hidden, s.c.Intermediate
	var g, u [64]float32
	for r0 := lo; r0 < hi; r0 += len(g) {
		r1 := min(hi, r0+len(g))
		for t := 0; t < s.n; t++ {
			xb, a := s.xb[t*H:(t+1)*H], s.act(s.xbAct, t)
			for r := r0; r < r1; r++ {
				g[r-r0], u[r-r0] = s.l.gate.dot(r, xb, a), s.l.up.dot(r, xb, a)
			}
			kernels.SiLUMul(s.hb[t*I+r0:t*I+r1], g[:r1-r0], u[:r1-r0])
		}
	}
}

// downRows computes rows [lo, hi) of the down projection and adds them to the residual stream.
func (s *Session) downRows(_, lo, hi int) {
	H, I := s.c.Hidden, s.c.Intermediate
	for r := lo; r < hi; r++ {
		for t := 0; t < s.n; t++ {
			s.x[t*H+r] += s.l.down.dot(r, s.hb[t*I:(t+1)*I], s.act(s.hbAct, t))
		}
	}
}

// act is token t's Act, or nil when the model has no quantized matrix.
func (s *Session) act(acts []*kernels.Act, t int) *kernels.Act {
	if acts == nil {
		return nil
	}
	return acts[t]
}
