package plots

import (
	"fmt"
	"strings"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
)

// Drawable reports whether the plot font (gonum/plot's default, Liberation Serif) has a glyph
// for every rune of s. It covers Latin, Greek and Cyrillic, not Chinese, Japanese, Korean, most
// other scripts or emoji, which would be drawn as empty boxes.
func Drawable(s string) bool {
	face := font.DefaultCache.Lookup(plot.DefaultFont, 10)
	var buf sfnt.Buffer
	for _, r := range s {
		if i, err := face.Face.GlyphIndex(&buf, r); err != nil || i == 0 {
			return false
		}
	}
	return true
}

// Decoder turns token ids into text: chapter 02's *tokenizer.Tokenizer, which the qwen3 package
// also uses.
type Decoder interface {
	Decode(ids []int, skipSpecial bool) (string, error)
}

// TokenLabels returns one axis label per token: its text, with spaces shown as "·", newlines as
// "¶" and tabs as "→" so that they are visible. A token the plot font cannot draw, or that is
// not a whole character (a piece of a multi-byte character), is shown by its id, as "#104".
func TokenLabels(d Decoder, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		s, err := d.Decode([]int{id}, false)
		s = strings.NewReplacer(" ", "·", "\n", "¶", "\t", "→").Replace(s)
		if err != nil || s == "" || strings.ContainsRune(s, '\uFFFD') || !Drawable(s) {
			s = fmt.Sprintf("#%d", id)
		}
		out[i] = s
	}
	return out
}
