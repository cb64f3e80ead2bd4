//go:build amd64 || arm64

package kernels

import (
	"math/rand/v2"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// checkPlanes fails t unless a's byte planes hold its first len(x) values, just quantized from
// x: per block of 32 the high bytes (signed) then the low bytes, a = 256·hi + lo. The planes'
// layout is the same on amd64 (VNNI) and arm64 (DotProd).
func checkPlanes(t *testing.T, a *Act, x []float32) {
	t.Helper()
	if a.arch.n != len(x) {
		t.Fatalf("after Quantize at %v the planes hold %d values, want %d", Active(), a.arch.n, len(x))
	}
	for i := range x {
		b, j := i/ActBlock, i%ActBlock
		hi, lo := int8(a.arch.planes[64*b+j]), a.arch.planes[64*b+32+j]
		if got := 256*int(hi) + int(lo); got != int(a.Q[i]) {
			t.Fatalf("value %d: planes give 256·%d + %d = %d, Q holds %d", i, hi, lo, got, a.Q[i])
		}
	}
}

// TestMarkWritten: values written through a view of an Act (as the engine's prompt chunks write
// theirs) leave its planes describing the old values; after MarkWritten the dots read the new
// values (red without the call, where the level keeps planes for Q6_K).
func TestMarkWritten(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	const n = 512
	a := NewAct(n)
	a.Quantize(randX(r, n))
	view := Act{Q: a.Q, Scale: a.Scale, Sum: a.Sum, Sum16: a.Sum16} // shares a's values, not its planes
	view.Quantize(randX(r, n))
	a.MarkWritten()
	if a.arch.n != 0 {
		t.Fatalf("after MarkWritten the planes claim %d values", a.arch.n)
	}
	w := randBlocks(r, gguf.TypeQ6_K, 2*n/256)
	var out [2]float32
	DotQ6_KActRows(out[:], w, len(w)/2, a)
	for row := range 2 {
		want, mag := actRef(t, gguf.TypeQ6_K, w[row*len(w)/2:(row+1)*len(w)/2], a)
		if !closeTo(out[row], want, mag, n) {
			t.Errorf("row %d after writes through a view: %v, float64 reference %v", row, out[row], want)
		}
	}
}
