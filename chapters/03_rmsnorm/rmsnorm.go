package rmsnorm

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Eps is Qwen3's rms_norm_eps (config.json). It is a constant, not a default hidden inside the
// functions: every call states its eps.
const Eps = 1e-6

// RMSNorm normalizes each row of x to unit root-mean-square and scales it by weight:
//
//	y[t][i] = x[t][i] / sqrt(mean_j(x[t][j]²) + eps) * weight[i]
//
// x is seq x d, weight has d values, and the result is a new seq x d matrix (x is not modified).
// It panics if len(weight) != d.
func RMSNorm(x *mat.Dense, weight []float64, eps float64) *mat.Dense {
	seq, d := x.Dims()
	if len(weight) != d {
		panic(fmt.Sprintf("rmsnorm: weight has %d values, rows have %d", len(weight), d))
	}
	y := mat.NewDense(seq, d, nil)
	for t := 0; t < seq; t++ {
		normRow(y.RawRowView(t), x.RawRowView(t), weight, eps)
	}
	return y
}

// normRow writes dst[i] = src[i] / sqrt(mean(src²) + eps) * w[i]; all three have the same length.
func normRow(dst, src, w []float64, eps float64) {
	// exercise: rmsnorm.normRow — mean of squares, eps inside the square root, then scale by the weight
	// tests: TestRMSNormGolden TestEpsInsideSqrt TestMeanOfSquares TestWeightScalesFeatures TestUnitRMS ExampleRMSNorm
	// difficulty: easy, 10 min
	var ss float64
	for _, v := range src {
		ss += v * v
	}
	inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
	for i, v := range src {
		dst[i] = v * inv * w[i]
	}
	// hint: Two passes over the row: one to measure its size, one to write the output. The size is
	// the root of the mean of the squares; eps keeps a row of zeros from dividing by zero.
	// hint: ms = (x[0]² + ... + x[n-1]²) / n; inv = 1 / sqrt(ms + eps) (eps inside the root);
	// dst[i] = src[i] * inv * w[i].
	// hint: The shape:
	//	var ss float64
	//	for _, v := range src { ss += ... }
	//	inv := 1 / math.Sqrt(...)
	//	for i, v := range src { dst[i] = ... }
	// mistake: eps added after the square root, x / (sqrt(mean(x²)) + eps)
	// says: eps goes inside the square root
	//	- inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
	//	+ inv := 1 / (math.Sqrt(ss/float64(len(src))) + eps)
	// mistake: the root of the sum of squares, not of their mean
	// says: not of their sum
	//	- inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
	//	+ inv := 1 / math.Sqrt(ss+eps)
	// mistake: the weight left out
	// says: multiply feature i by weight[i] last
	//	- dst[i] = v * inv * w[i]
	//	+ dst[i] = v * inv
	// mistake: the sum of squares divided by n-1, as for a sample variance
	// says: not n-1
	//	- inv := 1 / math.Sqrt(ss/float64(len(src))+eps)
	//	+ inv := 1 / math.Sqrt(ss/float64(len(src)-1)+eps)
	// mistake: the weight applied as (1 + w), Gemma's form
	// says: the weight is applied as 1 + w, Gemma's form
	//	- dst[i] = v * inv * w[i]
	//	+ dst[i] = v * inv * (1 + w[i])
	// mistake: the mean subtracted first, as LayerNorm does
	// says: RMSNorm does not subtract the mean
	//	- var ss float64
	//	- for _, v := range src {
	//	- ss += v * v
	//	- }
	//	+ var mean, ss float64
	//	+ for _, v := range src {
	//	+ 	mean += v / float64(len(src))
	//	+ }
	//	+ for _, v := range src {
	//	+ 	ss += (v - mean) * (v - mean)
	//	+ }
	//
	//	- dst[i] = v * inv * w[i]
	//	+ dst[i] = (v - mean) * inv * w[i]
	// end exercise
}

// NormHeads is QK-norm: it applies RMSNorm separately to every head_dim-wide block of every row.
//
//	y[t][h*headDim+i] = x[t][h*headDim+i] / sqrt(mean_j(x[t][h*headDim+j]²) + eps) * weight[i]
//
// x is seq x (heads*headDim), the output of a query or key projection; weight has headDim values
// shared by all heads. The result is a new matrix of x's shape. It panics if len(weight) != headDim
// or if the row width is not a multiple of headDim.
func NormHeads(x *mat.Dense, weight []float64, headDim int, eps float64) *mat.Dense {
	seq, width := x.Dims()
	if headDim <= 0 || len(weight) != headDim {
		panic(fmt.Sprintf("rmsnorm: weight has %d values, head_dim is %d", len(weight), headDim))
	}
	if width%headDim != 0 {
		panic(fmt.Sprintf("rmsnorm: row width %d is not a multiple of head_dim %d", width, headDim))
	}
	y := mat.NewDense(seq, width, nil)
	// exercise: rmsnorm.NormHeads — normalize each head_dim block of each row on its own
	// tests: TestNormHeadsGolden TestNormHeadsIsPerHead ExampleNormHeads
	// difficulty: easy, 10 min
	for t := 0; t < seq; t++ {
		src, dst := x.RawRowView(t), y.RawRowView(t)
		for off := 0; off < width; off += headDim {
			normRow(dst[off:off+headDim], src[off:off+headDim], weight, eps)
		}
	}
	// hint: QK-norm is normRow applied to pieces: each row of x holds heads blocks of headDim
	// values, and each block is normalized on its own with the same weight.
	// hint: For row t and head h: normRow(dst[h*headDim:(h+1)*headDim], src[h*headDim:(h+1)*headDim],
	// weight, eps), with src = row t of x and dst = row t of y.
	// hint: The shape:
	//	for t := 0; t < seq; t++ {
	//		src, dst := x.RawRowView(t), y.RawRowView(t)
	//		for off := 0; off < width; off += headDim { normRow(...) }
	//	}
	// mistake: one RMS for the whole row (all heads together), the weight repeated per head
	// says: normalize each head_dim block with its own RMS
	//	- for off := 0; off < width; off += headDim {
	//	- normRow(dst[off:off+headDim], src[off:off+headDim], weight, eps)
	//	- }
	//	+ var ss float64
	//	+ for _, v := range src {
	//	+ 	ss += v * v
	//	+ }
	//	+ inv := 1 / math.Sqrt(ss/float64(width)+eps)
	//	+ for i, v := range src {
	//	+ 	dst[i] = v * inv * weight[i%headDim]
	//	+ }
	// mistake: every output row normalized from the first input row
	// says: row t comes from row t of x
	//	- src, dst := x.RawRowView(t), y.RawRowView(t)
	//	+ src, dst := x.RawRowView(0), y.RawRowView(t)
	// end exercise
	return y
}

// LayerNorm is the normalization RMSNorm replaced (the original Transformer, GPT-2, BERT): each
// row is centred on its mean, divided by the root of its variance, then scaled and shifted:
//
//	mu     = mean_j(x[t][j])
//	var    = mean_j((x[t][j] - mu)²)
//	y[t][i] = (x[t][i] - mu) / sqrt(var + eps) * weight[i] + bias[i]
//
// Qwen3 does not use it; it is here to be compared with RMSNorm (the package doc's "What came
// before"). With weight 1 and bias 0 it is RMSNorm of the centred row. x is seq x d, weight and
// bias have d values (bias may be nil: no shift); the result is a new seq x d matrix. It panics
// if a length does not match d.
func LayerNorm(x *mat.Dense, weight, bias []float64, eps float64) *mat.Dense {
	seq, d := x.Dims()
	if len(weight) != d || (bias != nil && len(bias) != d) {
		panic(fmt.Sprintf("rmsnorm: LayerNorm weight has %d values and bias %d, rows have %d", len(weight), len(bias), d))
	}
	y := mat.NewDense(seq, d, nil)
	for t := 0; t < seq; t++ {
		src, dst := x.RawRowView(t), y.RawRowView(t)
		var mu float64
		for _, v := range src {
			mu += v
		}
		mu /= float64(d)
		var ss float64
		for _, v := range src {
			ss += (v - mu) * (v - mu)
		}
		inv := 1 / math.Sqrt(ss/float64(d)+eps)
		for i, v := range src {
			dst[i] = (v - mu) * inv * weight[i]
			if bias != nil {
				dst[i] += bias[i]
			}
		}
	}
	return y
}

// RMS returns sqrt(mean(row²)), the root-mean-square of a vector, without eps. It is what the
// chapter's notebook plots before and after normalization.
func RMS(row []float64) float64 {
	if len(row) == 0 {
		return 0
	}
	var ss float64
	for _, v := range row {
		ss += v * v
	}
	return math.Sqrt(ss / float64(len(row)))
}
