package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestTile(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, k := range []int{0, 1, 7, 64, 1024, 1000} {
		stride := k + 5
		rows := make([][]float32, TileRows)
		pack := make([]float32, k*TileRows)
		for i := range rows {
			rows[i] = randX(r, k)
			PackRow(pack, i, rows[i])
		}
		x := randX(r, (TileTokens-1)*stride+k)
		outs := map[string]*[TileTokens * TileRows]float32{"tileGeneric": new([TileTokens * TileRows]float32)}
		tileGeneric(pack, x, stride, k, outs["tileGeneric"])
		for l := Generic; l <= Supported(); l++ { // every level's form of Tile (AVX-512 machines run AVX2's too)
			out := new([TileTokens * TileRows]float32)
			restore := Limit(l)
			Tile(pack, x, stride, k, out)
			restore()
			outs["Tile at "+l.String()] = out
		}
		for tok := 0; tok < TileTokens; tok++ {
			for i := 0; i < TileRows; i++ {
				want, abs := refDot(rows[i], x[tok*stride:tok*stride+k])
				for name, out := range outs {
					if got := out[tok*TileRows+i]; !closeTo(got, want, abs, k) {
						t.Fatalf("k=%d token %d row %d: %s %v, float64 %v", k, tok, i, name, got, want)
					}
				}
			}
		}
	}
}

func TestTilePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("short input: no panic")
		}
	}()
	var out [TileTokens * TileRows]float32
	Tile(make([]float32, 16*8), make([]float32, 8), 8, 8, &out)
}

func BenchmarkTile(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const k = 1024
	pack, x := randX(r, k*TileRows), randX(r, TileTokens*k)
	var out [TileTokens * TileRows]float32
	b.SetBytes(int64(4 * len(pack)))
	for b.Loop() {
		Tile(pack, x, k, k, &out)
	}
	b.ReportMetric(float64(k*TileRows*TileTokens)/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "MAC/ns")
}

// TestAddRows: AddRows and CopyRows at every level give the plain loops' float32 bits, and touch
// nothing between the rows of y.
func TestAddRows(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 78))
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 5, 140} {
			stride := TileRows + r.IntN(40)
			x := randX(r, n*TileRows)
			y := randX(r, max(0, (n-1)*stride+TileRows)+7)
			for _, add := range []bool{false, true} {
				got, want := append([]float32(nil), y...), append([]float32(nil), y...)
				if add {
					AddRows(got, stride, x, n)
				} else {
					CopyRows(got, stride, x, n)
				}
				for tt := range n {
					for i := range TileRows {
						if add {
							want[tt*stride+i] += x[tt*TileRows+i]
						} else {
							want[tt*stride+i] = x[tt*TileRows+i]
						}
					}
				}
				for j := range want {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("n %d stride %d add %v: y[%d] = %v, want %v", n, stride, add, j, got[j], want[j])
					}
				}
			}
		}
	})
}

// TestTilePart: a tile's first n tokens from TilePart are Tile's, bit for bit, at every level (the
// 8-token AVX-512 kernel where the CPU has it).
func TestTilePart(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	eachLevel(t, func(t *testing.T) {
		for _, k := range []int{1, 64, 1000} {
			stride := k + 3
			pack, x := randX(r, k*TileRows), randX(r, (TileTokens-1)*stride+k)
			var want [TileTokens * TileRows]float32
			Tile(pack, x, stride, k, &want)
			for _, n := range []int{1, 7, 8, 9, 12} {
				var got [TileTokens * TileRows]float32
				TilePart(pack, x, stride, k, n, &got)
				for j := range n * TileRows {
					if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
						t.Fatalf("k=%d n=%d: token %d row %d is %v, Tile gives %v", k, n, j/TileRows, j%TileRows, got[j], want[j])
					}
				}
			}
		}
	})
}
