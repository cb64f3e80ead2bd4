//go:build !amd64

package kernels

// Hooks of the float16 KV cache's kernels (attn.go) where there is no assembly form of them yet:
// none takes any work, so they run their plain Go forms.

func attnTileF16Arch(rows int, pack []uint16, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}
func narrowF16Arch(dst []uint16, src []float32) (done int) { return 0 }
