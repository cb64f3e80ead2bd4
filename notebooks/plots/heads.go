package plots

import (
	"fmt"
	"math"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"gonum.org/v1/gonum/mat"
)

// The patterns chapter 07's ScoreHeads measures, by the names the notebooks give them.
const (
	PatternPrevious  = "previous-token"
	PatternFirst     = "first-token"
	PatternInduction = "induction"
)

// NamedHead is an attention head with the pattern it scores highest on and that score. Pattern is
// "" when no score reaches the threshold NameHeads was given (Score is then the highest one).
type NamedHead struct {
	Layer, Head int
	Pattern     string
	Score       float64
	best        string // the pattern of Score, named or not
}

// Title is a short caption for the head's attention map: "L2 H1 induction 0.62", or for a head
// without a name its best score, "L0 H3 (best: first-token 0.31)".
func (n NamedHead) Title() string {
	if n.Pattern != "" {
		return fmt.Sprintf("L%d H%d %s %.2f", n.Layer, n.Head, n.Pattern, n.Score)
	}
	return fmt.Sprintf("L%d H%d (best: %s %.2f)", n.Layer, n.Head, n.best, n.Score)
}

// NameHeads names every head of s (layers x heads, layer-major) by its highest score among the
// previous-token, first-token and induction scores (NaN induction scores, from a text without
// repeats, are skipped). A head whose highest score is below threshold keeps Pattern "".
func NameHeads(s *forward.HeadScores, threshold float64) []NamedHead {
	layers, heads := s.Previous.Dims()
	var out []NamedHead
	for l := range layers {
		for h := range heads {
			n := NamedHead{Layer: l, Head: h, Score: math.Inf(-1)}
			for _, p := range []struct {
				name string
				m    *mat.Dense
			}{{PatternPrevious, s.Previous}, {PatternFirst, s.First}, {PatternInduction, s.Induction}} {
				if v := p.m.At(l, h); !math.IsNaN(v) && v > n.Score {
					n.Score, n.best = v, p.name
				}
			}
			if n.Score >= threshold {
				n.Pattern = n.best
			}
			out = append(out, n)
		}
	}
	return out
}

// Strongest returns the head of names with the highest score for pattern, and false when no head
// is named for it.
func Strongest(names []NamedHead, pattern string) (NamedHead, bool) {
	var best NamedHead
	found := false
	for _, n := range names {
		if n.Pattern == pattern && (!found || n.Score > best.Score) {
			best, found = n, true
		}
	}
	return best, found
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
