package plots

import (
	"math"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"
)

func TestNameHeads(t *testing.T) {
	s := &forward.HeadScores{
		Previous:  mat.NewDense(1, 3, []float64{0.9, 0.1, 0.2}),
		First:     mat.NewDense(1, 3, []float64{0.05, 0.6, 0.3}),
		Induction: mat.NewDense(1, 3, []float64{0.0, 0.7, math.NaN()}),
	}
	names := NameHeads(s, 0.5)
	want := []struct {
		pattern string
		score   float64
		title   string
	}{
		{PatternPrevious, 0.9, "L0 H0 previous-token 0.90"},
		{PatternInduction, 0.7, "L0 H1 induction 0.70"},
		{"", 0.3, "L0 H2 (best: first-token 0.30)"}, // the NaN induction score is skipped
	}
	if len(names) != len(want) {
		t.Fatalf("%d names, want %d", len(names), len(want))
	}
	for i, w := range want {
		n := names[i]
		if n.Layer != 0 || n.Head != i || n.Pattern != w.pattern || n.Score != w.score || n.Title() != w.title {
			t.Errorf("head %d: %+v %q, want pattern %q score %g title %q", i, n, n.Title(), w.pattern, w.score, w.title)
		}
	}
	if b, ok := Strongest(names, PatternInduction); !ok || b.Head != 1 {
		t.Errorf("Strongest induction = %+v, %v; want head 1", b, ok)
	}
	if _, ok := Strongest(names, PatternFirst); ok {
		t.Error("Strongest first-token: found one, but no head is named first-token")
	}

	maps := [][]*mat.Dense{{mat.NewDense(3, 3, []float64{1, 0, 0, 1, 0, 0, 1, 0, 0}), mat.NewDense(3, 3, nil), mat.NewDense(3, 3, nil)}}
	g := NamedAttentionHeads("t", maps, []string{"a", "b", "c"}, names[1:], 2)
	if g.Cells[0][0].Title.Text != "L0 H1 induction 0.70" || g.Cells[0][1].Title.Text != "L0 H2 (best: first-token 0.30)" {
		t.Errorf("titles %q, %q", g.Cells[0][0].Title.Text, g.Cells[0][1].Title.Text)
	}
	if _, err := g.PNG(4*vg.Inch, 2*vg.Inch); err != nil {
		t.Fatal(err)
	}
}
