//go:build !amd64 && !arm64

package kernels

// Hooks of the dispatch (see dispatch_amd64.go) for architectures without assembly kernels:
// none takes any work, so every kernel runs its plain Go form.

func dotF32RowsArch(out, w []float32, cols int, x []float32) bool                      { return false }
func dotBF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool            { return false }
func dotF16RowsArch(out []float32, w []uint16, cols int, x []float32) bool             { return false }
func dotQ8_0Arch(w []byte, x []float32, nb int) (float32, bool)                        { return 0, false }
func axpyArch(y []float32, a float32, x []float32) (done int)                          { return 0 }
func quantizeActArch(a *Act, x []float32) bool                                         { return false }
func dotActRowsArch(k actKind, out []float32, w []byte, rowBytes, nb int, a *Act) int  { return 0 }
func decodeQ4_0Arch(dst []float32, src []byte, nb int) bool                            { return false }
func decodeQ4_KArch(dst []float32, src []byte, nb int) bool                            { return false }
func decodeQ6_KArch(dst []float32, src []byte, nb int) bool                            { return false }
func decodeQ8_0Arch(dst []float32, src []byte, nb int) bool                            { return false }
func transpose8Arch(dst []float32, dstStride int, src []float32, srcStride, k int) int { return 0 }
func widenBF16Arch(dst []float32, src []uint16) (done int)                             { return 0 }
func widenF16Arch(dst []float32, src []uint16) (done int)                              { return 0 }
func packBF16Arch(pack []float32, w []uint16, k int) (done int)                        { return 0 }
func prefetchArch(b []byte)                                                            {}
func addRowsArch(y []float32, yStride int, x []float32, n int) bool                    { return false }
func copyRowsArch(y []float32, yStride int, x []float32, n int) bool                   { return false }
func tileArch(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) bool {
	return false
}
func widenBytesArch(dst []int16, src []byte) bool                                { return false }
func widenNibblesArch(lo, hi []int16, src []byte, bias int) bool                 { return false }
func widenQ6Arch(y []int16, ql, qh []byte) bool                                  { return false }
func packQArch(p *QPack, kind QKind, k int, raw []byte, rowBytes, rows int) bool { return false }
func tileQArch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	return false
}
func attnTile32Arch(rows int, pack []float32, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}
func attnTile32F16Arch(rows int, pack []uint16, second, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}
func tile8Arch(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32) bool {
	return false
}
func tileQ8Arch(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32) bool {
	return false
}
func attnTileArch(rows int, pack []float32, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}
func expSubArch(x []float32, m float32) (sum float32, done int) { return 0, 0 }
func maxArch(x []float32) (m float32, done int)                 { return 0, 0 }
func scaleArch(dst, x []float32, a float32) (done int)          { return 0 }
func siluMulArch(dst, gate, up []float32) (done int)            { return 0 }

// actArch is empty where no kernel keeps anything beside an Act's values.
type actArch struct{}

func (a *actArch) stale() {}

func attnTileF16Arch(rows int, pack []uint16, packStride int, x []float32, xStride, k int, out []float32, outStride int, acc bool) bool {
	return false
}
func narrowF16Arch(dst []uint16, src []float32) (done int) { return 0 }

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
