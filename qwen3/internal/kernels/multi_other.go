//go:build !amd64

package kernels

// Hooks of the batched kernels (multi.go) for architectures without an assembly form of them:
// none takes any work, so each token goes through the one-token kernels (which may have one).

func dotF32RowsNArch(out []float32, outStride, rows int, w []float32, cols int, x []float32, xStride, tokens int) int {
	return 0
}

func dotBF16RowsNArch(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) int {
	return 0
}

func dotF16RowsNArch(out []float32, outStride, rows int, w []uint16, cols int, x []float32, xStride, tokens int) int {
	return 0
}

func dotActRowsNArch(k actKind, out []float32, outStride, rows int, w []byte, rowBytes int, a *Act, cols, tokens int) int {
	return 0
}
