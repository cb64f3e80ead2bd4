package attention

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestProjectAtPositions: ProjectAt rotates each row to its own position. With consecutive
// positions it is Project; with any positions, row r equals projecting that row alone at
// positions[r] (exact: the same products in the same order, row by row).
func TestProjectAtPositions(t *testing.T) {
	g := loadGolden(t)
	rot := g.cfg.RoPE(64)
	seq, _ := g.x.Dims()
	consecutive := make([]int, seq)
	for r := range consecutive {
		consecutive[r] = 3 + r
	}
	q, k, v := Project(g.cfg, g.w, rot, g.x, 3)
	qa, ka, va := ProjectAt(g.cfg, g.w, rot, g.x, consecutive)
	if !mat.Equal(q, qa) || !mat.Equal(k, ka) || !mat.Equal(v, va) {
		t.Errorf("ProjectAt at positions 3..%d differs from Project at startPos 3", 3+seq-1)
	}
	positions := []int{0, 0, 5, 1, 40, 2, 7}[:seq] // pads at 0, then anything: each row its own position
	qa, ka, va = ProjectAt(g.cfg, g.w, rot, g.x, positions)
	for r, p := range positions {
		row := mat.DenseCopyOf(g.x.Slice(r, r+1, 0, g.cfg.Hidden))
		q1, k1, v1 := Project(g.cfg, g.w, rot, row, p)
		if !mat.EqualApprox(q1, qa.Slice(r, r+1, 0, g.cfg.Heads*g.cfg.HeadDim), 1e-14) ||
			!mat.EqualApprox(k1, ka.Slice(r, r+1, 0, g.cfg.KVHeads*g.cfg.HeadDim), 1e-14) ||
			!mat.EqualApprox(v1, va.Slice(r, r+1, 0, g.cfg.KVHeads*g.cfg.HeadDim), 1e-14) {
			t.Errorf("row %d at position %d differs from projecting it alone", r, p)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "2 positions for 7 rows") {
			t.Errorf("ProjectAt with too few positions: panic %v", r)
		}
	}()
	ProjectAt(g.cfg, g.w, rot, g.x, []int{0, 1})
}

// TestAttendMask: with the causal Mask, AttendMask is Attend; a key hidden by the mask gets
// probability exactly 0, so changing its value changes nothing, not even in the last bit.
func TestAttendMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := Config{Hidden: 8, Heads: 4, KVHeads: 2, HeadDim: 4, Eps: 1e-6, Theta: 1e4}
	q, k, v := randDense(rng, 3, 16, 3), randDense(rng, 5, 8, 3), randDense(rng, 5, 8, 1)
	want, wantP := Attend(c, q, k, v, 2)
	got, gotP := AttendMask(c, q, k, v, Mask(3, 5, 2))
	if !mat.Equal(got, want) {
		t.Errorf("AttendMask with the causal mask differs from Attend")
	}
	for h := range wantP {
		if !mat.Equal(gotP[h], wantP[h]) {
			t.Errorf("head %d: probabilities differ from Attend's", h)
		}
	}
	// Hide key 1 from every query (as chapter 10 hides a padding key), then scramble it.
	mask := Mask(3, 5, 2)
	for r := 0; r < 3; r++ {
		mask.Set(r, 1, math.Inf(-1))
	}
	ctx, probs := AttendMask(c, q, k, v, mask)
	for h, p := range probs {
		for r := 0; r < 3; r++ {
			if p.At(r, 1) != 0 {
				t.Errorf("head %d query %d gives weight %g to the hidden key", h, r, p.At(r, 1))
			}
		}
	}
	k2, v2 := mat.DenseCopyOf(k), mat.DenseCopyOf(v)
	for j := 0; j < 8; j++ {
		k2.Set(1, j, 1e3*rng.NormFloat64())
		v2.Set(1, j, 1e3*rng.NormFloat64())
	}
	if ctx2, _ := AttendMask(c, q, k2, v2, mask); !mat.Equal(ctx2, ctx) {
		t.Errorf("changing a hidden key's k and v changed the output")
	}
}

func TestAttendMaskPanics(t *testing.T) {
	c := Config{Hidden: 8, Heads: 4, KVHeads: 2, HeadDim: 4, Eps: 1e-6, Theta: 1e4}
	q, k := mat.NewDense(2, 16, nil), mat.NewDense(3, 8, nil)
	inf := math.Inf(-1)
	for _, tc := range []struct {
		name, want string
		mask       *mat.Dense
	}{
		{"shape", "mask is 3x3 for 2 queries and 3 keys", mat.NewDense(3, 3, nil)},
		{"empty row", "mask row 1 hides every key", mat.NewDense(2, 3, []float64{0, inf, inf, inf, inf, inf})},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("%s: panic %v, want %q", tc.name, r, tc.want)
				}
			}()
			AttendMask(c, q, k, k, tc.mask)
		}()
	}
}
