package kernels

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// TestDispatch runs every operation that has a dispatch table at every level this machine has,
// in every buffer mode this system has (arena_test.go: slices with sentinels around them, slices
// against guard pages), with shapes chosen to take every branch of every table: widths at, below
// and past each form's column step (a width 16 past a multiple of 32, as the 512-bit BF16 dot
// must refuse), row counts at, below and past each form's row step (8 rows for the 512-bit BF16
// dot, 9 to leave it one), stale byte planes, every token group of the batched kernels and their
// passes over column pieces. Each result is checked against the plain Go reference (float64 sums
// within float32 rounding, chapter 01's conversions exactly), and where an operation says so
// against the lowest assembly level bit for bit (its other forms give the same bits) or against
// the one-token kernels (the batched ones). Then the branches: it fails when a table lists a
// branch that no shape took (a new form, or a new branch, needs a shape that reaches it) and when
// a branch was taken that no table lists.
func TestDispatch(t *testing.T) {
	for _, mode := range guardModes {
		t.Run(mode.String(), func(t *testing.T) {
			s := &sweep{mode: mode, asm: map[string][]float32{}, gen: map[string][]float32{}}
			hits := map[Level]map[[2]string]bool{}
			eachLevel(t, func(t *testing.T) {
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
				l := Active()
				hits[l] = map[[2]string]bool{}
				trace = func(op, b string) { hits[l][[2]string{op, b}] = true }
				testScratch = func(n int) []byte { return s.m.bytes("the batched kernels' scratch", n) }
				defer func() { trace, testScratch = nil, nil }()
				s.t, s.lvl, s.m = t, l, arena{mode: mode}
				s.all()
			})
			if len(hits) == int(Supported())+1 && !t.Failed() {
				checkBranches(t, hits)
			}
		})
	}
}

// checkBranches compares the branches taken at each level with those its tables list.
func checkBranches(t *testing.T, hits map[Level]map[[2]string]bool) {
	t.Helper()
	for l, got := range hits {
		want := map[[2]string]bool{}
		for _, o := range ops {
			for _, b := range o.branches(l) {
				want[[2]string{o.name(), b}] = true
			}
		}
		var missing, extra []string
		for k := range want {
			if !got[k] {
				missing = append(missing, k[0]+": "+k[1])
			}
		}
		for k := range got {
			if !want[k] {
				extra = append(extra, k[0]+": "+k[1])
			}
		}
		slices.Sort(missing)
		slices.Sort(extra)
		for _, b := range missing {
			t.Errorf("at %v no shape took the branch %s (give TestDispatch a shape that does)", l, b)
		}
		for _, b := range extra {
			t.Errorf("at %v the branch %s was taken, but no table lists it", l, b)
		}
		if len(missing) == 0 && len(extra) == 0 {
			t.Logf("at %v: all %d branches of %d operations taken", l, len(want), len(ops))
		}
	}
}

// sweep is TestDispatch's state at one level.
type sweep struct {
	t    *testing.T
	mode bufMode
	lvl  Level
	m    arena
	asm  map[string][]float32 // results at the lowest assembly level, by case
	gen  map[string][]float32 // results at Generic, by case
}

// rng is the random source of a case: the same inputs at every level.
func rng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(h.Sum64(), 7))
}

// call runs one call of a case: a fault (guard modes) or a panic becomes an error, and the pads
// (padded mode) are checked after it. It reports whether the call returned.
func (s *sweep) call(name string, f func()) (ok bool) {
	s.t.Helper()
	func() {
		defer func() {
			if r := recover(); r != nil {
				if e, isFault := r.(interface{ Addr() uintptr }); isFault {
					s.t.Errorf("%s at %v, %v buffers: fault at %#x: a kernel read or wrote past a buffer", name, s.lvl, s.mode, e.Addr())
				} else {
					s.t.Errorf("%s at %v: panic: %v", name, s.lvl, r)
				}
			}
		}()
		f()
		ok = true
	}()
	s.m.check(s.t, fmt.Sprintf("%s at %v", name, s.lvl))
	return ok
}

// done ends a case: its buffers are released.
func (s *sweep) done() { s.m.release() }

// sameAsAsm holds got to the lowest assembly level's result for the case, bit for bit.
func (s *sweep) sameAsAsm(name string, got []float32) {
	s.t.Helper()
	switch {
	case s.lvl == 1:
		s.asm[name] = slices.Clone(got)
	case s.lvl > 1:
		if want, ok := s.asm[name]; ok {
			if i := firstDiff(got, want); i >= 0 {
				s.t.Errorf("%s: out[%d] is %v at %v, %v at %v: its assembly forms must give the same bits", name, i, got[i], s.lvl, want[i], Level(1))
			}
		}
	}
}

// sameAsGeneric holds got to the plain Go form's result for the case, bit for bit.
func (s *sweep) sameAsGeneric(name string, got []float32) {
	s.t.Helper()
	if s.lvl == Generic {
		s.gen[name] = slices.Clone(got)
		return
	}
	if want, ok := s.gen[name]; ok {
		if i := firstDiff(got, want); i >= 0 {
			s.t.Errorf("%s: out[%d] is %v at %v, %v in plain Go: every form must give the same bits", name, i, got[i], s.lvl, want[i])
		}
	}
}

// strided returns count runs of n values, stride apart, in one buffer; the gaps hold the sentinel
// (a kernel reading past a run sees NaN) and the runs values from v(i).
func (s *sweep) strided(what string, count, n, stride int, v func(i int) float32) []float32 {
	b := alloc[float32](&s.m, what, max(0, (count-1)*stride+n))
	sentinelF32(b)
	for c := range count {
		for i := range n {
			b[c*stride+i] = v(c*n + i)
		}
	}
	return b
}

func normal(r *rand.Rand) func(int) float32 {
	return func(int) float32 { return float32(r.NormFloat64()) }
}

func (s *sweep) all() {
	s.floatRows()
	s.quantRows()
	s.batchedFloat()
	s.batchedQuant()
	s.tiles()
	s.tilesQ()
	s.tilesQN()
	s.packs()
	s.conversions()
	s.attention()
	s.vectors()
}

// floatRows: DotF32Rows, DotBF16Rows, DotF16Rows; DotQ8_0 (float inputs).
func (s *sweep) floatRows() {
	for _, typ := range []string{"F32", "BF16", "F16"} {
		for _, rows := range []int{1, 3, 8, 9} {
			for _, cols := range []int{0, 3, 8, 17, 48, 64} {
				name := fmt.Sprintf("Dot%sRows %d rows x %d", typ, rows, cols)
				r := rng(name)
				wf := make([]float32, rows*cols)
				wh := make([]uint16, rows*cols)
				for i := range wf {
					switch v := float32(r.NormFloat64()); typ {
					case "F32":
						wf[i] = v
					case "BF16":
						wh[i] = uint16(math.Float32bits(v) >> 16)
						wf[i] = bf16(wh[i])
					case "F16":
						wh[i] = gguf.F32ToF16(v)
						wf[i] = f16(wh[i])
					}
				}
				x := fill(&s.m, "x", randX(r, cols))
				out := alloc[float32](&s.m, "out", rows)
				sentinelF32(out)
				s.call(name, func() {
					switch typ {
					case "F32":
						DotF32Rows(out, fill(&s.m, "w", wf), cols, x)
					case "BF16":
						DotBF16Rows(out, fill(&s.m, "w", wh), cols, x)
					case "F16":
						DotF16Rows(out, fill(&s.m, "w", wh), cols, x)
					}
				})
				for i := range rows {
					if want, abs := refDot(wf[i*cols:(i+1)*cols], x); !closeTo(out[i], want, abs, cols) {
						s.t.Errorf("%s at %v: row %d = %v, float64 reference %v", name, s.lvl, i, out[i], want)
					}
				}
				s.sameAsAsm(name, out)
				s.done()
			}
		}
	}
	for _, nb := range []int{0, 1, 3} {
		name := fmt.Sprintf("DotQ8_0 %d blocks", nb)
		r := rng(name)
		w := fill(&s.m, "w", q8Blocks(r, nb))
		x := fill(&s.m, "x", randX(r, nb*Q8BlockSize))
		var got float32
		s.call(name, func() { got = DotQ8_0(w, x) })
		if want, abs := refDot(dequant(s.t, gguf.TypeQ8_0, w, nb*Q8BlockSize), x); !closeTo(got, want, abs, nb*Q8BlockSize) {
			s.t.Errorf("%s at %v: %v, float64 reference %v", name, s.lvl, got, want)
		}
		s.done()
	}
}

var quantTypes = []gguf.GGMLType{gguf.TypeQ8_0, gguf.TypeQ4_0, gguf.TypeQ4_K, gguf.TypeQ6_K}

// blockCounts are rows' block counts around the steps of the quantized kernels (eight blocks for
// Q8_0 and Q4_0 on amd64, four on arm64; one super-block for Q4_K and Q6_K).
func blockCounts(typ gguf.GGMLType) []int {
	if blockOf[typ].size == QKSize {
		return []int{0, 1, 2}
	}
	return []int{0, 1, 4, 8, 9, 16}
}

// quantRows: Act.Quantize, DotQ*ActRows (fresh and stale byte planes), DecodeQ*.
func (s *sweep) quantRows() {
	for _, n := range []int{0, 32, 96} {
		name := fmt.Sprintf("Act.Quantize %d values", n)
		x := fill(&s.m, "x", randX(rng(name), n))
		if n > 0 {
			x[5] = 50 // a block with one large value
		}
		var a *Act
		s.call(name, func() { a = actIn(&s.m, "act", x, n) })
		want := NewAct(n)
		quantizeActGeneric(want, x)
		for i := range want.Q {
			if a.Q[i] != want.Q[i] || a.Scale[i/ActBlock] != want.Scale[i/ActBlock] || a.Sum[i/ActBlock] != want.Sum[i/ActBlock] || a.Sum16[i/16] != want.Sum16[i/16] {
				s.t.Errorf("%s at %v: value %d is %d·%v (sums %v, %d), plain Go %d·%v (%v, %d)", name, s.lvl, i, a.Q[i], a.Scale[i/ActBlock],
					a.Sum[i/ActBlock], a.Sum16[i/16], want.Q[i], want.Scale[i/ActBlock], want.Sum[i/ActBlock], want.Sum16[i/16])
				break
			}
		}
		s.done()
	}
	for _, typ := range quantTypes {
		b := blockOf[typ]
		for _, nb := range blockCounts(typ) {
			for _, rows := range []int{1, 2, 3, 4, 5, 8} {
				for _, stale := range []bool{false, true} {
					if stale && rows != 3 {
						continue
					}
					name := fmt.Sprintf("Dot%vActRows %d rows x %d blocks (planes stale %v)", typ, rows, nb, stale)
					r := rng(name)
					rowBytes := nb * b.bytes
					w := fill(&s.m, "w", randBlocks(r, typ, rows*nb))
					a := actIn(&s.m, "act", randX(r, nb*b.size), nb*b.size)
					if stale {
						a.MarkWritten() // as after writes through views: the planes may not be read
					}
					out := alloc[float32](&s.m, "out", rows)
					sentinelF32(out)
					s.call(name, func() { rowsKernels[typ](out, w, rowBytes, a) })
					for i := range rows {
						if want, mag := actRef(s.t, typ, w[i*rowBytes:(i+1)*rowBytes], a); !closeTo(out[i], want, mag, nb*b.size) {
							s.t.Errorf("%s at %v: row %d = %v, float64 reference %v", name, s.lvl, i, out[i], want)
						}
					}
					s.sameAsAsm(name, out)
					s.done()
				}
			}
		}
		for _, nb := range []int{0, 1, 3} {
			name := fmt.Sprintf("Decode%v %d blocks", typ, nb)
			w := fill(&s.m, "src", randBlocks(rng(name), typ, nb))
			got := alloc[float32](&s.m, "dst", nb*b.size)
			s.call(name, func() {
				map[gguf.GGMLType]func([]float32, []byte){gguf.TypeQ8_0: DecodeQ8_0, gguf.TypeQ4_0: DecodeQ4_0,
					gguf.TypeQ4_K: DecodeQ4_K, gguf.TypeQ6_K: DecodeQ6_K}[typ](got, w)
			})
			if i := firstDiff(got, dequant(s.t, typ, w, nb*b.size)); i >= 0 {
				s.t.Errorf("%s at %v: value %d = %v, chapter 01 gives %v", name, s.lvl, i, got[i], dequant(s.t, typ, w, nb*b.size)[i])
			}
			s.done()
		}
	}
}

// batchedFloat: DotF32RowsN, DotBF16RowsN, DotF16RowsN against the one-token dots.
func (s *sweep) batchedFloat() {
	for _, typ := range []string{"F32", "BF16", "F16"} {
		for _, rows := range []int{3, 4, 9} {
			for _, cols := range []int{0, 12, 16, 24} {
				for _, tokens := range []int{1, 3, 5, 8, 9} {
					name := fmt.Sprintf("Dot%sRowsN %d rows x %d, %d tokens", typ, rows, cols, tokens)
					r := rng(name)
					outStride, xStride := rows+2, cols+3
					wf := randX(r, rows*cols)
					wh := make([]uint16, len(wf))
					for i, v := range wf {
						if typ == "F16" {
							wh[i] = gguf.F32ToF16(v)
						} else {
							wh[i] = uint16(math.Float32bits(v) >> 16)
						}
					}
					x := s.strided("x", tokens, cols, xStride, normal(r))
					out := s.strided("out", tokens, rows, outStride, func(int) float32 { return sentinelValue })
					s.call(name, func() {
						switch typ {
						case "F32":
							DotF32RowsN(out, outStride, rows, fill(&s.m, "w", wf), cols, x, xStride, tokens)
						case "BF16":
							DotBF16RowsN(out, outStride, rows, fill(&s.m, "w", wh), cols, x, xStride, tokens)
						case "F16":
							DotF16RowsN(out, outStride, rows, fill(&s.m, "w", wh), cols, x, xStride, tokens)
						}
					})
					want := make([]float32, len(out))
					sentinelF32(want)
					for tok := range tokens {
						o, xt := want[tok*outStride:tok*outStride+rows], x[tok*xStride:tok*xStride+cols]
						switch typ {
						case "F32":
							DotF32Rows(o, wf, cols, xt)
						case "BF16":
							DotBF16Rows(o, wh, cols, xt)
						case "F16":
							DotF16Rows(o, wh, cols, xt)
						}
					}
					if i := firstDiff(out, want); i >= 0 {
						s.t.Errorf("%s at %v: token %d row %d = %v, the one-token dot gives %v (a gap between tokens holds the sentinel)",
							name, s.lvl, i/outStride, i%outStride, out[i], want[i])
					}
					s.done()
				}
			}
		}
	}
}

// batchedQuant: DotQ*ActRowsN against the one-token dots on each token of the same Act.
func (s *sweep) batchedQuant() {
	type shape struct{ nb, rows, tokens int }
	for _, typ := range quantTypes {
		b := blockOf[typ]
		var shapes []shape
		for _, nb := range []int{0, 1, 8, 9} {
			if b.size == QKSize && nb > 2 {
				nb -= 7 // 1, 2 super-blocks
			}
			for _, rows := range []int{3, 5} {
				for _, tokens := range []int{1, 3, 5, 8, 9} {
					shapes = append(shapes, shape{nb, rows, tokens})
				}
			}
		}
		// rows wide enough for the 512-bit kernels to go over pieces of their columns, and more
		// rows than they keep accumulators for at once
		wide := 5 * 8
		if b.size == QKSize {
			wide = 5
		}
		shapes = append(shapes, shape{wide, 67, 8}, shape{wide, 5, 4}) // 67 rows: past amd64's vnniRowBlock (64)
		for _, c := range shapes {
			name := fmt.Sprintf("Dot%vActRowsN %d rows x %d blocks, %d tokens", typ, c.rows, c.nb, c.tokens)
			r := rng(name)
			rowBytes, cols, outStride := c.nb*b.bytes, c.nb*b.size, c.rows+2
			w := fill(&s.m, "w", randBlocks(r, typ, c.rows*c.nb))
			a := actIn(&s.m, "act", randX(r, c.tokens*cols), c.tokens*cols)
			out := s.strided("out", c.tokens, c.rows, outStride, func(int) float32 { return sentinelValue })
			s.call(name, func() { rowsNKernels[typ](out, outStride, c.rows, w, rowBytes, a, c.tokens) })
			want := make([]float32, len(out))
			sentinelF32(want)
			for tok := range c.tokens {
				at := a.token(tok, cols)
				rowsKernels[typ](want[tok*outStride:tok*outStride+c.rows], w, rowBytes, &at)
			}
			if i := firstDiff(out, want); i >= 0 {
				s.t.Errorf("%s at %v: token %d row %d = %v, the one-token dot gives %v (a gap between tokens holds the sentinel)",
					name, s.lvl, i/outStride, i%outStride, out[i], want[i])
			}
			s.done()
		}
	}
}

// tiles: Tile and TilePart (against Tile), AddRows and CopyRows.
func (s *sweep) tiles() {
	for _, k := range []int{0, 1, 7, 64} {
		name := fmt.Sprintf("Tile k %d", k)
		r := rng(name)
		xStride := k + 3
		pack := fill(&s.m, "pack", randX(r, k*TileRows))
		x := s.strided("x", TileTokens, k, xStride, normal(r))
		out := (*[TileTokens * TileRows]float32)(alloc[float32](&s.m, "out", TileTokens*TileRows))
		sentinelF32(out[:])
		s.call(name, func() { Tile(pack, x, xStride, k, out) })
		for tok := range TileTokens {
			for i := range TileRows {
				var want, abs float64
				for j := range k {
					p := float64(pack[j*TileRows+i]) * float64(x[tok*xStride+j])
					want, abs = want+p, abs+math.Abs(p)
				}
				if got := out[tok*TileRows+i]; !closeTo(got, want, abs, k) {
					s.t.Errorf("%s at %v: token %d row %d = %v, float64 reference %v", name, s.lvl, tok, i, got, want)
				}
			}
		}
		for _, n := range []int{1, 8, 9, 12} {
			part := (*[TileTokens * TileRows]float32)(alloc[float32](&s.m, "part", TileTokens*TileRows))
			s.call(fmt.Sprintf("TilePart k %d, %d tokens", k, n), func() { TilePart(pack, x, xStride, k, n, part) })
			if i := firstDiff(part[:n*TileRows], out[:n*TileRows]); i >= 0 {
				s.t.Errorf("TilePart k %d, %d tokens at %v: token %d row %d = %v, Tile gives %v", k, n, s.lvl, i/TileRows, i%TileRows, part[i], out[i])
			}
		}
		s.done()
	}
	for _, n := range []int{0, 1, 5} {
		for _, add := range []bool{false, true} {
			name := fmt.Sprintf("AddRows (add %v) %d rows", add, n)
			r := rng(name)
			yStride := TileRows + 7
			x := fill(&s.m, "x", randX(r, n*TileRows))
			y := s.strided("y", n, TileRows, yStride, normal(r))
			want := slices.Clone(y)
			for t := range n {
				for i := range TileRows {
					if add {
						want[t*yStride+i] += x[t*TileRows+i]
					} else {
						want[t*yStride+i] = x[t*TileRows+i]
					}
				}
			}
			s.call(name, func() {
				if add {
					AddRows(y, yStride, x, n)
				} else {
					CopyRows(y, yStride, x, n)
				}
			})
			if i := firstDiff(y, want); i >= 0 {
				s.t.Errorf("%s at %v: y[%d] = %v, want %v", name, s.lvl, i, y[i], want[i])
			}
			s.done()
		}
	}
}

// tilesQ: QPack.Pack and TileQ (against chapter 01 and the lowest assembly level), TileQPart
// (against TileQ).
func (s *sweep) tilesQ() {
	for _, typ := range quantTypes {
		b, kind := blockOf[typ], qKinds[typ]
		for _, rows := range []int{TileRows, TileRows - 3} {
			const k, t0 = 256, 1
			name := fmt.Sprintf("TileQ %v, %d rows", typ, rows)
			r := rng(name)
			rowBytes := k / b.size * b.bytes
			w := fill(&s.m, "w", randBlocks(r, typ, rows*k/b.size))
			a := actIn(&s.m, "act", randX(r, (t0+TileTokens)*k), (t0+TileTokens)*k)
			p := qpackIn(&s.m, "pack", k)
			out := (*[TileTokens * TileRows]float32)(alloc[float32](&s.m, "out", TileTokens*TileRows))
			sentinelF32(out[:])
			if !s.call(name, func() { p.Pack(kind, k, w, rowBytes, rows); TileQ(p, a, t0, out) }) {
				s.done()
				continue
			}
			s.sameAsGeneric(name+": pack Q", func() []float32 {
				v := make([]float32, len(p.Q))
				for i, q := range p.Q {
					v[i] = float32(q)
				}
				return v
			}())
			s.sameAsGeneric(name+": pack S", p.S[:2*k/ActBlock*kind.halves()*TileRows])
			for tok := range TileTokens {
				for i := range TileRows {
					got := out[tok*TileRows+i]
					if i >= rows {
						if got != 0 {
							s.t.Errorf("%s at %v: token %d, missing row %d = %v", name, s.lvl, tok, i, got)
						}
						continue
					}
					if want, mag := actRef(s.t, typ, w[i*rowBytes:(i+1)*rowBytes], tokenAct(a, t0+tok, k)); !closeTo(got, want, mag, k) {
						s.t.Errorf("%s at %v: token %d row %d = %v, float64 reference %v", name, s.lvl, tok, i, got, want)
					}
				}
			}
			s.sameAsAsm(name, out[:])
			for _, n := range []int{1, 8, 9, 12} {
				part := (*[TileTokens * TileRows]float32)(alloc[float32](&s.m, "part", TileTokens*TileRows))
				s.call(fmt.Sprintf("TileQPart %v, %d tokens", typ, n), func() { TileQPart(p, a, t0, n, part) })
				if i := firstDiff(part[:n*TileRows], out[:n*TileRows]); i >= 0 {
					s.t.Errorf("TileQPart %v, %d tokens at %v: token %d row %d = %v, TileQ gives %v", typ, n, s.lvl, i/TileRows, i%TileRows, part[i], out[i])
				}
			}
			s.done()
		}
	}
}

// tilesQN: TileQN for every type, against the plain Go form bit for bit and chapter 01's
// dequantizers within float32 rounding: a token group part empty (5 tokens), a full one (16), the
// 32-token kernel with a part-empty group (17) and then a group of one (33), rows of whole groups
// of 16 and past them (19: three rows left to plain Go), two super-blocks or eight blocks.
func (s *sweep) tilesQN() {
	for _, typ := range quantTypes {
		b, kind := blockOf[typ], qKinds[typ]
		k := 256
		if b.size != QKSize {
			k = 8 * b.size
		}
		for _, c := range []struct{ rows, tokens int }{{16, 5}, {19, 16}, {16, 17}, {32, 33}} {
			name := fmt.Sprintf("TileQN %v %d rows, %d tokens", typ, c.rows, c.tokens)
			r := rng(name)
			rowBytes, outStride := k/b.size*b.bytes, c.rows+2
			w := fill(&s.m, "w", randBlocks(r, typ, c.rows*k/b.size))
			a := actIn(&s.m, "act", randX(r, c.tokens*k), c.tokens*k)
			g := (c.tokens + ActNLanes - 1) / ActNLanes
			xn := &ActN{Q: alloc[int32](&s.m, "actN.Q", g*k/2*ActNLanes), SS: alloc[float32](&s.m, "actN.SS", 2*g*k/ActBlock*ActNLanes)}
			xn.Set(a, c.tokens, k)
			out := s.strided("out", c.tokens, c.rows, outStride, func(int) float32 { return sentinelValue })
			if !s.call(name, func() { TileQN(kind, out, outStride, c.rows, w, rowBytes, xn) }) {
				s.done()
				continue
			}
			for tok := range c.tokens {
				for i := range outStride {
					j := tok*outStride + i
					if j >= len(out) {
						break
					}
					if i >= c.rows {
						if math.Float32bits(out[j]) != math.Float32bits(sentinelValue) {
							s.t.Errorf("%s at %v: token %d wrote %v past its rows", name, s.lvl, tok, out[j])
						}
						continue
					}
					if want, mag := actRef(s.t, typ, w[i*rowBytes:(i+1)*rowBytes], tokenAct(a, tok, k)); !closeTo(out[j], want, mag, k) {
						s.t.Errorf("%s at %v: token %d row %d = %v, float64 reference %v", name, s.lvl, tok, i, out[j], want)
					}
				}
			}
			s.sameAsGeneric(name, out)
			s.done()
		}
	}
}

// packs: PackBF16 against the widened values.
func (s *sweep) packs() {
	for _, k := range []int{7, 16, 40} {
		name := fmt.Sprintf("PackBF16 k %d", k)
		r := rng(name)
		w := make([]uint16, TileRows*k)
		for i := range w {
			w[i] = uint16(r.Uint32())
		}
		pack, staging := alloc[float32](&s.m, "pack", TileRows*k), alloc[float32](&s.m, "staging", TileRows*k)
		s.call(name, func() { PackBF16(pack, fill(&s.m, "w", w), k, staging) })
		for j := range k {
			for i := range TileRows {
				if got, want := math.Float32bits(pack[j*TileRows+i]), uint32(w[i*k+j])<<16; got != want {
					s.t.Errorf("%s at %v: column %d row %d = %#x, want %#x", name, s.lvl, j, i, got, want)
				}
			}
		}
		s.done()
	}
}

// conversions: Transpose8, WidenBF16, WidenF16, NarrowF16.
func (s *sweep) conversions() {
	for _, k := range []int{1, 4, 8, 9} {
		name := fmt.Sprintf("Transpose8 k %d", k)
		r := rng(name)
		srcStride, dstStride := k+3, 8+5
		src := s.strided("src", 8, k, srcStride, normal(r))
		dst := s.strided("dst", k, 8, dstStride, func(int) float32 { return sentinelValue })
		want := slices.Clone(dst)
		for i := range 8 {
			for j := range k {
				want[j*dstStride+i] = src[i*srcStride+j]
			}
		}
		s.call(name, func() { Transpose8(dst, dstStride, src, srcStride, k) })
		if i := firstDiff(dst, want); i >= 0 {
			s.t.Errorf("%s at %v: dst[%d] = %v, want %v", name, s.lvl, i, dst[i], want[i])
		}
		s.done()
	}
	for _, n := range []int{0, 3, 8, 17} {
		name := fmt.Sprintf("Widen %d values", n)
		r := rng(name)
		h := make([]uint16, n)
		for i := range h {
			h[i] = uint16(r.Uint32())
		}
		src := fill(&s.m, "src", h)
		for _, c := range []struct {
			name  string
			widen func([]float32, []uint16)
			conv  func(uint16) float32
		}{{"WidenBF16", WidenBF16, bf16}, {"WidenF16", WidenF16, f16}} {
			dst := alloc[float32](&s.m, "dst", n)
			s.call(c.name+" "+name, func() { c.widen(dst, src) })
			for i, v := range h {
				if math.Float32bits(dst[i]) != math.Float32bits(c.conv(v)) {
					s.t.Errorf("%s %s at %v: %#04x gives %#x, chapter 01 %#x", c.name, name, s.lvl, v, math.Float32bits(dst[i]), math.Float32bits(c.conv(v)))
				}
			}
		}
		x := fill(&s.m, "x", randX(r, n))
		dst := alloc[uint16](&s.m, "dst16", n)
		s.call("NarrowF16 "+name, func() { NarrowF16(dst, x) })
		for i, v := range x {
			if dst[i] != gguf.F32ToF16(v) {
				s.t.Errorf("NarrowF16 %s at %v: %v gives %#04x, chapter 01 %#04x", name, s.lvl, v, dst[i], gguf.F32ToF16(v))
			}
		}
		s.done()
	}
}

// attention: AttnTile and AttnTileF16 against float64 sums and the lowest assembly level;
// AttnTile32 and AttnTile32F16 against two tiles.
func (s *sweep) attention() {
	for _, rows := range []int{2, AttnRows} {
		for _, k := range []int{0, 1, 3, 16} {
			for _, acc := range []bool{false, true} {
				name := fmt.Sprintf("AttnTile %d rows, k %d, acc %v", rows, k, acc)
				r := rng(name)
				packStride, xStride, outStride := AttnLanes+5, k+2, 2*AttnLanes+3
				second := AttnLanes
				if acc {
					second = max(k, 1) * packStride // scores: the next block of keys
				}
				n := second + max(0, (k-1)*packStride+AttnLanes)
				pack := fill(&s.m, "pack", randX(r, n))
				if second != AttnLanes { // blocks of keys: the lanes past each row's sixteen hold the sentinel
					for j := range pack {
						if j%packStride >= AttnLanes {
							pack[j] = sentinelValue
						}
					}
				}
				half := make([]uint16, n)
				for i, v := range pack {
					half[i] = gguf.F32ToF16(v)
				}
				x := s.strided("x", rows, k, xStride, normal(r))
				start := randX(r, (rows-1)*outStride+2*AttnLanes)
				for f, tile := range []string{"AttnTile", "AttnTileF16"} {
					out := s.strided("out", rows, AttnLanes, outStride, func(int) float32 { return sentinelValue })
					for t := range rows {
						copy(out[t*outStride:t*outStride+AttnLanes], start[t*outStride:])
					}
					before := slices.Clone(out)
					s.call(tile+name[8:], func() {
						if f == 0 {
							AttnTile(rows, pack, packStride, x, xStride, k, out, outStride, acc)
						} else {
							AttnTileF16(rows, fill(&s.m, "half", half), packStride, x, xStride, k, out, outStride, acc)
						}
					})
					for t := range rows {
						for i := range AttnLanes {
							var want, abs float64
							for j := range k {
								v := float64(pack[j*packStride+i])
								if f == 1 {
									v = float64(f16(half[j*packStride+i]))
								}
								p := v * float64(x[t*xStride+j])
								want, abs = want+p, abs+math.Abs(p)
							}
							if acc {
								want += float64(before[t*outStride+i])
								abs += math.Abs(float64(before[t*outStride+i]))
							}
							if got := out[t*outStride+i]; !closeTo(got, want, abs, k+1) {
								s.t.Errorf("%s%s at %v: row %d lane %d = %v, float64 reference %v", tile, name[8:], s.lvl, t, i, got, want)
							}
						}
					}
					for t := range rows { // lanes past the tile's sixteen keep the sentinel
						for i := AttnLanes; i < outStride && t*outStride+i < len(out); i++ {
							if math.Float32bits(out[t*outStride+i]) != math.Float32bits(sentinelValue) {
								s.t.Errorf("%s%s at %v: wrote lane %d of row %d, past the tile", tile, name[8:], s.lvl, i, t)
							}
						}
					}
					s.sameAsAsm(tile+name[8:], out)

					// the 32-lane tile: two tiles' bits
					two := s.strided("two", rows, 2*AttnLanes, outStride, func(int) float32 { return sentinelValue })
					one := slices.Clone(two)
					for t := range rows {
						copy(two[t*outStride:t*outStride+2*AttnLanes], start[t*outStride:])
						copy(one[t*outStride:t*outStride+2*AttnLanes], start[t*outStride:])
					}
					s.call(tile+"32"+name[8:], func() {
						pf := alloc[byte](&s.m, "prefetched", 64*k) // what decoding asks for: never read, never changing a result
						if f == 0 {
							AttnTile32(rows, pack, second, packStride, x, xStride, k, two, outStride, acc, pf)
						} else {
							AttnTile32F16(rows, fill(&s.m, "half32", half), second, packStride, x, xStride, k, two, outStride, acc, pf)
						}
					})
					if f == 0 {
						AttnTile(rows, pack, packStride, x, xStride, k, one, outStride, acc)
						AttnTile(rows, pack[second:], packStride, x, xStride, k, one[AttnLanes:], outStride, acc)
					} else {
						AttnTileF16(rows, half, packStride, x, xStride, k, one, outStride, acc)
						AttnTileF16(rows, half[second:], packStride, x, xStride, k, one[AttnLanes:], outStride, acc)
					}
					if i := firstDiff(two, one); i >= 0 {
						s.t.Errorf("%s32%s at %v: out[%d] = %v, two tiles give %v", tile, name[8:], s.lvl, i, two[i], one[i])
					}
				}
				s.done()
			}
		}
	}
}

// vectors: ExpSub, Max, Scale, SiLUMul, Axpy, Prefetch.
func (s *sweep) vectors() {
	for _, n := range []int{0, 1, 3, 8, 17} {
		name := fmt.Sprintf("%d values", n)
		r := rng(name)
		v := randX(r, n)
		x := fill(&s.m, "x", v)
		var sum float32
		s.call("ExpSub "+name, func() { sum = ExpSub(x, 0.5) })
		var total float64
		for i, e := range x {
			total += float64(e)
			if want := float32(math.Exp(float64(v[i] - 0.5))); ulps(e, want) > 2 {
				s.t.Errorf("ExpSub %s at %v: e^%v = %v, math.Exp %v", name, s.lvl, v[i]-0.5, e, want)
			}
		}
		if math.Abs(float64(sum)-total) > 1e-5*math.Abs(total) {
			s.t.Errorf("ExpSub %s at %v: sum %v, the values add up to %v", name, s.lvl, sum, total)
		}
		if n > 0 {
			x = fill(&s.m, "x", v)
			var m float32
			s.call("Max "+name, func() { m = Max(x) })
			if want := slices.Max(v); m != want {
				s.t.Errorf("Max %s at %v: %v, want %v", name, s.lvl, m, want)
			}
		}
		dst := alloc[float32](&s.m, "dst", n)
		s.call("Scale "+name, func() { Scale(dst, x, 0.25) })
		for i := range n {
			if dst[i] != 0.25*x[i] {
				s.t.Errorf("Scale %s at %v: [%d] = %v, want %v", name, s.lvl, i, dst[i], 0.25*x[i])
			}
		}
		gate, up := fill(&s.m, "gate", randX(r, n)), fill(&s.m, "up", randX(r, n))
		s.call("SiLUMul "+name, func() { SiLUMul(dst, gate, up) })
		for i := range n {
			g := float64(gate[i])
			if want := g / (1 + math.Exp(-g)) * float64(up[i]); math.Abs(float64(dst[i])-want) > 4e-7*math.Abs(want)+1e-35 {
				s.t.Errorf("SiLUMul %s at %v: [%d] = %v, float64 %v", name, s.lvl, i, dst[i], want)
			}
		}
		y := fill(&s.m, "y", v)
		s.call("Axpy "+name, func() { Axpy(y, 0.75, gate) })
		for i := range n {
			if want := float64(v[i]) + 0.75*float64(gate[i]); math.Abs(float64(y[i])-want) > 1e-6*(1+math.Abs(want)) {
				s.t.Errorf("Axpy %s at %v: y[%d] = %v, want %v", name, s.lvl, i, y[i], want)
			}
		}
		b := alloc[byte](&s.m, "prefetched", n*100)
		s.call("Prefetch "+name, func() { Prefetch(b) })
		s.done()
	}
}
