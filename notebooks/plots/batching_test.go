package plots

import (
	"math"
	"testing"

	batching "github.com/qwen3go/qwen3go/chapters/10_batching"
	"gonum.org/v1/gonum/mat"
)

// TestMaskKinds classifies chapter 10's masks of the worked example (prompt [4] left-padded to 3
// columns, and [1 3 2] without padding), at prefill and at a decode step, and refuses a mask
// that does not fit its flags.
func TestMaskKinds(t *testing.T) {
	const v, f, p, o = MaskVisible, MaskFuture, MaskPadKey, MaskOwnKey
	for _, tc := range []struct {
		name string
		real []bool
		nq   int
		want [][]float64
	}{
		{"padded prefill", []bool{false, false, true}, 3, [][]float64{{o, f, f}, {p, o, f}, {p, p, v}}},
		{"unpadded prefill", []bool{true, true, true}, 3, [][]float64{{v, f, f}, {v, v, f}, {v, v, v}}},
		{"padded step", []bool{false, false, true, true}, 1, [][]float64{{p, p, v, v}}},
		{"last two of four", []bool{false, true, true, true}, 2, [][]float64{{p, v, v, f}, {p, v, v, v}}},
	} {
		got, err := MaskKinds(tc.real, batching.Mask(tc.real, tc.nq))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for r, row := range tc.want {
			for j, k := range row {
				if got.At(r, j) != k {
					t.Errorf("%s: cell (%d, %d) is kind %g, want %g (0 visible, 1 future, 2 padding key, 3 own key)", tc.name, r, j, got.At(r, j), k)
				}
			}
		}
	}
	if _, err := MaskKinds([]bool{true, true}, mat.NewDense(1, 3, nil)); err == nil {
		t.Error("a mask of 3 columns over 2 flags: no error")
	}
	if _, err := MaskKinds([]bool{true}, mat.NewDense(2, 1, []float64{0, math.Inf(-1)})); err == nil {
		t.Error("a mask of 2 queries over 1 column: no error")
	}
	cm := MaskKindColors()
	sw := MaskKindSwatches()
	if len(sw) != 4 || sw[MaskPadKey].Color != Color(cm, MaskPadKey) || sw[MaskFuture].Color != MaskColor {
		t.Errorf("swatches %v do not follow the palette's kinds", sw)
	}
}
