package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQPackAVX512MatchesGeneric: the AVX-512 packers (pack_avx512_amd64.s) write the pack that
// decodeQRow and the pairing write (the portable path, with AVX2's widening hooks and in plain
// Go), every int16 and every scale's float32 bits, so TileQ's results cannot depend on which
// built the pack. Every type, several widths, a pack reused for a narrower matrix, rows far apart
// in memory (rowBytes larger than a row), rows of any bytes (scales NaN and infinite too), and
// packs that held other values before (the minimum terms of the types without them must be 0).
func TestQPackAVX512MatchesGeneric(t *testing.T) {
	if Supported() < AVX512 {
		t.Skipf("this CPU has no AVX-512 F and BW (%v): the AVX-512 packers cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(67, 68))
	for typ, kind := range qKinds {
		b := blockOf[typ]
		packs := map[Level]*QPack{Generic: NewQPack(3072), AVX2: NewQPack(3072), AVX512: NewQPack(3072)}
		for _, c := range []struct {
			k, gap int
			any    bool
		}{{3072, 0, false}, {256, 0, false}, {1024, 0, true}, {512, 3 * b.bytes, false}} {
			rowBytes := c.k/b.size*b.bytes + c.gap
			w := randBlocks(r, typ, TileRows*rowBytes/b.bytes)
			if c.any {
				for i := range w {
					w[i] = byte(r.Uint32())
				}
			}
			for l, p := range packs {
				func() {
					defer Limit(l)()
					for i := range p.S { // what an earlier pack left: Pack must write or clear all of it
						p.S[i], p.Q[i%len(p.Q)] = float32(math.NaN()), -1
					}
					p.Pack(kind, c.k, w, rowBytes, TileRows)
				}()
			}
			nf := c.k / ActBlock * kind.halves()
			for _, l := range []Level{Generic, AVX2} {
				want, got := packs[l], packs[AVX512]
				for j, v := range want.Q[:c.k*TileRows] {
					if got.Q[j] != v {
						t.Fatalf("%v k=%d: Q[%d] (column %d, row %d) is %d from the AVX-512 packer, %d at %v",
							typ, c.k, j, 2*(j/64)+j%2, j%64/2, got.Q[j], v, l)
					}
				}
				for j, v := range want.S[:nf*2*TileRows] {
					if math.Float32bits(got.S[j]) != math.Float32bits(v) {
						t.Fatalf("%v k=%d: S[%d] (block %d, row %d, min %v) is %v from the AVX-512 packer, %v at %v",
							typ, c.k, j, j/64, j%32, j%64 >= 32, got.S[j], v, l)
					}
				}
			}
		}
	}
}

// TestPackBF16AVX512MatchesAVX2: the AVX-512 bfloat16 packer writes the pack that widening and
// Transpose8 write (AVX2 and plain Go), bit for bit: widths that are and are not multiples of its
// 16-column step, and bfloat16 bits of every kind (NaNs, infinities, subnormals).
func TestPackBF16AVX512MatchesAVX2(t *testing.T) {
	if Supported() < AVX512 {
		t.Skipf("this CPU has no AVX-512 F and BW (%v): the AVX-512 packer cannot run here", Supported())
	}
	r := rand.New(rand.NewPCG(69, 70))
	for _, k := range []int{16, 1024, 1040, 1030, 7} {
		w := make([]uint16, TileRows*k)
		for i := range w {
			w[i] = uint16(r.Uint32())
		}
		var packs [3][]float32
		for i, level := range []Level{Generic, AVX2, AVX512} {
			func() {
				defer Limit(level)()
				packs[i] = make([]float32, TileRows*k)
				PackBF16(packs[i], w, k, make([]float32, TileRows*k))
			}()
		}
		for i, level := range []Level{Generic, AVX2} {
			for j, v := range packs[i] {
				if got := packs[2][j]; math.Float32bits(got) != math.Float32bits(v) {
					t.Fatalf("k=%d: pack[%d] (column %d, row %d) is %#x from the AVX-512 packer, %#x at %v",
						k, j, j/TileRows, j%TileRows, math.Float32bits(got), math.Float32bits(v), level)
				}
			}
		}
	}
}
