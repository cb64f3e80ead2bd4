package plots

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The patterns chapter 07's ScoreHeads measures, by the names the notebooks give them.
const (
	PatternPrevious  = "previous-token"
	PatternFirst     = "first-token"
	PatternInduction = "induction"
)

// NamedHead is an attention head with the pattern it is named for and its score. Pattern is ""
// for a head named for nothing (Score is then its highest score, of the pattern best names).
type NamedHead struct {
	Layer, Head int
	Pattern     string
	Score       float64
	best        string // the pattern of Score, named or not
	atBar       bool   // named, but its margin over the bar is inside its spread (EvidenceRow.AtBar)
}

// Title is a short caption for the head's attention map: "L2 H1 induction 0.620"; for a named
// head at its bar "L1 H3 (at the bar: previous-token 0.125)"; for a head without a name "L0 H3
// (not named)", or with the score it was picked for (BestHeads), "L0 H3 (not named; best
// first-token 0.310)". Scores have three decimals, as the bars are printed: 0.125 must not read
// as 0.12, under a bar of 0.123.
func (n NamedHead) Title() string {
	if n.Pattern != "" && n.atBar {
		return fmt.Sprintf("L%d H%d (at the bar: %s %.3f)", n.Layer, n.Head, n.Pattern, n.Score)
	}
	if n.Pattern != "" {
		return fmt.Sprintf("L%d H%d %s %.3f", n.Layer, n.Head, n.Pattern, n.Score)
	}
	if n.best == "" {
		return fmt.Sprintf("L%d H%d (not named)", n.Layer, n.Head)
	}
	return fmt.Sprintf("L%d H%d (not named; best %s %.3f)", n.Layer, n.Head, n.best, n.Score)
}

// EvidenceNames titles every head of e (layers x heads, layer-major) from the evidence: Pattern is
// the pattern Evidence.Named names it for (the one with its highest held-out score if several)
// and Score its held-out mean score for it; a head named for nothing is titled "not named" alone
// (its scores of different patterns are not comparable: an induction score on Go is high without
// any copying).
func EvidenceNames(e *forward.Evidence) []NamedHead {
	layers, heads := e.HeldOut.Previous.Dims()
	prev, first, ind := e.Named()
	named := map[[2]int]NamedHead{}
	for _, p := range []struct {
		name  string
		heads []forward.Head
	}{{PatternPrevious, prev}, {PatternFirst, first}, {PatternInduction, ind}} {
		for _, h := range p.heads {
			k := [2]int{h.Layer, h.Head}
			if n, ok := named[k]; !ok || h.Score > n.Score {
				named[k] = NamedHead{Layer: h.Layer, Head: h.Head, Pattern: p.name, Score: h.Score, best: p.name,
					atBar: atBar(e, p.name, h)}
			}
		}
	}
	var out []NamedHead
	for l := range layers {
		for h := range heads {
			if n, ok := named[[2]int{l, h}]; ok {
				out = append(out, n)
				continue
			}
			n := NamedHead{Layer: l, Head: h, Score: math.NaN()}
			out = append(out, n)
		}
	}
	return out
}

// NamedAttentionHeads is AttentionHeads for the heads in picks, each map titled by its name and
// score (NamedHead.Title), cols maps per row.
func NamedAttentionHeads(title string, maps [][]*mat.Dense, tokens []string, picks []NamedHead, cols int) Grid {
	pairs := make([][2]int, len(picks))
	for i, p := range picks {
		pairs[i] = [2]int{p.Layer, p.Head}
	}
	g := AttentionHeads(title, maps, tokens, pairs, cols)
	for i, p := range picks {
		g.Cells[i/cols][i%cols].Title.Text = p.Title()
	}
	return g
}

// HeadEvidence measures every head of m on chapter 07's probes (golden/07_forward/probes.json:
// the held-out Go snippets, random tokens, a random sequence repeated twice) and returns the
// evidence with the probes.
func HeadEvidence(m *forward.Model) (*forward.Evidence, *forward.Probes, error) {
	p, err := forward.LoadProbes()
	if err != nil {
		return nil, nil, err
	}
	e, err := m.MeasureHeads(p.IDs())
	if err != nil {
		return nil, nil, err
	}
	return e, p, nil
}

// EvidenceRow is one head's line of evidence for one pattern.
type EvidenceRow struct {
	Pattern        string
	Head           forward.Head // its held-out mean score
	SD             float64      // the held-out scores' standard deviation over the snippets
	Random, Repeat float64      // its mean on the random tokens and on the repeated random sequences
	Bar            float64      // the pattern's threshold
	Named          bool         // Evidence.Named names it (induction: on held-out Go and on the repeated control)
	// AtBar is true for a named head whose margin over the bar (held-out mean - Bar) is smaller
	// than its spread over the snippets (SD): on a typical snippet it may score under the bar, so
	// the notebooks do not call it by the pattern's name (ClearOfSpread).
	AtBar bool
}

// atBar reports whether head h, named for pattern, clears the pattern's bar by less than its
// held-out spread over the snippets.
func atBar(e *forward.Evidence, pattern string, h forward.Head) bool {
	sd, bar := e.HeldOutSD.Previous, e.PreviousBar
	switch pattern {
	case PatternFirst:
		sd, bar = e.HeldOutSD.First, e.FirstBar
	case PatternInduction:
		sd, bar = e.HeldOutSD.Induction, e.InductionBar
	}
	return h.Score-sd.At(h.Layer, h.Head) < bar
}

// ClearOfSpread returns the heads Evidence.Named names whose held-out mean clears the pattern's
// bar by more than the mean's standard deviation over the snippets (mean - SD >= bar), highest
// score first: the heads a notebook may call by the pattern's name. A named head left out is at
// the bar: EvidenceRow.AtBar.
func ClearOfSpread(e *forward.Evidence) (previous, first, induction []forward.Head) {
	prev, fst, ind := e.Named()
	keep := func(named []forward.Head, sd *mat.Dense, bar float64) []forward.Head {
		var out []forward.Head
		for _, h := range named {
			if h.Score-sd.At(h.Layer, h.Head) >= bar {
				out = append(out, h)
			}
		}
		return out
	}
	return keep(prev, e.HeldOutSD.Previous, e.PreviousBar), keep(fst, e.HeldOutSD.First, e.FirstBar),
		keep(ind, e.HeldOutSD.Induction, e.InductionBar)
}

// EvidenceRows lists, for each pattern, the top heads by held-out mean score with their controls
// and the pattern's bar: every named head, and at least the best one when none is named (heads
// without a score, NaN, are left out).
func EvidenceRows(e *forward.Evidence, top int) []EvidenceRow {
	prev, first, ind := e.Named()
	var out []EvidenceRow
	for _, p := range []struct {
		name  string
		held  *mat.Dense
		sd    *mat.Dense
		ctl   func(l, h int) (float64, float64)
		bar   float64
		named []forward.Head
	}{
		{PatternPrevious, e.HeldOut.Previous, e.HeldOutSD.Previous, func(l, h int) (float64, float64) {
			return e.Random.Previous.At(l, h), e.Repeated.Previous.At(l, h)
		}, e.PreviousBar, prev},
		{PatternFirst, e.HeldOut.First, e.HeldOutSD.First, func(l, h int) (float64, float64) {
			return e.Random.First.At(l, h), e.Repeated.First.At(l, h)
		}, e.FirstBar, first},
		{PatternInduction, e.HeldOut.Induction, e.HeldOutSD.Induction, func(l, h int) (float64, float64) {
			return math.NaN(), e.Repeated.Induction.At(l, h)
		}, e.InductionBar, ind},
	} {
		isNamed := map[[2]int]bool{}
		for _, h := range p.named {
			isNamed[[2]int{h.Layer, h.Head}] = true
		}
		for i, h := range forward.Ranked(p.held) {
			if i >= max(top, len(p.named)) || math.IsNaN(h.Score) { // NaN scores (no repeats) come last
				break
			}
			r, rep := p.ctl(h.Layer, h.Head)
			sd, named := p.sd.At(h.Layer, h.Head), isNamed[[2]int{h.Layer, h.Head}]
			out = append(out, EvidenceRow{Pattern: p.name, Head: h, SD: sd, Random: r, Repeat: rep,
				Bar: p.bar, Named: named, AtBar: named && h.Score-sd < p.bar})
		}
	}
	return out
}

// EvidenceTable is EvidenceRows as a markdown table, n the number of held-out snippets and
// snippets what to call them (ModelChoice.Snippets: "held-out Go" for the tiny model), with a
// caption that states the naming rule. The last column says **yes** for a named head that clears
// its bar by more than its spread, "at the bar" with the margin and the spread for a named head
// that does not (EvidenceRow.AtBar), and no otherwise.
func EvidenceTable(rows []EvidenceRow, n int, snippets string) string {
	num := func(v float64) string {
		if math.IsNaN(v) {
			return "-"
		}
		return fmt.Sprintf("%.3f", v)
	}
	md := fmt.Sprintf("| pattern | head | %s, mean ± sd over %d snippets | random tokens | random sequence repeated twice | bar | named |\n|---|---|---|---|---|---|---|\n", snippets, n)
	for _, r := range rows {
		named := "no"
		switch {
		case r.AtBar:
			named = fmt.Sprintf("at the bar: margin %.3f < sd %.3f", r.Head.Score-r.Bar, r.SD)
		case r.Named:
			named = "**yes**"
		}
		md += fmt.Sprintf("| %s | L%d H%d | %s ± %s | %s | %s | %s | %s |\n", r.Pattern, r.Head.Layer, r.Head.Head,
			num(r.Head.Score), num(r.SD), num(r.Random), num(r.Repeat), num(r.Bar), named)
	}
	md += "\n*Named*: **yes** for a head that clears the bar by more than its spread (sd) over the snippets. A " +
		"previous-token or first-token head clears the bar when its held-out mean reaches it; an induction head " +
		"only when its held-out mean **and** its score on the random sequence repeated twice both reach the induction bar. " +
		"\"at the bar\" when it clears the bar by less than its sd: such a head may fall under the bar on a single snippet, " +
		"so it is not called by the pattern's name.\n"
	return md
}

// EvidencePlot draws, for each pattern, the top heads by held-out mean score: the held-out mean
// with a bar of ± one standard deviation over the snippets, a filled circle when mean - sd clears
// the bar and a hollow one when it does not (the heads "at the bar" among them: named, but within
// their spread of the bar), the same head's control mean (crosses: random tokens for
// previous-token and first-token, the repeated random sequence for induction), and the pattern's
// threshold as a dashed line. snippets names the held-out text in the labels
// (ModelChoice.Snippets).
func EvidencePlot(title string, e *forward.Evidence, top int, snippets string) Grid {
	rows := EvidenceRows(e, top)
	var cells []*plot.Plot
	for i, pattern := range []string{PatternPrevious, PatternFirst, PatternInduction} {
		var held, clearOf, within, ctl plotter.XYs
		var errs plotter.YErrors
		var names []string
		bar := math.NaN()
		for _, r := range rows {
			if r.Pattern != pattern {
				continue
			}
			x := float64(len(names))
			held = append(held, plotter.XY{X: x, Y: r.Head.Score})
			if r.Head.Score-r.SD >= r.Bar {
				clearOf = append(clearOf, plotter.XY{X: x, Y: r.Head.Score})
			} else {
				within = append(within, plotter.XY{X: x, Y: r.Head.Score})
			}
			errs = append(errs, struct{ Low, High float64 }{r.SD, r.SD})
			c := r.Random
			if pattern == PatternInduction {
				c = r.Repeat
			}
			ctl = append(ctl, plotter.XY{X: x, Y: c})
			names = append(names, fmt.Sprintf("L%dH%d", r.Head.Layer, r.Head.Head))
			bar = r.Bar
		}
		control := "control: random tokens"
		if pattern == PatternInduction {
			control = "control: random sequence repeated twice"
		}
		p := New(pattern, "head (best on the "+snippets+" first)", "score")
		p.X.Tick.Marker = IntTicks{Names: names}
		p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
		hs := Must(plotter.NewScatter(clearOf))
		hs.GlyphStyle.Shape, hs.GlyphStyle.Color, hs.GlyphStyle.Radius = draw.CircleGlyph{}, plotutil.Color(0), vg.Points(4)
		ring := Must(plotter.NewScatter(within))
		ring.GlyphStyle = draw.GlyphStyle{Shape: draw.RingGlyph{}, Color: plotutil.Color(0), Radius: vg.Points(5)}
		eb := &plotter.YErrorBars{XYs: held, YErrors: errs, LineStyle: draw.LineStyle{Color: plotutil.Color(0), Width: vg.Points(1.2)}, CapWidth: vg.Points(6)}
		cs := Must(plotter.NewScatter(ctl))
		cs.GlyphStyle.Shape, cs.GlyphStyle.Color, cs.GlyphStyle.Radius = draw.CrossGlyph{}, color.RGBA{R: 20, G: 90, B: 160, A: 255}, vg.Points(5) // dark blue: reads on white and beside the red
		line := Must(plotter.NewLine(plotter.XYs{{X: -0.5, Y: bar}, {X: float64(len(names)) - 0.5, Y: bar}}))
		line.Color, line.Dashes, line.Width = color.Gray{Y: 60}, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.5)
		p.Add(plotter.NewGrid(), line, eb)
		if len(clearOf) > 0 {
			p.Add(hs)
		}
		if len(within) > 0 {
			p.Add(ring)
		}
		p.Add(cs)
		p.Y.Min = 0 // an error bar may reach below 0; a score cannot
		if i == 0 {
			p.Legend.Add(snippets+" (mean ± sd)", hs)
			p.Legend.Add(snippets+", mean - sd under the bar", ring)
			p.Legend.Add("control", cs)
			p.Legend.Add("threshold (from the control)", line)
			p.Legend.Top = true
		}
		if pattern == PatternInduction { // the rule Evidence.Named applies to induction alone
			p.Legend.Add("control: a named head must clear the bar here too", cs)
			p.Legend.Top = true
		}
		p.Title.Text = fmt.Sprintf("%s (%s)", pattern, control)
		max := bar
		for k := range held {
			max = math.Max(max, math.Max(held[k].Y+errs[k].High, ctl[k].Y))
		}
		p.Y.Max = 1.35 * max // room above the points for the legend
		cells = append(cells, p)
	}
	return Grid{Title: title, Cells: [][]*plot.Plot{cells}}
}

// KeyUse says where one head puts its attention on some sequences: for each query i >= 2, where
// its most attended key sits, and which key tokens get the most weight in all.
type KeyUse struct {
	Previous, Self, First, Other float64 // fractions of queries whose top key is i-1, i, 0, elsewhere
	Tokens                       []TokenWeight
}

// TokenWeight is a key token and its share of all the attention the head gave.
type TokenWeight struct {
	Token string
	Share float64
}

// KeysOf measures KeyUse for layer l head h over traces (ForwardTrace of each sequence), with
// labels[k] the printable tokens of trace k (TokenLabels); Tokens keeps the top n.
func KeysOf(traces []*forward.Trace, labels [][]string, l, h, n int) KeyUse {
	var u KeyUse
	weight := map[string]float64{}
	var queries, total float64
	for k, tr := range traces {
		p := tr.Attn[l][h]
		seq, _ := p.Dims()
		for i := 2; i < seq; i++ {
			best := 0
			for j := 0; j <= i; j++ {
				w := p.At(i, j)
				weight[labels[k][j]] += w
				total += w
				if w > p.At(i, best) {
					best = j
				}
			}
			switch best {
			case i - 1:
				u.Previous++
			case i:
				u.Self++
			case 0:
				u.First++
			default:
				u.Other++
			}
			queries++
		}
	}
	u.Previous, u.Self, u.First, u.Other = u.Previous/queries, u.Self/queries, u.First/queries, u.Other/queries
	for t, w := range weight {
		u.Tokens = append(u.Tokens, TokenWeight{t, w / total})
	}
	slices.SortFunc(u.Tokens, func(a, b TokenWeight) int {
		if a.Share != b.Share {
			return cmp.Compare(b.Share, a.Share)
		}
		return strings.Compare(a.Token, b.Token)
	})
	u.Tokens = u.Tokens[:min(n, len(u.Tokens))]
	return u
}

// String reads a KeyUse in words: "top key: the previous token for 48% of queries, itself 20%,
// token 0 5%, another 27%; most weight on `.` 12%, ..."
func (u KeyUse) String() string {
	s := fmt.Sprintf("top key: the previous token for %.0f%% of queries, the query itself %.0f%%, token 0 %.0f%%, another %.0f%%; most weight on",
		100*u.Previous, 100*u.Self, 100*u.First, 100*u.Other)
	for i, t := range u.Tokens {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" `%s` %.0f%%", t.Token, 100*t.Share)
	}
	return s
}

// BestHeads returns, for previous-token, first-token and induction in that order, the head with
// the highest held-out mean score for the pattern, titled by that score: with the pattern's name
// when Evidence.Named names the head for it, as "not named" otherwise.
func BestHeads(e *forward.Evidence) []NamedHead {
	prev, first, ind := e.Named()
	var out []NamedHead
	for _, p := range []struct {
		name  string
		m     *mat.Dense
		named []forward.Head
	}{{PatternPrevious, e.HeldOut.Previous, prev}, {PatternFirst, e.HeldOut.First, first}, {PatternInduction, e.HeldOut.Induction, ind}} {
		h := forward.Ranked(p.m)[0]
		n := NamedHead{Layer: h.Layer, Head: h.Head, Score: h.Score, best: p.name}
		if len(p.named) > 0 && p.named[0].Layer == h.Layer && p.named[0].Head == h.Head {
			n.Pattern, n.atBar = p.name, atBar(e, p.name, h)
		}
		out = append(out, n)
	}
	return out
}

// EvenSpread scores a head that spreads its weight evenly, P[i][k] = 1/(i+1) for every key k <= i,
// with chapter 07's forward.ScoreHeads on each sequence of token ids, and returns the scores' mean
// over the sequences as forward.Summarize takes it (a 1 x 1 HeadScores): the score a head earns
// without any pattern, against which the trained heads' scores are read. On n distinct tokens its
// previous-token and first-token scores are both (H(n) - 1.5)/(n - 2), H the harmonic number; its
// induction score counts only how often the sequence repeats its tokens. A sequence of fewer than
// 3 tokens is an error.
func EvenSpread(seqs [][]int) (*forward.HeadScores, error) {
	if len(seqs) == 0 {
		return nil, fmt.Errorf("plots: EvenSpread: no sequences")
	}
	all := make([]*forward.HeadScores, len(seqs))
	for s, ids := range seqs {
		n := len(ids)
		if n < 3 {
			return nil, fmt.Errorf("plots: EvenSpread: sequence %d has %d tokens, need at least 3", s, n)
		}
		p := mat.NewDense(n, n, nil)
		for i := range n {
			for k := 0; k <= i; k++ {
				p.Set(i, k, 1/float64(i+1))
			}
		}
		sc, err := forward.ScoreHeads(&forward.Trace{IDs: ids, Attn: [][]*mat.Dense{{p}}})
		if err != nil {
			return nil, fmt.Errorf("plots: EvenSpread: sequence %d: %w", s, err)
		}
		all[s] = sc
	}
	mean, _ := forward.Summarize(all)
	return mean, nil
}
