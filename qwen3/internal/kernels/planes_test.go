//go:build amd64 || arm64

package kernels

import "testing"

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
