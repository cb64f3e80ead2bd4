package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// IntTicks is a plot.Ticker for an axis whose data sit at the integers 0, 1, 2, ... (the cells
// of a heat map, layers, bars): one tick at each integer in the axis range, labelled Names[i]
// when Names has an entry for i and with the integer itself otherwise. Never a fractional tick.
// When more than Max integers are in range (default 24), only every k-th one is labelled
// (k = 1, 2, 5, 10, 20, 50, ...), with unlabelled minor ticks in between when there are at most
// 200 integers in range.
type IntTicks struct {
	Names []string
	Max   int
}

// Ticks implements plot.Ticker.
func (t IntTicks) Ticks(min, max float64) []plot.Tick {
	lo, hi := int(math.Ceil(min)), int(math.Floor(max))
	if hi < lo {
		return nil
	}
	limit := t.Max
	if limit <= 0 {
		limit = 24
	}
	step := 1
	for n := 1; (hi-lo)/step+1 > limit; n++ {
		step = []int{1, 2, 5}[n%3] * int(math.Pow10(n/3))
	}
	minor := hi-lo < 200
	var ticks []plot.Tick
	for i := lo; i <= hi; i++ {
		if i%step != 0 && !minor {
			continue
		}
		tk := plot.Tick{Value: float64(i)}
		if i%step == 0 {
			tk.Label = strconv.Itoa(i)
			if i >= 0 && i < len(t.Names) {
				tk.Label = t.Names[i]
			}
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// Ticks is gonum's default ticker with the labels written without trailing zeros ("7500", not
// "7500.00"; "2.5", not "2.50"), for counts and other plain numbers.
type Ticks struct{}

// Ticks implements plot.Ticker.
func (Ticks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ts {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ts[i].Label = strings.TrimSuffix(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ts
}

// LogTicks is the ticker for a plot.LogScale axis: gonum's plot.LogTicks (a labelled tick at
// every power of ten, minor ticks between) without the ticks that fall outside the axis range,
// which gonum would otherwise leave room for, squashing the plot, and with the powers of ten
// written exactly ("1e-05", not "9.999999999999999e-05").
type LogTicks struct{}

// Ticks implements plot.Ticker.
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.LogTicks{Prec: -1}).Ticks(min, max) {
		if t.Value >= min*(1-1e-9) && t.Value <= max*(1+1e-9) {
			if t.Label != "" {
				t.Label = strconv.FormatFloat(math.Pow10(int(math.Round(math.Log10(t.Value)))), 'g', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}
