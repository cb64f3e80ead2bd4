package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
)

// MaskColor fills the cells of a heat map that are masked (not computed, such as a query's future
// keys under the causal mask). It is a light neutral grey that neither palette contains, so a
// masked cell never looks like a small value.
var MaskColor = color.Gray{Y: 0xd8}

// viridis are five control colours of matplotlib's viridis (at 0, 1/4, 1/2, 3/4 and 1): dark
// purple through blue and green to yellow, with luminance rising all the way.
var viridis = []color.Color{
	color.NRGBA{R: 0x44, G: 0x01, B: 0x54, A: 0xff},
	color.NRGBA{R: 0x3b, G: 0x52, B: 0x8b, A: 0xff},
	color.NRGBA{R: 0x21, G: 0x91, B: 0x8c, A: 0xff},
	color.NRGBA{R: 0x5e, G: 0xc9, B: 0x62, A: 0xff},
	color.NRGBA{R: 0xfd, G: 0xe7, B: 0x25, A: 0xff},
}

// Sequential returns a new colour map for magnitudes over min .. max: dark purple for min, yellow
// for max, luminance growing linearly in between (moreland's luminance interpolation of viridis).
func Sequential(min, max float64) palette.ColorMap {
	cm := Must(moreland.NewLuminance(viridis))
	cm.SetMax(max)
	cm.SetMin(min)
	return cm
}

// cyclicControls go once around a loop: light grey, blue, dark purple, red and back to light grey,
// so that the two ends of the range meet (after matplotlib's "twilight").
var cyclicControls = []color.NRGBA{
	{R: 0xe2, G: 0xd9, B: 0xe2, A: 0xff},
	{R: 0x5e, G: 0x7f, B: 0xc0, A: 0xff},
	{R: 0x2f, G: 0x14, B: 0x36, A: 0xff},
	{R: 0xb5, G: 0x52, B: 0x3d, A: 0xff},
}

// Cyclic returns a new colour map for periodic quantities such as angles: min and max get the same
// colour and the colours change smoothly across the wrap, so 0.01 and 2π-0.01 look alike, as
// they should. It interpolates linearly in RGB between four control colours spaced evenly
// around the loop. Use it with min 0 and max 2π for angles mod 2π.
func Cyclic(min, max float64) palette.ColorMap {
	return &cyclic{min: min, max: max, alpha: 1}
}

type cyclic struct{ min, max, alpha float64 }

func (c *cyclic) Max() float64       { return c.max }
func (c *cyclic) Min() float64       { return c.min }
func (c *cyclic) SetMax(v float64)   { c.max = v }
func (c *cyclic) SetMin(v float64)   { c.min = v }
func (c *cyclic) Alpha() float64     { return c.alpha }
func (c *cyclic) SetAlpha(a float64) { c.alpha = a }

// At returns the colour of v, which must lie in min .. max.
func (c *cyclic) At(v float64) (color.Color, error) {
	if !(v >= c.min && v <= c.max) || c.max <= c.min {
		return nil, fmt.Errorf("plots: %g outside the cyclic palette's range %g .. %g", v, c.min, c.max)
	}
	t := (v - c.min) / (c.max - c.min) * float64(len(cyclicControls))
	i := int(math.Floor(t))
	f := t - float64(i)
	a, b := cyclicControls[i%len(cyclicControls)], cyclicControls[(i+1)%len(cyclicControls)]
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-f) + float64(y)*f)) }
	return color.NRGBA{R: mix(a.R, b.R), G: mix(a.G, b.G), B: mix(a.B, b.B), A: uint8(math.Round(255 * c.alpha))}, nil
}

// Palette returns n colours evenly spaced over min .. max (the first and last are the same).
func (c *cyclic) Palette(n int) palette.Palette {
	cols := make([]color.Color, n)
	for i := range cols {
		v := c.min
		if n > 1 {
			v = min(c.min+(c.max-c.min)*float64(i)/float64(n-1), c.max)
		}
		cols[i] = Must(c.At(v))
	}
	return colors(cols)
}

type colors []color.Color

func (c colors) Colors() []color.Color { return c }

// Categorical returns a colour map for kinds, not magnitudes: the whole number k gets colors[k]
// (0 .. len(colors)-1). Draw a Heat whose Data holds kind numbers with it, and name the kinds with
// Grid.Swatches: a colour bar says nothing about kinds. At reports an error for a value that is not
// (within 0.01) a kind number.
func Categorical(colors ...color.Color) palette.ColorMap {
	if len(colors) == 0 {
		panic("plots: Categorical needs at least one colour")
	}
	return &categorical{colors: colors, alpha: 1}
}

type categorical struct {
	colors []color.Color
	alpha  float64
}

func (c *categorical) Max() float64       { return float64(len(c.colors) - 1) }
func (c *categorical) Min() float64       { return 0 }
func (c *categorical) SetMax(float64)     {} // the range is the kinds'
func (c *categorical) SetMin(float64)     {}
func (c *categorical) Alpha() float64     { return c.alpha }
func (c *categorical) SetAlpha(a float64) { c.alpha = a }

// At returns the colour of kind v.
func (c *categorical) At(v float64) (color.Color, error) {
	k := math.Round(v)
	if !(math.Abs(v-k) <= 0.01) || k < 0 || k >= float64(len(c.colors)) {
		return nil, fmt.Errorf("plots: %g is not a kind 0 .. %d of the categorical palette", v, len(c.colors)-1)
	}
	if c.alpha == 1 {
		return c.colors[int(k)], nil
	}
	n := color.NRGBAModel.Convert(c.colors[int(k)]).(color.NRGBA)
	n.A = uint8(math.Round(float64(n.A) * c.alpha))
	return n, nil
}

// Palette returns the kinds' colours (n is ignored: there are as many colours as kinds).
func (c *categorical) Palette(int) palette.Palette { return colors(c.colors) }
