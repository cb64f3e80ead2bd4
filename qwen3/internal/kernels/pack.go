package kernels

import (
	"fmt"
	"math"
	"unsafe"
)

// Packing: a prompt's matrix pass decodes each block of 32 weight rows once per chunk into the
// order a tile reads (the float Tile's pack, PackRow and PackBF16; TileQ's QPack), then multiplies
// it with every tile of tokens of the chunk.

// PackRow writes row (k values) as row i (< 32) of a Tile pack: pack[j*32+i] = row[j].
// Rows of a pack that are not written must be zeros (or their outputs ignored).
func PackRow(pack []float32, i int, row []float32) {
	if i < 0 || i >= TileRows || len(pack) < len(row)*TileRows {
		panic(fmt.Sprintf("kernels: PackRow %d of %d values into %d", i, len(row), len(pack)))
	}
	for j, v := range row {
		pack[j*TileRows+i] = v
	}
}

// PackBF16 writes 32 bfloat16 rows of k values (w, row i at i*k) as a Tile pack: pack[j*32+i] =
// the float32 of w[i*k+j]. The portable form widens the rows into staging (32·k values) and
// transposes them eight at a time; an assembly form may write the pack straight from w (AVX-512:
// 16 rows x 16 columns per step, turned around in registers). Widening a bfloat16 is exact, so
// every form writes the same bits.
func PackBF16(pack []float32, w []uint16, k int, staging []float32) {
	if k <= 0 || len(w) < TileRows*k || len(pack) < TileRows*k || len(staging) < TileRows*k {
		panic(fmt.Sprintf("kernels: PackBF16 of 32 rows of %d values from %d into %d (staging %d)", k, len(w), len(pack), len(staging)))
	}
	kern, j := packBF16Op.split(k)
	if j > 0 {
		kern(noEscapeSlice(pack), noEscapeSlice(w), k, j)
	}
	if j == k {
		return
	}
	if j > 0 { // the last columns, past the assembly's multiple of its step
		for i := 0; i < TileRows; i++ {
			for c := j; c < k; c++ {
				pack[c*TileRows+i] = math.Float32frombits(uint32(w[i*k+c]) << 16)
			}
		}
		return
	}
	for i := 0; i < TileRows; i++ {
		WidenBF16(staging[i*k:(i+1)*k], w[i*k:(i+1)*k])
	}
	for i := 0; i < TileRows; i += 8 {
		Transpose8(pack[i:], TileRows, staging[i*k:], k, k)
	}
}

// QPack is TileRows weight rows of k values in TileQ's order: Q holds the integers in pairs of
// adjacent columns, Q[(j/2)*64 + 2i + j%2] = q_ij, and S the scales, S[f*64+i] = S_if and
// S[f*64+32+i] = M_if for scale block f.
type QPack struct {
	Kind    QKind
	K       int
	Q       []int16
	S       []float32
	staging []int16 // the rows, row-major, before pairing
}

// blockSize is the number of values per block of the type's rows.
func (k QKind) blockSize() int {
	if k == QQ4_K || k == QQ6_K {
		return QKSize
	}
	return ActBlock
}

// hasMins is 1 for the type whose QPack has minimum terms (Q4_K), 0 for the others: the index of
// its kernels in TileQ's tables.
func (k QKind) hasMins() int {
	if k == QQ4_K {
		return 1
	}
	return 0
}

// halves is the number of weight scale blocks per 32-value activation block.
func (k QKind) halves() int {
	if k == QQ6_K {
		return 2
	}
	return 1
}

// NewQPack returns a QPack for rows of at most k values (a multiple of 32).
func NewQPack(k int) *QPack {
	if k <= 0 || k%ActBlock != 0 {
		panic(fmt.Sprintf("kernels: a QPack of %d columns is not whole 32-value blocks", k))
	}
	return &QPack{K: k, Q: make([]int16, k*TileRows), S: make([]float32, 2*k/16*TileRows), staging: make([]int16, k*TileRows)}
}

// Pack decodes rows (the raw bytes of len(rows) <= 32 rows of k values of type kind, rowBytes
// apart) into p; missing rows become zeros. k is at most the k p was made for, and whole blocks
// of the type.
func (p *QPack) Pack(kind QKind, k int, raw []byte, rowBytes, rows int) {
	if k <= 0 || k > len(p.staging)/TileRows || k%kind.blockSize() != 0 || rows < 0 || rows > TileRows || len(raw) < rows*rowBytes {
		panic(fmt.Sprintf("kernels: QPack of %d rows of %d values from %d bytes (room for %d)", rows, k, len(raw), len(p.staging)/TileRows))
	}
	p.Kind, p.K = kind, k
	nf := k / ActBlock * kind.halves()
	s := p.S[:nf*2*TileRows]
	if rows == TileRows { // 32 rows: an assembly form writes every S, zeros included
		if kern, ok := packQOps[kind].get(); ok {
			kern(noEscape(p), k, noEscapeSlice(raw), rowBytes)
			return
		}
	}
	clear(s)
	for i := 0; i < rows; i++ {
		decodeQRow(kind, p.staging[i*k:(i+1)*k], s[i:], raw[i*rowBytes:(i+1)*rowBytes])
	}
	clear(p.staging[rows*k : TileRows*k])
	// A pair of int16 moves as one 32-bit word: the float32 transpose does the pairing.
	half := k / 2
	dst := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(p.Q))), half*TileRows)
	src := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(p.staging))), half*TileRows)
	for i := 0; i < TileRows; i += 8 {
		Transpose8(dst[i:], TileRows, src[i*half:], half, half)
	}
}

// decodeQRow writes one row's integers into q and its scales into s (s[f*64], s[f*64+32]); the
// half-precision scales are looked up in f16Table (chapter 01's conversion, made once).
func decodeQRow(kind QKind, q []int16, s []float32, raw []byte) {
	switch kind {
	case QQ8_0:
		for b := range len(q) / Q8BlockSize {
			blk := raw[b*Q8BlockBytes : (b+1)*Q8BlockBytes]
			s[b*64] = f16Table[le16(blk)]
			y := q[b*Q8BlockSize : (b+1)*Q8BlockSize]
			if k, ok := widenBytesOp.get(); ok {
				k(noEscape(&y[0]), noEscape(&blk[2]), len(y))
				continue
			}
			for j, v := range blk[2:Q8BlockBytes] {
				y[j] = int16(int8(v))
			}
		}
	case QQ4_0:
		for b := range len(q) / Q4BlockSize {
			blk := raw[b*Q4BlockBytes : (b+1)*Q4BlockBytes]
			s[b*64] = f16Table[le16(blk)]
			lo, hi := q[b*Q4BlockSize:b*Q4BlockSize+16], q[b*Q4BlockSize+16:b*Q4BlockSize+32]
			if k, ok := widenNibblesOp.get(); ok {
				k(noEscape(&lo[0]), noEscape(&hi[0]), noEscape(&blk[2]), len(lo), 8)
				continue
			}
			for j, v := range blk[2:Q4BlockBytes] {
				lo[j], hi[j] = int16(v&0xf)-8, int16(v>>4)-8
			}
		}
	case QQ4_K:
		for i := range len(q) / QKSize {
			blk := raw[i*Q4KBytes : (i+1)*Q4KBytes]
			d, dmin := f16Table[le16(blk)], f16Table[le16(blk[2:])]
			for j := 0; j < 8; j++ {
				sc, m := q4KScaleMin(j, blk[4:16])
				f := i*8 + j
				s[f*64], s[f*64+32] = d*float32(sc), dmin*float32(m)
			}
			for j := 0; j < 8; j += 2 { // 32 bytes: sub-block j in the low nibbles, j+1 in the high
				qs := blk[16+16*j : 16+16*j+32]
				lo, hi := q[i*QKSize+32*j:i*QKSize+32*j+32], q[i*QKSize+32*j+32:i*QKSize+32*j+64]
				if k, ok := widenNibblesOp.get(); ok {
					k(noEscape(&lo[0]), noEscape(&hi[0]), noEscape(&qs[0]), len(lo), 0)
					continue
				}
				for l, v := range qs {
					lo[l], hi[l] = int16(v&0xf), int16(v>>4)
				}
			}
		}
	case QQ6_K:
		for i := range len(q) / QKSize {
			blk := raw[i*Q6KBytes : (i+1)*Q6KBytes]
			d := f16Table[le16(blk[208:])]
			for half := 0; half < 2; half++ {
				ql, qh, sc := blk[64*half:], blk[128+32*half:], blk[192+8*half:]
				y := q[i*QKSize+128*half : i*QKSize+128*half+128]
				ql, qh = ql[:64], qh[:32]
				for g := 0; g < 8; g++ {
					s[(i*16+8*half+g)*64] = d * float32(int8(sc[g]))
				}
				if k, ok := widenQ6Op.get(); ok {
					k(noEscape(&y[0]), noEscape(&ql[0]), noEscape(&qh[0]))
					continue
				}
				for l := 0; l < 32; l++ { // q6K for k = 0..3, unrolled
					a, b, h := ql[l], ql[l+32], qh[l]
					y[l] = int16(a&0xf|(h&3)<<4) - 32
					y[32+l] = int16(b&0xf|(h>>2&3)<<4) - 32
					y[64+l] = int16(a>>4|(h>>4&3)<<4) - 32
					y[96+l] = int16(b>>4|(h>>6)<<4) - 32
				}
			}
		}
	}
}
