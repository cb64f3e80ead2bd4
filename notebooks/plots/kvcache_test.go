package plots

import (
	"math"
	"testing"
)

// TestProjectedCells lays out chapter 08's worked example: a prompt of 3 then two steps, with the
// cache (3, 1, 1 rows projected) and without (3, 4, 5), and refuses counts that cannot be.
func TestProjectedCells(t *testing.T) {
	const p, c, n = RowProjected, RowCached, -1 // n: not in the sequence (NaN)
	for _, tc := range []struct {
		name      string
		projected []int
		want      [][]float64
	}{
		{"cached", []int{3, 1, 1}, [][]float64{{p, p, p, n, n}, {c, c, c, p, n}, {c, c, c, c, p}}},
		{"recomputed", []int{3, 4, 5}, [][]float64{{p, p, p, n, n}, {p, p, p, p, n}, {p, p, p, p, p}}},
	} {
		got, err := ProjectedCells([]int{3, 4, 5}, tc.projected)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if r, cols := got.Dims(); r != 3 || cols != 5 {
			t.Fatalf("%s: %d x %d, want 3 x 5", tc.name, r, cols)
		}
		for i, row := range tc.want {
			for j, k := range row {
				if v := got.At(i, j); (k == n) != math.IsNaN(v) || (k != n && v != k) {
					t.Errorf("%s: call %d, position %d: %g, want %g (0 projected, 1 cached, -1 NaN)", tc.name, i, j, v, k)
				}
			}
		}
	}
	for _, bad := range [][2][]int{{{3}, {4}}, {{3, 4}, {3}}, {{0}, {0}}, {{3}, {-1}}, {nil, nil}} {
		if _, err := ProjectedCells(bad[0], bad[1]); err == nil {
			t.Errorf("ProjectedCells(%v, %v): no error", bad[0], bad[1])
		}
	}
	sw := ProjectedSwatches()
	if len(sw) != 3 || sw[RowCached].Color != Color(ProjectedColors(), RowCached) || sw[2].Color != MaskColor {
		t.Errorf("swatches %v do not follow the palette's kinds", sw)
	}
}
