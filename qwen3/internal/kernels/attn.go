package kernels

import (
	"fmt"
	"math"
	"unsafe"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// Kernels of attention (flash-attention style: scores and value sums for several query rows at
// once, over blocks of keys) and of the MLP's activation.

// AttnLanes is the number of keys (for scores) or value dimensions (for value sums) one
// AttnTile computes per row; AttnRows is the most query rows it takes.
const (
	AttnLanes = 16
	AttnRows  = 6
)

// AttnTile computes, for t < rows and i < 16 (rows is 2 or 6),
//
//	out[t*outStride+i] = Σ_{j<k} pack[j*packStride+i] · x[t*xStride+j]      (added to out if acc)
//
// Scores: pack is sixteen keys stored dimension-major (pack[j*16+i] = key i, dimension j) and x
// the query rows, k the head dimension. Value sums: pack is value rows (pack[j*d+i] = key j,
// dimension i), x the rows' softmax weights, k the number of keys. Each loaded key or value serves
// every row, each query value every lane: the same outer-product scheme as Tile.
func AttnTile(rows int, pack []float32, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) {
	if rows != 2 && rows != AttnRows || k < 0 || k > 0 && len(pack) < (k-1)*packStride+AttnLanes ||
		len(x) < (rows-1)*xStride+k || len(out) < (rows-1)*outStride+AttnLanes {
		panic(fmt.Sprintf("kernels: AttnTile of %d rows, k %d: %d packed (stride %d), %d inputs (stride %d), %d outputs (stride %d)",
			rows, k, len(pack), packStride, len(x), xStride, len(out), outStride))
	}
	if k > 0 {
		if kern, ok := attnTileOps[attnVariant(rows)].get(); ok {
			pp, px, po := noEscape3(&pack[0], &x[0], &out[0])
			kern(pp, px, xStride, k, po, packStride, outStride, b2i(acc))
			return
		}
	}
	attnTileGeneric(rows, pack, packStride, x, xStride, k, out, outStride, acc)
}

// AttnTile32 is two AttnTiles side by side in one call: lanes 0-15 of each row from pack, as
// AttnTile reads them, and lanes 16-31 from pack[second:] (the same packStride), into
// out[t*outStride+i] for i < 32. Scores take two blocks of sixteen keys (second: the distance
// from one block to the next), value sums 32 adjacent dimensions (second = 16). Every lane is
// computed as AttnTile computes it, so the results are the two AttnTiles' bits; the AVX-512 form
// loads each input once for both halves, and its twelve sums per k step keep the FMA units busy
// where one tile's six wait on each other.
//
// pf (nil for none) is memory the caller reads next: the two-row AVX-512 forms ask for it while
// they compute, two 64-byte lines every two k steps, spread over the call, up to 64·k bytes.
// Decoding reads each key and value once, from memory, and this processor's prefetchers stop at
// every 4 KB page (16 float16 keys): the tiles of one step ask for the next step's keys and values
// (qwen3's attend), an ordered stream of requests where a burst of them would stall.
// Prefetching never changes a result.
func AttnTile32(rows int, pack []float32, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool, pf []byte) {
	if rows != 2 && rows != AttnRows || k < 0 || second < 0 || k > 0 && len(pack) < second+(k-1)*packStride+AttnLanes ||
		len(x) < (rows-1)*xStride+k || len(out) < (rows-1)*outStride+2*AttnLanes {
		panic(fmt.Sprintf("kernels: AttnTile32 of %d rows, k %d: %d packed (second %d, stride %d), %d inputs (stride %d), %d outputs (stride %d)",
			rows, k, len(pack), second, packStride, len(x), xStride, len(out), outStride))
	}
	if k > 0 {
		if kern, ok := attnTile32Ops[attnVariant(rows)].get(); ok {
			pp, px, po := noEscape3(&pack[0], &x[0], &out[0])
			p, step := prefetchArgs(pf, k, unsafe.Pointer(pp))
			kern(pp, second, px, xStride, k, po, packStride, outStride, b2i(acc), p, step)
			return
		}
	}
	AttnTile(rows, pack, packStride, x, xStride, k, out, outStride, acc)
	AttnTile(rows, pack[min(second, len(pack)):], packStride, x, xStride, k, out[AttnLanes:], outStride, acc)
}

// AttnTile32F16 is AttnTile32 over a float16 KV cache: two AttnTileF16s side by side.
func AttnTile32F16(rows int, pack []uint16, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool, pf []byte) {
	if rows != 2 && rows != AttnRows || k < 0 || second < 0 || k > 0 && len(pack) < second+(k-1)*packStride+AttnLanes ||
		len(x) < (rows-1)*xStride+k || len(out) < (rows-1)*outStride+2*AttnLanes {
		panic(fmt.Sprintf("kernels: AttnTile32F16 of %d rows, k %d: %d packed (second %d, stride %d), %d inputs (stride %d), %d outputs (stride %d)",
			rows, k, len(pack), second, packStride, len(x), xStride, len(out), outStride))
	}
	if k > 0 {
		if kern, ok := attnTile32F16Ops[attnVariant(rows)].get(); ok {
			pp, px, po := noEscape3(&pack[0], &x[0], &out[0])
			p, step := prefetchArgs(pf, k, unsafe.Pointer(pp))
			kern(pp, second, px, xStride, k, po, packStride, outStride, b2i(acc), p, step)
			return
		}
	}
	AttnTileF16(rows, pack, packStride, x, xStride, k, out, outStride, acc)
	AttnTileF16(rows, pack[min(second, len(pack)):], packStride, x, xStride, k, out[AttnLanes:], outStride, acc)
}

// prefetchArgs is where a tile's prefetches start and how far they move every two k steps
// (bytes, a multiple of 128, at most 128: two lines), for pf over k steps; without pf the tile
// asks for its own first line again and again, which costs nothing.
func prefetchArgs(pf []byte, k int, pack unsafe.Pointer) (*byte, int) {
	if len(pf) == 0 || k < 2 {
		return noEscape((*byte)(pack)), 0
	}
	step := min(128, (len(pf)/(k/2)+127)&^127)
	return noEscape(unsafe.SliceData(pf)), step
}

// attnTileGeneric is AttnTile in plain Go, blocked for registers as tileGeneric is: eight sums,
// 2 rows by 4 lanes, stay in registers while j walks k; each step loads 4 adjacent packed values
// and 2 inputs for 8 multiply-adds.
func attnTileGeneric(rows int, pack []float32, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) {
	for t := 0; t < rows; t += 2 {
		x0, x1 := x[t*xStride:t*xStride+k], x[(t+1)*xStride:(t+1)*xStride+k]
		o0, o1 := out[t*outStride:t*outStride+AttnLanes], out[(t+1)*outStride:(t+1)*outStride+AttnLanes]
		for i := 0; i < AttnLanes; i += 4 {
			var s00, s01, s10, s11, s20, s21, s30, s31 float32 // s<lane><row>
			if k > 0 {
				p := pack[i : (k-1)*packStride+i+4] // p[j*packStride+l]: lane i+l of step j
				for j := 0; j < len(x0) && j < len(x1); j++ {
					w := p[j*packStride : j*packStride+4]
					v0, v1 := x0[j], x1[j]
					s00 += w[0] * v0
					s01 += w[0] * v1
					s10 += w[1] * v0
					s11 += w[1] * v1
					s20 += w[2] * v0
					s21 += w[2] * v1
					s30 += w[3] * v0
					s31 += w[3] * v1
				}
			}
			if acc {
				s00, s10, s20, s30 = s00+o0[i], s10+o0[i+1], s20+o0[i+2], s30+o0[i+3]
				s01, s11, s21, s31 = s01+o1[i], s11+o1[i+1], s21+o1[i+2], s31+o1[i+3]
			}
			o0[i], o0[i+1], o0[i+2], o0[i+3] = s00, s10, s20, s30
			o1[i], o1[i+1], o1[i+2], o1[i+3] = s01, s11, s21, s31
		}
	}
}

// AttnTileF16 is AttnTile over a float16 KV cache: pack holds IEEE half-precision bits, and each
// value is widened to float32 inside the tile as it is loaded (F16C's VCVTPH2PS on amd64), never
// into a float32 copy of the cache. Widening is exact, so the sums are AttnTile's over the
// widened values:
//
//	out[t*outStride+i] = Σ_{j<k} f16(pack[j*packStride+i]) · x[t*xStride+j]      (added to out if acc)
//
// A float16 cache halves the bytes attention reads per token: deep in a context, decoding reads
// the whole cache once per token, as it reads the weights.
func AttnTileF16(rows int, pack []uint16, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) {
	if rows != 2 && rows != AttnRows || k < 0 || k > 0 && len(pack) < (k-1)*packStride+AttnLanes ||
		len(x) < (rows-1)*xStride+k || len(out) < (rows-1)*outStride+AttnLanes {
		panic(fmt.Sprintf("kernels: AttnTileF16 of %d rows, k %d: %d packed (stride %d), %d inputs (stride %d), %d outputs (stride %d)",
			rows, k, len(pack), packStride, len(x), xStride, len(out), outStride))
	}
	if k > 0 {
		if kern, ok := attnTileF16Ops[attnVariant(rows)].get(); ok {
			pp, px, po := noEscape3(&pack[0], &x[0], &out[0])
			kern(pp, px, xStride, k, po, packStride, outStride, b2i(acc))
			return
		}
	}
	for t := 0; t < rows; t++ {
		xt := x[t*xStride : t*xStride+k]
		o := out[t*outStride : t*outStride+AttnLanes]
		for i := range o {
			var s float32
			for j, v := range xt {
				s += f16(pack[j*packStride+i]) * v
			}
			if acc {
				o[i] += s
			} else {
				o[i] = s
			}
		}
	}
}

// NarrowF16 writes dst[i] = the float16 nearest to src[i] (ties to even; beyond ±65504 ±Inf),
// the bits chapter 01's gguf.F32ToF16 gives: how keys and values enter a float16 KV cache.
func NarrowF16(dst []uint16, src []float32) {
	if len(dst) < len(src) {
		panic(fmt.Sprintf("kernels: NarrowF16 of %d values into %d", len(src), len(dst)))
	}
	k, n := narrowF16Op.split(len(src))
	if n > 0 {
		k(noEscape(&dst[0]), noEscape(&src[0]), n)
	}
	for i := n; i < len(src); i++ {
		dst[i] = gguf.F32ToF16(src[i])
	}
}

// ExpSub replaces each x[i] by e^(x[i]−m) and returns their sum: the softmax weights of a block of
// scores whose running maximum is m. The AVX2 form is within 2 ulp of float32(math.Exp) (Cephes'
// polynomial; arguments below −87 give e^−87 instead of a smaller number).
func ExpSub(x []float32, m float32) float32 {
	var sum float32
	k, n := expSubOp.split(len(x))
	if n > 0 {
		sum = k(noEscape(&x[0]), n, m)
	}
	for i := n; i < len(x); i++ {
		x[i] = float32(math.Exp(float64(x[i] - m)))
		sum += x[i]
	}
	return sum
}

// Max returns the largest of x (len(x) > 0; NaNs are not expected).
func Max(x []float32) float32 {
	k, n := maxOp.split(len(x))
	m := x[0]
	if n > 0 {
		m = k(noEscape(&x[0]), n)
	}
	for _, v := range x[n:] {
		if v > m {
			m = v
		}
	}
	return m
}

// Scale writes dst[i] = a·x[i] (dst may be x).
func Scale(dst, x []float32, a float32) {
	if len(x) < len(dst) {
		panic(fmt.Sprintf("kernels: Scale of %d values into %d", len(x), len(dst)))
	}
	k, n := scaleOp.split(len(dst))
	if n > 0 {
		k(noEscape(&dst[0]), noEscape(&x[0]), a, n)
	}
	for i := n; i < len(dst); i++ {
		dst[i] = a * x[i]
	}
}

// SiLUMul writes dst[i] = silu(gate[i])·up[i] = gate[i]/(1+e^−gate[i])·up[i], the MLP's SwiGLU
// (dst may be gate).
func SiLUMul(dst, gate, up []float32) {
	if len(gate) < len(dst) || len(up) < len(dst) {
		panic(fmt.Sprintf("kernels: SiLUMul of %d and %d values into %d", len(gate), len(up), len(dst)))
	}
	k, n := siluMulOp.split(len(dst))
	if n > 0 {
		k(noEscape(&dst[0]), noEscape(&gate[0]), noEscape(&up[0]), n)
	}
	for i := n; i < len(dst); i++ {
		g := gate[i]
		dst[i] = g / (1 + float32(math.Exp(float64(-g)))) * up[i]
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
