package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

func TestAttnTile(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	eachLevel(t, func(t *testing.T) {
		for _, rows := range []int{2, AttnRows} {
			for _, k := range []int{0, 1, 2, 3, 16, 64, 127, 128} {
				packStride, xStride, outStride := 16+r.IntN(8), k+r.IntN(5), 16+r.IntN(9)
				pack := randX(r, max(0, (k-1)*packStride+AttnLanes))
				x := randX(r, (rows-1)*xStride+k)
				for _, acc := range []bool{false, true} {
					out := randX(r, (rows-1)*outStride+AttnLanes)
					before := append([]float32(nil), out...)
					AttnTile(rows, pack, packStride, x, xStride, k, out, outStride, acc)
					for tt := 0; tt < rows; tt++ {
						for i := 0; i < AttnLanes; i++ {
							var want, abs float64
							for j := 0; j < k; j++ {
								p := float64(pack[j*packStride+i]) * float64(x[tt*xStride+j])
								want += p
								abs += math.Abs(p)
							}
							if acc {
								want += float64(before[tt*outStride+i])
								abs += math.Abs(float64(before[tt*outStride+i]))
							}
							if got := out[tt*outStride+i]; !closeTo(got, want, abs, k+1) {
								t.Fatalf("rows %d k %d acc %v: out[%d][%d] = %v, float64 %v", rows, k, acc, tt, i, got, want)
							}
						}
					}
					// lanes between rows are untouched
					for tt := 0; tt < rows-1; tt++ {
						for i := AttnLanes; i < outStride; i++ {
							if out[tt*outStride+i] != before[tt*outStride+i] {
								t.Fatalf("rows %d k %d: wrote out[%d][%d] outside the tile", rows, k, tt, i)
							}
						}
					}
				}
			}
		}
	})
}

// TestAttnTileF16: the tiles over a float16 cache against float64 sums of chapter 01's widened
// halves, with the shapes of TestAttnTile (k past the unrolled pairs, odd strides).
func TestAttnTileF16(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	eachLevel(t, func(t *testing.T) {
		for _, rows := range []int{2, AttnRows} {
			for _, k := range []int{0, 1, 2, 3, 16, 64, 127, 128} {
				packStride, xStride, outStride := 16+r.IntN(8), k+r.IntN(5), 16+r.IntN(9)
				pack := make([]uint16, max(0, (k-1)*packStride+AttnLanes))
				for i := range pack {
					pack[i] = gguf.F32ToF16(float32(r.NormFloat64()))
				}
				if len(pack) > 0 { // the smallest subnormal: F16C widens subnormals exactly too
					pack[0] = 0x0001
				}
				x := randX(r, (rows-1)*xStride+k)
				for _, acc := range []bool{false, true} {
					out := randX(r, (rows-1)*outStride+AttnLanes)
					before := append([]float32(nil), out...)
					AttnTileF16(rows, pack, packStride, x, xStride, k, out, outStride, acc)
					for tt := 0; tt < rows; tt++ {
						for i := 0; i < AttnLanes; i++ {
							var want, abs float64
							for j := 0; j < k; j++ {
								p := float64(gguf.F16ToF32(pack[j*packStride+i])) * float64(x[tt*xStride+j])
								want += p
								abs += math.Abs(p)
							}
							if acc {
								want += float64(before[tt*outStride+i])
								abs += math.Abs(float64(before[tt*outStride+i]))
							}
							if got := out[tt*outStride+i]; !closeTo(got, want, abs, k+1) {
								t.Fatalf("rows %d k %d acc %v: out[%d][%d] = %v, float64 %v", rows, k, acc, tt, i, got, want)
							}
						}
					}
					for tt := 0; tt < rows-1; tt++ {
						for i := AttnLanes; i < outStride; i++ {
							if out[tt*outStride+i] != before[tt*outStride+i] {
								t.Fatalf("rows %d k %d: wrote out[%d][%d] outside the tile", rows, k, tt, i)
							}
						}
					}
				}
			}
		}
	})
}

// TestNarrowF16: the bits chapter 01's F32ToF16 gives, for ordinary values, ties, subnormals,
// values that overflow to Inf, and every length around the 8-lane blocks.
func TestNarrowF16(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	x := make([]float32, 4099)
	for i := range x {
		x[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(40)-28))) // 2^-28 .. 2^11 and beyond
	}
	specials := []float32{0, float32(math.Copysign(0, -1)), 65504, 65519, 65520, -70000, 0x1p-24, 0x1p-25, 0x1.8p-24,
		0x1p-14, 0x1.ffcp-15, 1 + 0x1p-11, 1 + 0x3p-11, float32(math.Inf(1)), float32(math.Inf(-1))}
	copy(x, specials)
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, len(x)} {
			dst := make([]uint16, n+1)
			dst[n] = 0xbeef
			NarrowF16(dst, x[:n])
			for i, v := range x[:n] {
				if want := gguf.F32ToF16(v); dst[i] != want {
					t.Fatalf("n=%d: NarrowF16(%v) = %#04x, chapter 01 gives %#04x", n, v, dst[i], want)
				}
			}
			if dst[n] != 0xbeef {
				t.Fatalf("n=%d: wrote past the values", n)
			}
		}
	})
}

// ulps is the distance between two float32 values in units in the last place.
func ulps(a, b float32) float64 {
	if a == b {
		return 0
	}
	return math.Abs(float64(a)-float64(b)) / float64(math.Nextafter32(float32(math.Max(math.Abs(float64(a)), math.Abs(float64(b)))), float32(math.Inf(1)))-float32(math.Max(math.Abs(float64(a)), math.Abs(float64(b)))))
}

func TestExpSub(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	x := make([]float32, 4099)
	for i := range x {
		x[i] = float32(-90 + 92*r.Float64()) // down to below the clamp, up to e^2
	}
	x[0], x[1], x[2] = 0, -1e-30, -87
	eachLevel(t, func(t *testing.T) {
		got := append([]float32(nil), x...)
		m := float32(0.5)
		sum := ExpSub(got, m)
		var want float64
		for i, v := range x {
			e := float32(math.Exp(float64(v - m)))
			want += float64(got[i])
			if v-m < -87 { // clamped: e^-87 or the true value, both below 1.7e-38
				if got[i] > 1.7e-38 {
					t.Fatalf("e^%v = %v, want at most e^-87", v-m, got[i])
				}
				continue
			}
			if d := ulps(got[i], e); d > 2 {
				t.Fatalf("e^%v = %v, math.Exp gives %v: %.1f ulp apart", v-m, got[i], e, d)
			}
		}
		if math.Abs(float64(sum)-want) > 1e-5*want {
			t.Errorf("sum %v, the values add up to %v", sum, want)
		}
	})
}

func TestSiLUMul(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	gate, up := randX(r, 1027), randX(r, 1027)
	for i := range gate {
		gate[i] *= 8
	}
	gate[0], gate[1], gate[2] = 100, -100, 0
	eachLevel(t, func(t *testing.T) {
		dst := make([]float32, len(gate))
		SiLUMul(dst, gate, up)
		for i, g := range gate {
			want := float64(g) / (1 + math.Exp(-float64(g))) * float64(up[i])
			// below gate = -87 e^-gate is clamped at e^88: the result is then ~1e-36 instead of ~0
			if math.Abs(float64(dst[i])-want) > 4e-7*math.Abs(want)+1e-35 {
				t.Fatalf("silu(%v)·%v = %v, float64 %v", g, up[i], dst[i], want)
			}
		}
	})
}

func TestMaxScale(t *testing.T) {
	r := rand.New(rand.NewPCG(67, 68))
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 8, 9, 64, 131} {
			x := randX(r, n)
			want := x[0]
			for _, v := range x {
				want = float32(math.Max(float64(want), float64(v)))
			}
			if got := Max(x); got != want {
				t.Errorf("n=%d: Max %v, want %v", n, got, want)
			}
			x[r.IntN(n)] = 1e30
			if got := Max(x); got != 1e30 {
				t.Errorf("n=%d: Max %v, want the planted 1e30", n, got)
			}
			dst := make([]float32, n)
			Scale(dst, x, 0.25)
			for i := range dst {
				if dst[i] != 0.25*x[i] {
					t.Fatalf("n=%d: Scale[%d] = %v, want %v", n, i, dst[i], 0.25*x[i])
				}
			}
		}
	})
}

func BenchmarkExpSub(b *testing.B) {
	x := make([]float32, 1024)
	for b.Loop() {
		ExpSub(x, 0)
	}
}

// TestAttnTile32: AttnTile32 and AttnTile32F16 give, lane for lane, the float32 bits of two
// AttnTiles (AttnTileF16s) at every level: their AVX-512 forms do each lane's operations in the
// one-tile order. Both row counts, k odd and even, with and without acc, the second half near
// (value sums: 16) and far (scores: the next key block) from the first.
func TestAttnTile32(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	eachLevel(t, func(t *testing.T) {
		for _, rows := range []int{2, AttnRows} {
			for _, k := range []int{0, 1, 2, 3, 16, 64, 127, 128} {
				for _, far := range []bool{false, true} {
					packStride, xStride, outStride := 32+r.IntN(8), k+r.IntN(5), 32+r.IntN(9)
					second := 16
					if far {
						second = max(k, 1)*packStride + r.IntN(40)
					}
					pack := randX(r, second+max(0, (k-1)*packStride+AttnLanes))
					half := make([]uint16, len(pack))
					for i, v := range pack {
						half[i] = gguf.F32ToF16(v)
					}
					x := randX(r, (rows-1)*xStride+k)
					for _, acc := range []bool{false, true} {
						start := randX(r, (rows-1)*outStride+2*AttnLanes)
						var got, want [2][]float32 // [f16]
						for f := range got {
							got[f], want[f] = append([]float32(nil), start...), append([]float32(nil), start...)
						}
						AttnTile32(rows, pack, second, packStride, x, xStride, k, got[0], outStride, acc, nil)
						AttnTile(rows, pack, packStride, x, xStride, k, want[0], outStride, acc)
						AttnTile(rows, pack[second:], packStride, x, xStride, k, want[0][AttnLanes:], outStride, acc)
						AttnTile32F16(rows, half, second, packStride, x, xStride, k, got[1], outStride, acc, nil)
						AttnTileF16(rows, half, packStride, x, xStride, k, want[1], outStride, acc)
						AttnTileF16(rows, half[second:], packStride, x, xStride, k, want[1][AttnLanes:], outStride, acc)
						for f, name := range []string{"AttnTile32", "AttnTile32F16"} {
							for j, v := range want[f] {
								if g := got[f][j]; math.Float32bits(g) != math.Float32bits(v) {
									t.Fatalf("%s rows %d k %d second %d acc %v: out[%d] (row %d, lane %d) is %v, two tiles give %v",
										name, rows, k, second, acc, j, j/outStride, j%outStride, g, v)
								}
							}
						}
					}
				}
			}
		}
	})
}

// BenchmarkAttnTile32: a value sum of 64 keys for six rows over 32 dimensions, as two AttnTiles
// and as one AttnTile32 (the same bits); FMA/ns counts the multiply-adds.
func BenchmarkAttnTile32(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const k, d = 64, 128
	pack, x, out := randX(r, k*d), randX(r, AttnRows*k), make([]float32, AttnRows*d)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"two", func() {
			AttnTile(AttnRows, pack, d, x, k, k, out, d, true)
			AttnTile(AttnRows, pack[16:], d, x, k, k, out[16:], d, true)
		}},
		{"one", func() { AttnTile32(AttnRows, pack, 16, d, x, k, k, out, d, true, nil) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
			b.ReportMetric(float64(32*AttnRows*k)/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "FMA/ns")
		})
	}
}
