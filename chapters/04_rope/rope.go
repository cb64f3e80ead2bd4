package rope

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// InvFreq returns the headDim/2 inverse frequencies of rotary embedding, computed the way
// transformers computes them (Qwen3RotaryEmbedding, rope_type "default"), in float32:
//
//	inv_freq[i] = float32( 1 / float32( theta ^ float32(2i/headDim) ) ),  i = 0 .. headDim/2-1
//
// The values are returned as float64 but every one of them is exactly a float32 number; that is
// what makes NewTable's angles match the reference (see the package doc). InvFreq64 is the
// same formula without rounding. It panics unless headDim is positive and even.
func InvFreq(headDim int, theta float64) []float64 {
	checkHeadDim(headDim)
	// exercise: rope.InvFreq — exponent 2i/d, then p = theta^exponent, then 1/p, each rounded to float32 in this order
	// tests: TestInvFreqGolden ExampleInvFreq
	// difficulty: medium, 15 min
	f := make([]float64, headDim/2)
	for i := range f {
		exp := float32(2*i) / float32(headDim)
		p := float32(math.Pow(theta, float64(exp)))
		f[i] = float64(float32(1 / float64(p)))
	}
	return f
	// hint: Pair i turns theta^(-2i/d) radians per position. transformers computes that in
	// float32, one rounding after each step, and its bits are what the golden test holds.
	// hint: e = float32(2i) / float32(d); p = float32(theta^e) (math.Pow in float64, then rounded);
	// inv_freq[i] = float32(1 / p), stored as a float64.
	// hint: The shape:
	//	for i := range f {
	//		exp := float32(2*i) / float32(headDim)
	//		p := float32(math.Pow(theta, float64(exp)))
	//		f[i] = ...
	//	}
	// mistake: the textbook formula in float64, nothing rounded to float32
	// says: transformers computes in float32
	//	- exp := float32(2*i) / float32(headDim)
	//	- p := float32(math.Pow(theta, float64(exp)))
	//	- f[i] = float64(float32(1 / float64(p)))
	//	+ f[i] = math.Pow(theta, -float64(2*i)/float64(headDim))
	// mistake: theta^(-2i/d) in one power, rounded once: the right numbers to 1e-7, not transformers' bits
	// says: the order of the float32 roundings matters
	//	- p := float32(math.Pow(theta, float64(exp)))
	//	- f[i] = float64(float32(1 / float64(p)))
	//	+ f[i] = float64(float32(math.Pow(theta, -float64(exp))))
	// mistake: exponent i/d instead of 2i/d
	// says: that is theta^(-i/d)
	//	- exp := float32(2*i) / float32(headDim)
	//	+ exp := float32(i) / float32(headDim)
	// mistake: theta hard-coded to 10000, the original Transformer's base, not the argument
	// says: theta = 10000
	//	- p := float32(math.Pow(theta, float64(exp)))
	//	+ p := float32(math.Pow(10000, float64(exp)))
	// end exercise
}

// InvFreq64 returns the exact inverse frequencies theta^(-2i/headDim), i = 0 .. headDim/2-1, in
// float64: the textbook formula. Pair i turns by InvFreq64[i] radians per position, from 1 radian
// per token (i = 0) down to almost theta^-1 (i = headDim/2-1).
func InvFreq64(headDim int, theta float64) []float64 {
	checkHeadDim(headDim)
	f := make([]float64, headDim/2)
	for i := range f {
		f[i] = math.Pow(theta, -float64(2*i)/float64(headDim))
	}
	return f
}

// Angle32 returns pos*invFreq rounded to float32, which is how transformers forms the rotation
// angle: it multiplies float32(position) by the float32 inv_freq in float32. The product of two
// float32 numbers is exact in float64, so rounding it once gives float32's correctly rounded
// product. invFreq must itself be a float32 value (as InvFreq returns) for this to be exact.
func Angle32(pos int, invFreq float64) float64 {
	return float64(float32(float64(float32(pos)) * invFreq))
}

func checkHeadDim(headDim int) {
	if headDim <= 0 || headDim%2 != 0 {
		panic(fmt.Sprintf("rope: head_dim %d must be positive and even", headDim))
	}
}

// Table holds cos and sin of every rotation angle for positions 0 .. MaxPos-1, computed once and
// indexed by absolute position, so that decoding token n (chapter 08) only looks up row n.
// A Table is read-only after construction and safe for concurrent use.
type Table struct {
	headDim, maxPos int
	invFreq         []float64
	// cos and sin are maxPos x headDim/2, row p holding cos(angle(p, i)) for pair i.
	cos, sin []float64
}

// NewTable precomputes cos and sin for positions 0 .. maxPos-1 exactly as transformers does:
// inv_freq from InvFreq and angles rounded to float32 by Angle32; only cos and sin themselves are
// evaluated in float64. This matches Qwen3RotaryEmbedding within 1.9e-6 at every position up to
// 40959 (3.6e-8 but for one float32 ulp in inv_freq[37]: see the package doc). It panics unless headDim is positive and even and maxPos is positive.
func NewTable(headDim, maxPos int, theta float64) *Table {
	return newTable(headDim, maxPos, InvFreq(headDim, theta), Angle32)
}

// NewExactTable precomputes cos and sin from InvFreq64 and float64 angles pos*inv_freq: the
// mathematically exact rotation. It differs from the transformers reference by up to 3.2e-3 near
// the end of the context (the reference rounds inv_freq and every angle to float32; near 40959
// radians float32's spacing is 2^-8, so rounding the angle alone costs up to 2e-3), which is why
// the model uses NewTable. The chapter's notebook plots the difference against position.
func NewExactTable(headDim, maxPos int, theta float64) *Table {
	return newTable(headDim, maxPos, InvFreq64(headDim, theta), func(pos int, f float64) float64 {
		return float64(pos) * f
	})
}

func newTable(headDim, maxPos int, invFreq []float64, angle func(pos int, invFreq float64) float64) *Table {
	if maxPos <= 0 {
		panic(fmt.Sprintf("rope: max position %d must be positive", maxPos))
	}
	half := headDim / 2
	t := &Table{
		headDim: headDim,
		maxPos:  maxPos,
		invFreq: invFreq,
		cos:     make([]float64, maxPos*half),
		sin:     make([]float64, maxPos*half),
	}
	for p := 0; p < maxPos; p++ {
		for i, f := range invFreq {
			a := angle(p, f)
			t.cos[p*half+i] = math.Cos(a)
			t.sin[p*half+i] = math.Sin(a)
		}
	}
	return t
}

// HeadDim returns the head width the table was built for.
func (t *Table) HeadDim() int { return t.headDim }

// MaxPos returns the number of positions in the table; valid positions are 0 .. MaxPos-1.
func (t *Table) MaxPos() int { return t.maxPos }

// InvFreq returns a copy of the table's inverse frequencies (headDim/2 values).
func (t *Table) InvFreq() []float64 { return append([]float64(nil), t.invFreq...) }

// CosSin returns copies of cos and sin of the headDim/2 angles of position pos, one per pair.
// transformers' cos and sin tensors are headDim wide: they repeat these halves twice
// (emb = cat(freqs, freqs)). It panics if pos is outside 0 .. MaxPos-1.
func (t *Table) CosSin(pos int) (cos, sin []float64) {
	t.checkPos(pos)
	h := t.headDim / 2
	return append([]float64(nil), t.cos[pos*h:(pos+1)*h]...), append([]float64(nil), t.sin[pos*h:(pos+1)*h]...)
}

func (t *Table) checkPos(pos int) {
	if pos < 0 || pos >= t.maxPos {
		panic(fmt.Sprintf("rope: position %d outside the table's 0..%d", pos, t.maxPos-1))
	}
}

// RotateHead rotates one head vector v (headDim values) in place to position pos. Element i pairs
// with element i+headDim/2 (the NeoX "half-split" layout Qwen3 uses, not (2i, 2i+1)), and pair i
// turns by the angle θ = pos*inv_freq[i]:
//
//	v'[i]        = v[i]*cos θ - v[i+d/2]*sin θ
//	v'[i+d/2]    = v[i+d/2]*cos θ + v[i]*sin θ
//
// which is transformers' q*cos + rotate_half(q)*sin. It panics if len(v) != HeadDim or pos is
// outside the table.
func (t *Table) RotateHead(v []float64, pos int) {
	if len(v) != t.headDim {
		panic(fmt.Sprintf("rope: head vector has %d values, table is for head_dim %d", len(v), t.headDim))
	}
	t.checkPos(pos)
	// exercise: rope.RotateHead — rotate each (v[i], v[i+half]) pair by the angle of pair i at pos
	// tests: TestRotateGolden TestHalfSplitPairs TestRotationKeepsNorm ExampleTable_Rotate
	// difficulty: medium, 20 min
	half := t.headDim / 2
	cos, sin := t.cos[pos*half:(pos+1)*half], t.sin[pos*half:(pos+1)*half]
	for i := 0; i < half; i++ {
		a, b := v[i], v[i+half]
		v[i] = a*cos[i] - b*sin[i]
		v[i+half] = b*cos[i] + a*sin[i]
	}
	// hint: Qwen3 pairs element i with element i + d/2 (not i+1), and turns pair i like a 2-D point
	// by the angle of pair i at this position; the table holds that angle's cos and sin.
	// hint: With a, b = v[i], v[i+d/2] and θ = pos*inv_freq[i]: v[i] = a cos θ - b sin θ,
	// v[i+d/2] = b cos θ + a sin θ. Both come from the OLD a and b.
	// hint: The shape:
	//	half := t.headDim / 2
	//	cos, sin := t.cos[pos*half:(pos+1)*half], t.sin[pos*half:(pos+1)*half]
	//	for i := 0; i < half; i++ {
	//		a, b := v[i], v[i+half]
	//		v[i], v[i+half] = ..., ...
	//	}
	// mistake: adjacent pairs (2i, 2i+1), the GPT-J layout, instead of (i, i+d/2)
	// says: GPT-J's layout
	//	- a, b := v[i], v[i+half]
	//	- v[i] = a*cos[i] - b*sin[i]
	//	- v[i+half] = b*cos[i] + a*sin[i]
	//	+ a, b := v[2*i], v[2*i+1]
	//	+ v[2*i] = a*cos[i] - b*sin[i]
	//	+ v[2*i+1] = b*cos[i] + a*sin[i]
	// mistake: turning the wrong way (the signs of sin swapped)
	// says: turns by the wrong angle or the wrong way
	//	- v[i] = a*cos[i] - b*sin[i]
	//	- v[i+half] = b*cos[i] + a*sin[i]
	//	+ v[i] = a*cos[i] + b*sin[i]
	//	+ v[i+half] = b*cos[i] - a*sin[i]
	// mistake: the second element rotated from the first one's new value
	// says: compute both new values from the old ones
	//	- a, b := v[i], v[i+half]
	//	- v[i] = a*cos[i] - b*sin[i]
	//	- v[i+half] = b*cos[i] + a*sin[i]
	//	+ v[i] = v[i]*cos[i] - v[i+half]*sin[i]
	//	+ v[i+half] = v[i+half]*cos[i] + v[i]*sin[i]
	// end exercise
}

// Rotate applies RoPE to every head of every row of x and returns the result as a new matrix.
// x is seq x (heads*headDim), a query or key projection after QK-norm; row r is the token at
// absolute position startPos+r (startPos is the number of tokens already in the KV cache, 0 for a
// fresh prompt). It panics if the row width is not a multiple of HeadDim or a position is outside
// the table.
func (t *Table) Rotate(x *mat.Dense, startPos int) *mat.Dense {
	seq, _ := x.Dims()
	pos := make([]int, seq)
	for r := range pos {
		pos[r] = startPos + r
	}
	return t.RotatePositions(x, pos)
}

// RotatePositions is Rotate with an explicit absolute position for every row: row r of x
// (seq x heads*headDim) is rotated to positions[r]. It panics if len(positions) != seq.
func (t *Table) RotatePositions(x *mat.Dense, positions []int) *mat.Dense {
	seq, width := x.Dims()
	if len(positions) != seq {
		panic(fmt.Sprintf("rope: %d positions for %d rows", len(positions), seq))
	}
	if width%t.headDim != 0 {
		panic(fmt.Sprintf("rope: row width %d is not a multiple of head_dim %d", width, t.headDim))
	}
	y := mat.DenseCopyOf(x)
	for r, p := range positions {
		row := y.RawRowView(r)
		for off := 0; off < width; off += t.headDim {
			t.RotateHead(row[off:off+t.headDim], p)
		}
	}
	return y
}
