package batching

import (
	"fmt"
	"math"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// Example_columnPositions measures the mistake the package doc's "Positions" describes: the
// golden batch prefilled with every column at its column index (a prompt's tokens shifted by its
// number of pads, padding still hidden) against the right positions. RoPE sees only differences,
// so a uniform shift per sequence moves the logits only by the float rounding of the angles:
// the largest relative change of the logits that generation reads (each sequence's last column).
func Example_columnPositions() {
	m, err := forward.Load(reference.TinyGGUF())
	if err != nil {
		panic(err)
	}
	var g struct {
		Prompts []struct {
			IDs []int `json:"ids"`
		} `json:"prompts"`
	}
	if err := reference.LoadJSON("10_batching", "batch", &g); err != nil {
		panic(err)
	}
	var prompts [][]int
	for _, p := range g.Prompts {
		prompts = append(prompts, p.IDs)
	}
	batch, err := Pad(prompts, PadToken, Left)
	if err != nil {
		panic(err)
	}
	width := batch.Width()
	prefill := func(column bool) [][]float64 {
		c, err := New(m, width)
		if err != nil {
			panic(err)
		}
		var ids, pos []int
		for b := range batch.IDs {
			c.seqs = append(c.seqs, &sequence{k: make([][]float64, len(m.Layers)), v: make([][]float64, len(m.Layers)),
				real: append([]bool(nil), batch.Real[b]...)})
			ids = append(ids, batch.IDs[b]...)
			for t, p := range Positions(batch.Real)[b] {
				if column {
					p = t
				}
				pos = append(pos, p)
			}
		}
		c.filled = true
		return c.run(ids, pos, width)
	}
	right, shifted := prefill(false), prefill(true)
	worst := 0.0
	for b := range right {
		worst = math.Max(worst, reference.RelErr(shifted[b], right[b]))
	}
	fmt.Printf("positions from the column: the last column's logits move by %.0e relative at most\n", worst)
	// Output:
	// positions from the column: the last column's logits move by 2e-08 relative at most
}
