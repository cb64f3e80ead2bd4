package plots

import (
	"math"
	"strings"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot/vg"
)

// evidence is one layer of three heads: head 0 a previous-token head (named), head 1 an induction
// head (named: it copies on the repeated control too), head 2 nothing (its best held-out score is
// first-token 0.3, under the bar).
func evidence() *forward.Evidence {
	d := func(v ...float64) *mat.Dense { return mat.NewDense(1, len(v), v) }
	return &forward.Evidence{
		HeldOut:     &forward.HeadScores{Previous: d(0.9, 0.1, 0.2), First: d(0.05, 0.2, 0.3), Induction: d(0.0, 0.7, math.NaN())},
		HeldOutSD:   &forward.HeadScores{Previous: d(0.05, 0.02, 0.02), First: d(0.01, 0.01, 0.1), Induction: d(0, 0.1, math.NaN())},
		Random:      &forward.HeadScores{Previous: d(0.8, 0.05, 0.05), First: d(0.05, 0.05, 0.2), Induction: d(math.NaN(), math.NaN(), math.NaN())},
		Repeated:    &forward.HeadScores{Previous: d(0.8, 0.05, 0.05), First: d(0.05, 0.05, 0.2), Induction: d(0.01, 0.6, 0.02)},
		PreviousBar: 0.5, FirstBar: 0.4, InductionBar: 0.1,
	}
}

func TestEvidenceNames(t *testing.T) {
	names := EvidenceNames(evidence())
	want := []struct {
		pattern string
		score   float64
		title   string
	}{
		{PatternPrevious, 0.9, "L0 H0 previous-token 0.900"},
		{PatternInduction, 0.7, "L0 H1 induction 0.700"},
		{"", math.NaN(), "L0 H2 (not named)"},
	}
	if len(names) != len(want) {
		t.Fatalf("%d names, want %d", len(names), len(want))
	}
	for i, w := range want {
		n := names[i]
		same := n.Score == w.score || math.IsNaN(n.Score) && math.IsNaN(w.score)
		if n.Layer != 0 || n.Head != i || n.Pattern != w.pattern || !same || n.Title() != w.title {
			t.Errorf("head %d: %+v %q, want pattern %q score %g title %q", i, n, n.Title(), w.pattern, w.score, w.title)
		}
	}
	maps := [][]*mat.Dense{{mat.NewDense(3, 3, []float64{1, 0, 0, 1, 0, 0, 1, 0, 0}), mat.NewDense(3, 3, nil), mat.NewDense(3, 3, nil)}}
	g := NamedAttentionHeads("t", maps, []string{"a", "b", "c"}, names[1:], 2)
	if g.Cells[0][0].Title.Text != "L0 H1 induction 0.700" || g.Cells[0][1].Title.Text != "L0 H2 (not named)" {
		t.Errorf("titles %q, %q", g.Cells[0][0].Title.Text, g.Cells[0][1].Title.Text)
	}
	if _, err := g.PNG(8*vg.Inch, 5*vg.Inch); err != nil {
		t.Fatal(err)
	}
}

// TestEvidenceRows: the table lists the top heads of each pattern with their controls, named
// where Evidence.Named names them, and the picture draws.
func TestEvidenceRows(t *testing.T) {
	e := evidence()
	rows := EvidenceRows(e, 1)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want the best head of each pattern: %+v", len(rows), rows)
	}
	if r := rows[0]; r.Pattern != PatternPrevious || r.Head.Head != 0 || !r.Named || r.Random != 0.8 || r.Bar != 0.5 {
		t.Errorf("previous-token row %+v, want head 0, named, random control 0.8, bar 0.5", r)
	}
	if r := rows[1]; r.Pattern != PatternFirst || r.Head.Head != 2 || r.Named {
		t.Errorf("first-token row %+v, want head 2, not named (0.3 < 0.4)", r)
	}
	if r := rows[2]; r.Pattern != PatternInduction || r.Head.Head != 1 || !r.Named || r.Repeat != 0.6 || !math.IsNaN(r.Random) {
		t.Errorf("induction row %+v, want head 1, named, repeated control 0.6, no random control", r)
	}
	md := EvidenceTable(rows, 6, "held-out Go")
	for _, want := range []string{"| held-out Go, mean ± sd over 6 snippets |", "| previous-token | L0 H0 | 0.900 ± 0.050 | 0.800 | 0.800 | 0.500 | **yes** |", "| induction | L0 H1 | 0.700 ± 0.100 | - | 0.600 | 0.100 | **yes** |"} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	best := BestHeads(e)
	if len(best) != 3 || best[0].Title() != "L0 H0 previous-token 0.900" || best[1].Title() != "L0 H2 (not named; best first-token 0.300)" ||
		best[2].Title() != "L0 H1 induction 0.700" {
		t.Errorf("BestHeads: %q, %q, %q", best[0].Title(), best[1].Title(), best[2].Title())
	}
	if _, err := EvidencePlot("t", e, 3, "held-out Go").PNG(9*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "**and** its score on the random sequence repeated twice") {
		t.Errorf("the table's caption does not say that induction needs the repeated control too:\n%s", md)
	}
}

// TestClearOfSpread: a named head whose margin over the bar is smaller than its spread over the
// snippets is at the bar: in the table with its margin and spread, and not among ClearOfSpread.
func TestClearOfSpread(t *testing.T) {
	e := evidence()
	if prev, _, ind := ClearOfSpread(e); len(prev) != 1 || len(ind) != 1 {
		t.Fatalf("ClearOfSpread: %v, %v, want head 0 and head 1 (margins 0.4 and 0.6 over spreads 0.05 and 0.1)", prev, ind)
	}
	e.HeldOutSD.Previous.Set(0, 0, 0.45) // margin 0.9 - 0.5 = 0.4 < 0.45
	if prev, _, _ := ClearOfSpread(e); len(prev) != 0 {
		t.Errorf("ClearOfSpread keeps %v, whose margin 0.4 is under its spread 0.45", prev)
	}
	rows := EvidenceRows(e, 1)
	if r := rows[0]; !r.Named || !r.AtBar {
		t.Errorf("row %+v, want named and at the bar", r)
	}
	if got := EvidenceNames(e)[0].Title(); got != "L0 H0 (at the bar: previous-token 0.900)" {
		t.Errorf("EvidenceNames titles the head at the bar %q", got)
	}
	if got := BestHeads(e)[0].Title(); got != "L0 H0 (at the bar: previous-token 0.900)" {
		t.Errorf("BestHeads titles the head at the bar %q", got)
	}
	if r := rows[2]; r.AtBar {
		t.Errorf("induction row %+v is not at the bar (margin 0.6, sd 0.1)", r)
	}
	if md := EvidenceTable(rows, 6, "held-out Go"); !strings.Contains(md, "| 0.500 | at the bar: margin 0.400 < sd 0.450 |") {
		t.Errorf("table does not show the head at the bar:\n%s", md)
	}
	if _, err := EvidencePlot("t", e, 3, "Go snippets").PNG(9*vg.Inch, 3*vg.Inch); err != nil { // a hollow dot
		t.Fatal(err)
	}
}

// TestKeysOf: a head that always attends to the previous token (query 0 and 1 aside) has its top
// key there for every scored query, and the key tokens' weights are shares of the whole.
func TestKeysOf(t *testing.T) {
	p := mat.NewDense(4, 4, []float64{1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0})
	tr := &forward.Trace{Attn: [][]*mat.Dense{{p}}}
	u := KeysOf([]*forward.Trace{tr}, [][]string{{"a", "b", "c", "d"}}, 0, 0, 2)
	if u.Previous != 1 || u.Self != 0 || u.First != 0 || u.Other != 0 {
		t.Errorf("KeyUse %+v, want the previous token for every query", u)
	}
	if len(u.Tokens) != 2 || u.Tokens[0] != (TokenWeight{"b", 0.5}) || u.Tokens[1] != (TokenWeight{"c", 0.5}) {
		t.Errorf("tokens %+v, want b and c with half the weight each (queries 2 and 3)", u.Tokens)
	}
	if s := u.String(); !strings.Contains(s, "previous token for 100% of queries") || !strings.Contains(s, "`b` 50%") {
		t.Errorf("String() = %q", s)
	}
}

// TestSqrtScale: colours follow the square root, and the bar's ticks read probabilities.
func TestSqrtScale(t *testing.T) {
	m := SqrtScale(mat.NewDense(1, 3, []float64{0.25, 0.01, -1e-9}))
	if m.At(0, 0) != 0.5 || math.Abs(m.At(0, 1)-0.1) > 1e-15 || m.At(0, 2) != 0 {
		t.Errorf("SqrtScale = %v", mat.Formatted(m))
	}
	ticks := sqrtTicks{}.Ticks(0, 1)
	if len(ticks) != 8 || ticks[4].Label != "0.25" || ticks[4].Value != 0.5 {
		t.Errorf("ticks %+v, want 0.25 at 0.5 among 8", ticks)
	}
}

// TestEvenSpread: the scores of a head that spreads evenly, worked by hand. On 5 6 7 5 6, queries
// 2..4 give the previous and the first token 1/3, 1/4 and 1/5 (mean 47/180); queries 3 and 4 have
// an earlier copy, followed by positions 1 and 2, which get 1/4 and 1/5 (mean 9/40). On 1 2 3 4
// the previous and first scores are (1/3 + 1/4)/2 = 7/24 and no query repeats (NaN); the mean
// over both sequences leaves the NaN out.
func TestEvenSpread(t *testing.T) {
	s, err := EvenSpread([][]int{{5, 6, 7, 5, 6}, {1, 2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-15 }
	prev, first, ind := s.Previous.At(0, 0), s.First.At(0, 0), s.Induction.At(0, 0)
	if want := (47.0/180 + 7.0/24) / 2; !near(prev, want) || !near(first, want) {
		t.Errorf("previous %v, first %v, want both %v", prev, first, want)
	}
	if !near(ind, 9.0/40) || s.InductionQueries != 2 {
		t.Errorf("induction %v over %d queries, want 9/40 over 2", ind, s.InductionQueries)
	}
	for _, bad := range [][][]int{nil, {{1, 2}}} {
		if _, err := EvenSpread(bad); err == nil {
			t.Errorf("EvenSpread(%v): no error", bad)
		}
	}
}
