package kernels

import (
	"fmt"
	"math"
)

// Decoding one token multiplies every weight row by the same activation vector. For the block-
// quantized types (Q8_0, Q4_0, Q4_K, Q6_K) the activations are first rounded to int16 in blocks of
// 32 with one float32 scale each (an Act), once per matrix pass; each row's dot product is then
// integer multiply-adds (VPMADDWD: 16 int16 products summed in pairs per instruction) with a
// float scale per block, instead of widening every weight to float32:
//
//	DotQ8_0Act(w, a) = Σ_b d_b·s_b·Σ_j q_bj·a_bj              s_b, a_bj: the Act's scale and int16 values
//	DotQ4_0Act(w, a) = Σ_b d_b·s_b·Σ_j (q_bj−8)·a_bj
//	DotQ4_KAct(w, a) = Σ_b (d·sc_b·s_b·Σ_j q_bj·a_bj − dmin·m_b·s_b·Σ_j a_bj)   b: 32-value sub-blocks
//	DotQ6_KAct(w, a) = Σ_g d·sc_g·s_b(g)·Σ_j (q_gj−32)·a_gj                   g: 16-value groups
//
// The integer sums are exact; only the activations' rounding is new, and it is small: at most
// half a step, 1/65534 of the block's largest value, 128 times finer than the int8 activations
// llama.cpp uses. (A Q8_0 weight's own rounding is 1/254 of its block's largest weight.) Prompts
// round their inputs the same way, a whole chunk in one Act, for TileQ (tileq.go).

// ActBlock is the number of activations that share one scale in an Act.
const ActBlock = 32

// actMax is the largest int16 value an activation is rounded to.
const actMax = 32767

// Block sizes of the 4- and 6-bit types, as chapter 01 describes them.
const (
	Q4BlockSize  = 32  // Q4_0: float16 d, 16 bytes of 4-bit quants
	Q4BlockBytes = 18  //
	QKSize       = 256 // Q4_K and Q6_K super-blocks
	Q4KBytes     = 144 // Q4_K: float16 d, dmin; 12 bytes of 6-bit scales and mins; 128 bytes of quants
	Q6KBytes     = 210 // Q6_K: 128 bytes low 4 bits, 64 bytes high 2 bits, 16 int8 scales, float16 d
)

// Act is a float32 vector rounded to int16 in blocks of ActBlock values: value i is
// Scale[i/32]·Q[i]. Sum[b] = Scale[b]·Σ Q over block b (Q4_K's minimums need it); Sum16[g] is
// the integer Σ Q over the g-th 16 values (Q6_K's centring, q−32, is applied to sums with it).
type Act struct {
	Q     []int16
	Scale []float32
	Sum   []float32
	Sum16 []int32

	arch actArch // what a level's kernels keep beside Q (quant_avx512vnni_amd64.go, quant_dotprod_arm64.go)
}

// NewAct returns an Act for n values (a multiple of ActBlock).
func NewAct(n int) *Act {
	if n < 0 || n%ActBlock != 0 {
		panic(fmt.Sprintf("kernels: an Act of %d values is not whole blocks of %d", n, ActBlock))
	}
	return &Act{Q: make([]int16, n), Scale: make([]float32, n/ActBlock), Sum: make([]float32, n/ActBlock), Sum16: make([]int32, n/16)}
}

// Len is the number of values.
func (a *Act) Len() int { return len(a.Q) }

// Quantize rounds x into the first len(x) values of a (whole blocks; a prompt chunk's Act has
// room for the longest chunk): per block, scale = max|x|/32767 and Q = round-to-even(x/scale), so
// |x − scale·Q| <= scale/2 (plus float32 rounding of the division).
func (a *Act) Quantize(x []float32) {
	if len(x) > len(a.Q) || len(x)%ActBlock != 0 {
		panic(fmt.Sprintf("kernels: quantizing %d values into an Act of %d", len(x), len(a.Q)))
	}
	a.arch.stale()
	if len(x) > 0 {
		if k, ok := quantizeOp.get(); ok {
			k(noEscape(a), noEscapeSlice(x))
			return
		}
	}
	quantizeActGeneric(a, x)
}

// MarkWritten tells a that its values were written other than by its own Quantize (through views
// of it, as a prompt chunk's per-token passes fill it on several cores): what an architecture's
// kernels keep beside the values (the byte planes of amd64's VNNI and arm64's DotProd dots) no
// longer describes them, and the dots stop reading it until the next Quantize.
func (a *Act) MarkWritten() { a.arch.stale() }

func quantizeActGeneric(a *Act, x []float32) {
	for b := range len(x) / ActBlock {
		blk := x[b*ActBlock : (b+1)*ActBlock]
		var amax float32
		for _, v := range blk {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		var scale, inv float32
		if amax > 0 {
			scale, inv = amax/actMax, actMax/amax
		}
		var sum [2]int32
		for j, v := range blk {
			q := int16(math.RoundToEven(float64(v * inv)))
			a.Q[b*ActBlock+j] = q
			sum[j/16] += int32(q)
		}
		a.Sum16[2*b], a.Sum16[2*b+1] = sum[0], sum[1]
		a.Scale[b], a.Sum[b] = scale, scale*float32(sum[0]+sum[1])
	}
}

// The dot kernels of decoding. Each takes a chunk of rows, so that a matrix pass makes one call
// per chunk, not per row: out[i] = (row i of w) · a for i < len(out), the rows rowBytes apart.

// DotQ8_0ActRows: rows of Q8_0 blocks.
func DotQ8_0ActRows(out []float32, w []byte, rowBytes int, a *Act) {
	dotActRows(q8_0, out, w, rowBytes, a)
}

// DotQ4_0ActRows: rows of Q4_0 blocks.
func DotQ4_0ActRows(out []float32, w []byte, rowBytes int, a *Act) {
	dotActRows(q4_0, out, w, rowBytes, a)
}

// DotQ4_KActRows: rows of Q4_K super-blocks.
func DotQ4_KActRows(out []float32, w []byte, rowBytes int, a *Act) {
	dotActRows(q4_K, out, w, rowBytes, a)
}

// DotQ6_KActRows: rows of Q6_K super-blocks.
func DotQ6_KActRows(out []float32, w []byte, rowBytes int, a *Act) {
	dotActRows(q6_K, out, w, rowBytes, a)
}

// DotQ8_0Act returns the dot product of one row of Q8_0 blocks with the first values of a.
func DotQ8_0Act(w []byte, a *Act) float32 { return dotActRow(q8_0, w, a) }

// DotQ4_0Act returns the dot product of one row of Q4_0 blocks with the first values of a.
func DotQ4_0Act(w []byte, a *Act) float32 { return dotActRow(q4_0, w, a) }

// DotQ4_KAct returns the dot product of one row of Q4_K super-blocks with the first values of a.
func DotQ4_KAct(w []byte, a *Act) float32 { return dotActRow(q4_K, w, a) }

// DotQ6_KAct returns the dot product of one row of Q6_K super-blocks with the first values of a.
func DotQ6_KAct(w []byte, a *Act) float32 { return dotActRow(q6_K, w, a) }

type actKind int

const (
	q8_0 actKind = iota
	q4_0
	q4_K
	q6_K
)

// actKinds: block geometry and the blocks per step of each assembly kernel.
var actKinds = [...]struct {
	name             string
	blockBytes, size int
	group            int
}{
	q8_0: {"Q8_0", Q8BlockBytes, Q8BlockSize, 8},
	q4_0: {"Q4_0", Q4BlockBytes, Q4BlockSize, 8},
	q4_K: {"Q4_K", Q4KBytes, QKSize, 1},
	q6_K: {"Q6_K", Q6KBytes, QKSize, 1},
}

func dotActRow(k actKind, w []byte, a *Act) float32 {
	var out [1]float32
	dotActRows(k, out[:], w, len(w), a)
	return out[0]
}

func dotActRows(k actKind, out []float32, w []byte, rowBytes int, a *Act) {
	kk := actKinds[k]
	rows := len(out)
	nb := rowBytes / kk.blockBytes
	if rowBytes < 0 || rowBytes%kk.blockBytes != 0 || len(w) < rows*rowBytes || a.Len() < nb*kk.size {
		panic(fmt.Sprintf("kernels: %s dot of %d rows of %d bytes (%d given) with %d activations", kk.name, rows, rowBytes, len(w), a.Len()))
	}
	if rows == 0 {
		return
	}
	r := 0
	if nb > 0 {
		o := dotActRowsOps[k]
		chain := o.chain()
		planes := len(chain) > 0 && a.arch.ready(nb*kk.size)
		for i := range chain {
			f := &chain[i]
			n, take := f.fit(o.op, rows-r, nb, planes)
			if take == 0 {
				continue
			}
			pw, pa, po := noEscape3(&w[r*rowBytes], a, &out[r])
			f.k(pw, rowBytes, take, pa, n, po)
			if n < nb {
				dotActRowsTail(k, out, w, rowBytes, a, r, r+take, n)
			}
			if r += take; r == rows {
				return
			}
		}
		o.left(chain, r, rows)
	}
	dotActRowsTail(k, out, w, rowBytes, a, r, rows, 0)
}

// dotActRowsTail does rows r0..r1-1 from block from in plain Go, adding what a kernel wrote when
// from > 0.
func dotActRowsTail(k actKind, out []float32, w []byte, rowBytes int, a *Act, r0, r1, from int) {
	kk := actKinds[k]
	q, sc, sum := a.Q[from*kk.size:], a.Scale[from*kk.size/ActBlock:], a.Sum[from*kk.size/ActBlock:]
	for r := r0; r < r1; r++ {
		row := w[r*rowBytes+from*kk.blockBytes : (r+1)*rowBytes]
		var s float32
		switch k {
		case q8_0:
			s = dotQ8_0ActGeneric(row, q, sc)
		case q4_0:
			s = dotQ4_0ActGeneric(row, q, sc)
		case q4_K:
			s = dotQ4_KActGeneric(row, q, sc, sum)
		case q6_K:
			s = dotQ6_KActGeneric(row, q, sc)
		}
		if from > 0 {
			s += out[r]
		}
		out[r] = s
	}
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

// The plain Go dots below take a block's weights and inputs as fixed-size arrays (no index checks)
// and sum the integer products 8 at a time in small functions written out term by term (dotI8,
// dotNibbles): straight-line code keeps every value in a register, where a loop over a block's 32
// values measured 1.5 times slower on amd64 (Go's compiler keeps a loop's running sum in memory
// there). The integer sums are exact, as in the assembly.

// dotI8 returns Σ int8(w[j])·x[j] over 8 values.
func dotI8(w *[8]byte, x *[8]int16) int32 {
	return int32(int8(w[0]))*int32(x[0]) + int32(int8(w[1]))*int32(x[1]) +
		int32(int8(w[2]))*int32(x[2]) + int32(int8(w[3]))*int32(x[3]) +
		int32(int8(w[4]))*int32(x[4]) + int32(int8(w[5]))*int32(x[5]) +
		int32(int8(w[6]))*int32(x[6]) + int32(int8(w[7]))*int32(x[7])
}

// dotNibbles returns Σ (w[j]&15 − bias)·lo[j] and Σ (w[j]>>4 − bias)·hi[j] over 8 bytes: the low
// and high 4-bit quants of 8 bytes with their inputs.
func dotNibbles(w *[8]byte, lo, hi *[8]int16, bias int32) (sl, sh int32) {
	sl = (int32(w[0]&0xf)-bias)*int32(lo[0]) + (int32(w[1]&0xf)-bias)*int32(lo[1]) +
		(int32(w[2]&0xf)-bias)*int32(lo[2]) + (int32(w[3]&0xf)-bias)*int32(lo[3]) +
		(int32(w[4]&0xf)-bias)*int32(lo[4]) + (int32(w[5]&0xf)-bias)*int32(lo[5]) +
		(int32(w[6]&0xf)-bias)*int32(lo[6]) + (int32(w[7]&0xf)-bias)*int32(lo[7])
	sh = (int32(w[0]>>4)-bias)*int32(hi[0]) + (int32(w[1]>>4)-bias)*int32(hi[1]) +
		(int32(w[2]>>4)-bias)*int32(hi[2]) + (int32(w[3]>>4)-bias)*int32(hi[3]) +
		(int32(w[4]>>4)-bias)*int32(hi[4]) + (int32(w[5]>>4)-bias)*int32(hi[5]) +
		(int32(w[6]>>4)-bias)*int32(hi[6]) + (int32(w[7]>>4)-bias)*int32(hi[7])
	return sl, sh
}

func dotQ8_0ActGeneric(w []byte, q []int16, scale []float32) float32 {
	var s float32
	for b := range len(w) / Q8BlockBytes {
		blk := w[b*Q8BlockBytes : (b+1)*Q8BlockBytes] // float16 d, 32 int8 quants
		x := q[b*Q8BlockSize : (b+1)*Q8BlockSize]
		p := dotI8((*[8]byte)(blk[2:]), (*[8]int16)(x)) + dotI8((*[8]byte)(blk[10:]), (*[8]int16)(x[8:])) +
			dotI8((*[8]byte)(blk[18:]), (*[8]int16)(x[16:])) + dotI8((*[8]byte)(blk[26:]), (*[8]int16)(x[24:]))
		s += float32(p) * (f16Table[le16(blk)] * scale[b])
	}
	return s
}

func dotQ4_0ActGeneric(w []byte, q []int16, scale []float32) float32 {
	var s float32
	for b := range len(w) / Q4BlockBytes {
		blk := w[b*Q4BlockBytes : (b+1)*Q4BlockBytes] // float16 d; byte j: value j low, j+16 high
		x := q[b*Q4BlockSize : (b+1)*Q4BlockSize]
		l0, h0 := dotNibbles((*[8]byte)(blk[2:]), (*[8]int16)(x), (*[8]int16)(x[16:]), 8)
		l1, h1 := dotNibbles((*[8]byte)(blk[10:]), (*[8]int16)(x[8:]), (*[8]int16)(x[24:]), 8)
		s += float32(l0+h0+l1+h1) * (f16Table[le16(blk)] * scale[b])
	}
	return s
}

// q4KScaleMin unpacks the 6-bit scale and minimum of sub-block j (0..7) from a Q4_K block's 12
// bytes of scales (chapter 01 tells the layout).
func q4KScaleMin(j int, s []byte) (scale, min uint8) {
	if j < 4 {
		return s[j] & 63, s[j+4] & 63
	}
	return s[j+4]&0xf | (s[j-4]>>6)<<4, s[j+4]>>4 | (s[j]>>6)<<4
}

func dotQ4_KActGeneric(w []byte, aq []int16, scale, sum []float32) float32 {
	var s float32
	for i := range len(w) / Q4KBytes {
		blk := w[i*Q4KBytes : (i+1)*Q4KBytes]
		d, dmin := f16Table[le16(blk)], f16Table[le16(blk[2:])]
		for j := 0; j < 8; j += 2 { // 32 bytes: sub-block j in the low nibbles, j+1 in the high
			qs := blk[16+16*j : 16+16*j+32]
			x := aq[i*QKSize+32*j : i*QKSize+32*j+64]
			var p, p1 int32
			for l := 0; l < 32; l += 8 {
				sl, sh := dotNibbles((*[8]byte)(qs[l:]), (*[8]int16)(x[l:]), (*[8]int16)(x[32+l:]), 0)
				p, p1 = p+sl, p1+sh
			}
			b := i*8 + j
			sc, m := q4KScaleMin(j, blk[4:16])
			sc1, m1 := q4KScaleMin(j+1, blk[4:16])
			s += d*float32(sc)*scale[b]*float32(p) - dmin*float32(m)*sum[b]
			s += d*float32(sc1)*scale[b+1]*float32(p1) - dmin*float32(m1)*sum[b+1]
		}
	}
	return s
}

// q6K returns quant l+32k (l < 32, k < 4) of one half of a Q6_K block, centred: −32..31.
func q6K(ql, qh []byte, l, k int) int32 {
	lo := ql[l+32*(k%2)] >> (4 * (k / 2)) & 0xf
	hi := qh[l] >> (2 * k) & 3
	return int32(lo|hi<<4) - 32
}

func dotQ6_KActGeneric(w []byte, aq []int16, scale []float32) float32 {
	var s float32
	for i := range len(w) / Q6KBytes {
		blk := (*[Q6KBytes]byte)(w[i*Q6KBytes:])
		d := f16Table[le16(blk[208:])]
		for half := 0; half < 2; half++ {
			// Byte l of ql, ql[32+l] and qh[l] hold value l of the four 32-value activation blocks
			// b0 .. b0+3 (as decodeQRow unpacks them); each 16-value group g has its own scale.
			ql, qh, sc := (*[64]byte)(blk[64*half:]), (*[32]byte)(blk[128+32*half:]), (*[8]byte)(blk[192+8*half:])
			b0 := i*8 + 4*half
			x := (*[128]int16)(aq[b0*ActBlock:])
			for g := 0; g < 2; g++ {
				var p0, p1, p2, p3 int32
				for l := 16 * g; l < 16*g+16; l++ {
					a, b, h := ql[l], ql[l+32], qh[l]
					p0 += (int32(a&0xf|(h&3)<<4) - 32) * int32(x[l])
					p1 += (int32(b&0xf|(h>>2&3)<<4) - 32) * int32(x[32+l])
					p2 += (int32(a>>4|(h>>4&3)<<4) - 32) * int32(x[64+l])
					p3 += (int32(b>>4|(h>>6)<<4) - 32) * int32(x[96+l])
				}
				s += d * float32(int8(sc[g])) * scale[b0] * float32(p0)
				s += d * float32(int8(sc[2+g])) * scale[b0+1] * float32(p1)
				s += d * float32(int8(sc[4+g])) * scale[b0+2] * float32(p2)
				s += d * float32(int8(sc[6+g])) * scale[b0+3] * float32(p3)
			}
		}
	}
	return s
}

// DecodeQ8_0 writes the values of the Q8_0 blocks in src (34 bytes per 32 values) into dst.
func DecodeQ8_0(dst []float32, src []byte) {
	nb := len(src) / Q8BlockBytes
	if len(src)%Q8BlockBytes != 0 || len(dst) < nb*Q8BlockSize {
		panic(fmt.Sprintf("kernels: DecodeQ8_0 of %d bytes into %d values", len(src), len(dst)))
	}
	if decodeArch(q8_0, dst, src, nb) {
		return
	}
	for b := 0; b < nb; b++ {
		blk := src[b*Q8BlockBytes : (b+1)*Q8BlockBytes]
		d := f16(uint16(blk[0]) | uint16(blk[1])<<8)
		for j, q := range blk[2:] {
			dst[b*Q8BlockSize+j] = d * float32(int8(q))
		}
	}
}

// DecodeQ4_0 writes the values of the Q4_0 blocks in src into dst, as chapter 01 computes them.
func DecodeQ4_0(dst []float32, src []byte) {
	nb := checkDecode("DecodeQ4_0", dst, src, Q4BlockBytes, Q4BlockSize)
	if decodeArch(q4_0, dst, src, nb) {
		return
	}
	for b := 0; b < nb; b++ {
		blk := src[b*Q4BlockBytes : (b+1)*Q4BlockBytes]
		d := f16(le16(blk))
		y := dst[b*Q4BlockSize : (b+1)*Q4BlockSize]
		for j, v := range blk[2:] {
			y[j] = float32(int(v&0xf)-8) * d
			y[j+16] = float32(int(v>>4)-8) * d
		}
	}
}

// DecodeQ4_K writes the values of the Q4_K super-blocks in src into dst, bit for bit as chapter 01
// computes them: (d·scale)·q − dmin·min, each product rounded to float32 (no fused multiply-add).
func DecodeQ4_K(dst []float32, src []byte) {
	nb := checkDecode("DecodeQ4_K", dst, src, Q4KBytes, QKSize)
	if decodeArch(q4_K, dst, src, nb) {
		return
	}
	for i := 0; i < nb; i++ {
		blk := src[i*Q4KBytes : (i+1)*Q4KBytes]
		d, dmin := f16(le16(blk)), f16(le16(blk[2:]))
		for j := 0; j < 8; j++ {
			sc, m := q4KScaleMin(j, blk[4:16])
			d1, m1 := d*float32(sc), dmin*float32(m)
			qs := blk[16+32*(j/2) : 16+32*(j/2)+32]
			y := dst[i*QKSize+32*j:]
			for l, v := range qs {
				y[l] = float32(d1*float32(v>>(4*(j%2))&0xf)) - m1
			}
		}
	}
}

// DecodeQ6_K writes the values of the Q6_K super-blocks in src into dst, bit for bit as chapter 01
// computes them: (d·scale)·(q−32).
func DecodeQ6_K(dst []float32, src []byte) {
	nb := checkDecode("DecodeQ6_K", dst, src, Q6KBytes, QKSize)
	if decodeArch(q6_K, dst, src, nb) {
		return
	}
	for i := 0; i < nb; i++ {
		blk := src[i*Q6KBytes : (i+1)*Q6KBytes]
		d := f16(le16(blk[208:]))
		for half := 0; half < 2; half++ {
			ql, qh, sc := blk[64*half:], blk[128+32*half:], blk[192+8*half:]
			y := dst[i*QKSize+128*half:]
			for k := 0; k < 4; k++ {
				for l := 0; l < 32; l++ {
					y[32*k+l] = d * float32(int8(sc[2*k+l/16])) * float32(q6K(ql, qh, l, k))
				}
			}
		}
	}
}

func checkDecode(name string, dst []float32, src []byte, blockBytes, blockSize int) int {
	nb := len(src) / blockBytes
	if len(src)%blockBytes != 0 || len(dst) < nb*blockSize {
		panic(fmt.Sprintf("kernels: %s of %d bytes into %d values", name, len(src), len(dst)))
	}
	return nb
}

// decodeArch runs the kernel of the active level, if it has one, on nb > 0 blocks.
func decodeArch(k actKind, dst []float32, src []byte, nb int) bool {
	if nb > 0 {
		if kern, ok := decodeOps[k].get(); ok {
			kern(noEscape(&dst[0]), noEscape(&src[0]), nb, &f16Table)
			return true
		}
	}
	return false
}
