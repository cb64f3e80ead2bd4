package plots

import (
	"math"
	"slices"
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

// NiceTicks labels a linear axis at about N evenly spaced round values (a step of 1, 2 or 5
// times a power of ten, the one whose count of steps is nearest N; N = 0 means 6), with an
// unlabelled minor tick halfway between two labels: denser than gonum's default, which may label
// only 0 and 250 on an axis that ends at 400.
type NiceTicks struct{ N int }

// Ticks implements plot.Ticker.
func (t NiceTicks) Ticks(lo, hi float64) []plot.Tick {
	n := t.N
	if n <= 0 {
		n = 6
	}
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return Ticks{}.Ticks(lo, hi)
	}
	pow := math.Pow(10, math.Floor(math.Log10((hi-lo)/float64(n))))
	step := pow
	for _, m := range []float64{2, 5, 10} {
		if math.Abs((hi-lo)/(m*pow)-float64(n)) < math.Abs((hi-lo)/step-float64(n)) {
			step = m * pow
		}
	}
	decimals := -int(math.Floor(math.Log10(step))) // the step's own digits: "0.4", not "0.4000000000000001"
	if decimals < 0 {
		decimals = 0
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo / step * 2); k/2*step <= hi+step*1e-9; k++ {
		v := k / 2 * step
		if math.Mod(k, 2) == 0 {
			ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// LogTicks is the ticker for a plot.LogScale axis: a tick at every 1, 2, ..., 9 times a power of
// ten inside the axis range (never one outside it, which gonum's plot.LogTicks would leave room
// for, squashing the plot), labelled so that the axis can be read: the powers of ten, and when
// fewer than three of those fall in the range (an axis spanning less than about two decades, such
// as a loss from 3 to 12), also 2 and 5 times them, and when still fewer than three, every tick.
// Labels are written exactly ("1e-05", not "9.999999999999999e-05"; "0.2", "5000").
type LogTicks struct{}

// Ticks implements plot.Ticker.
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	in := func(v float64) bool { return v >= min*(1-1e-9) && v <= max*(1+1e-9) }
	var out []plot.Tick
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		for m := 1; m <= 9; m++ {
			// m x 10^e, parsed from its decimal form so that 3e-05 is the float64 nearest 3e-05
			v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64)
			if in(v) {
				out = append(out, plot.Tick{Value: v})
			}
		}
	}
	labelled := func(mantissas ...int) int {
		n := 0
		for _, t := range out {
			if slices.Contains(mantissas, logMantissa(t.Value)) {
				n++
			}
		}
		return n
	}
	label := []int{1}
	if labelled(label...) < 3 {
		label = []int{1, 2, 5}
	}
	if labelled(label...) < 3 {
		label = []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	}
	for i, t := range out {
		if slices.Contains(label, logMantissa(t.Value)) {
			out[i].Label = strconv.FormatFloat(t.Value, 'g', -1, 64)
		}
	}
	return out
}

// logMantissa is m of a tick value m x 10^e (m in 1..9).
func logMantissa(v float64) int {
	e := math.Floor(math.Log10(v) + 1e-9)
	return int(math.Round(v / math.Pow(10, e)))
}
