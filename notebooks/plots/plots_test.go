package plots

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	attention "github.com/qwen3go/qwen3go/chapters/05_attention"
	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

func TestMust(t *testing.T) {
	if got := Must(42, nil); got != 42 {
		t.Errorf("Must(42, nil) = %d", got)
	}
	if a, b := Must2(1, "x", nil); a != 1 || b != "x" {
		t.Errorf("Must2(1, \"x\", nil) = %v, %v", a, b)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "boom") {
			t.Errorf("Must(_, err) recovered %v, want a panic with the error", r)
		}
	}()
	Must(0, errors.New("boom"))
}

// decode checks that b is a PNG of w x h pixels and returns it.
func decode(t *testing.T, b []byte, w, h int) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if got := img.Bounds().Size(); got.X != w || got.Y != h {
		t.Fatalf("PNG is %dx%d pixels, want %dx%d", got.X, got.Y, w, h)
	}
	return img
}

func TestPNG(t *testing.T) {
	p := plot.New()
	p.Title.Text = "a line"
	p.Add(Must(plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})))
	decode(t, Must(PNG(p, 4*vg.Inch, 3*vg.Inch)), 384, 288) // 96 dots per inch
	g := Grid{Title: "two", Cells: [][]*plot.Plot{{p, nil}, {nil, p}}}
	decode(t, Must(g.PNG(6*vg.Inch, 4*vg.Inch)), 576, 384)

	if _, err := (Grid{}).PNG(vg.Inch, vg.Inch); err == nil {
		t.Error("an empty grid rendered without an error")
	}
	if _, err := (Grid{Cells: [][]*plot.Plot{{p, p}, {p}}}).PNG(vg.Inch, vg.Inch); err == nil ||
		!strings.Contains(err.Error(), "row 1 has 1 cells") {
		t.Errorf("a ragged grid: error %v, want one naming row 1", err)
	}
}

// TestLogAxisLabels: a plot whose y axis is logarithmic, with a long label, gets as tall a data
// area as the same plot on a linear axis (gonum alone shrinks it, see hideLogLabels), and its
// labels are intact after rendering.
func TestLogAxisLabels(t *testing.T) {
	height := func(log bool) vg.Length {
		p := New("a title", "a long x label (unit)", "a long label for the y axis (unit)")
		if log {
			p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
			p.X.Tick.Marker, p.Y.Tick.Marker = LogTicks{}, LogTicks{}
		}
		p.Add(Must(plotter.NewLine(plotter.XYs{{X: 1, Y: 1e-6}, {X: 100, Y: 1}})))
		c := draw.New(vgimg.New(6*vg.Inch, 3.5*vg.Inch))
		restore := hideLogLabels(p)
		da := p.DataCanvas(c)
		restore()
		if p.Y.Label.Text != "a long label for the y axis (unit)" || p.X.Label.Text != "a long x label (unit)" {
			t.Errorf("labels not restored: %q, %q", p.X.Label.Text, p.Y.Label.Text)
		}
		if _, err := PNG(p, 6*vg.Inch, 3.5*vg.Inch); err != nil {
			t.Fatal(err)
		}
		return da.Max.Y - da.Min.Y
	}
	if lin, lg := height(false), height(true); math.Abs(float64(lin-lg)) > 3 {
		t.Errorf("data area %v points tall on log axes, %v on linear ones", lg, lin)
	}
}

// near reports whether two colours differ by at most tol in every 8-bit channel.
func near(a, b color.Color, tol int) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	d := func(x, y uint32) bool { return math.Abs(float64(x>>8)-float64(y>>8)) <= float64(tol) }
	return d(ar, br) && d(ag, bg) && d(ab, bb)
}

// TestHeatCells draws a 3 x 4 heat map and reads the colour at the centre of every cell: row 0
// must be on top, each value must get its colour from the colour map, and masked and NaN cells
// must be MaskColor.
func TestHeatCells(t *testing.T) {
	data := mat.NewDense(3, 4, []float64{
		0, 1, 2, 3,
		4, 5, 6, math.NaN(),
		8, 9, 10, 11,
	})
	masked := func(r, c int) bool { return r == 0 && c == 3 }
	cm := Sequential(0, 11)
	p := Heat{Data: data, Masked: masked, Colors: cm}.Plot()
	const dpi = 96
	img := vgimg.NewWith(vgimg.UseWH(4*vg.Inch, 3*vg.Inch), vgimg.UseDPI(dpi))
	dc := draw.New(img)
	p.Draw(dc)
	da := p.DataCanvas(dc)
	trX, trY := p.Transforms(&da)
	pix := img.Image()
	height := pix.Bounds().Dy()
	for r := range 3 {
		for c := range 4 {
			x := int(float64(trX(float64(c))) * dpi / 72)
			y := height - int(float64(trY(float64(r)))*dpi/72)
			got := pix.At(x, y)
			want := Color(cm, data.At(r, c))
			if masked(r, c) {
				want = MaskColor
			}
			if !near(got, want, 2) {
				t.Errorf("cell (%d, %d) = %v at pixel (%d, %d): colour %v, want %v", r, c, data.At(r, c), x, y, got, want)
			}
		}
	}
	// Row 0 is on top: its centre is higher on the canvas than row 2's.
	if !(trY(0) > trY(2)) {
		t.Errorf("row 0 is drawn at y=%v, below row 2 at y=%v", trY(0), trY(2))
	}
	if near(MaskColor, Color(cm, 0), 40) || near(MaskColor, Color(cm, 11), 40) {
		t.Error("MaskColor is close to an end of the sequential palette")
	}
}

// TestHeatText writes labels in a dark and a light cell and counts, inside each cell, the pixels
// of the contrasting ink (white on the dark cell, black on the light one): the labels must be
// there, in the readable colour, and a label too wide for its cell must shrink to stay inside it
// (no ink in the neighbouring cell). Without Text the cells stay plain.
func TestHeatText(t *testing.T) {
	const dpi = 96
	// inked counts, for each of the 3 cells of one row, the pixels near black or near white.
	inked := func(text [][]string) (black, white [3]int) {
		p := Heat{Data: mat.NewDense(1, 3, []float64{0, 1, 0.5}), Colors: Sequential(0, 1), Text: text, TextSize: 14}.Plot()
		img := vgimg.NewWith(vgimg.UseWH(6*vg.Inch, 2*vg.Inch), vgimg.UseDPI(dpi))
		dc := draw.New(img)
		p.Draw(dc)
		da := p.DataCanvas(dc)
		trX, trY := p.Transforms(&da)
		pix := img.Image()
		height := pix.Bounds().Dy()
		px := func(l vg.Length) int { return int(float64(l) * dpi / 72) }
		for c := range 3 {
			// The cell's inside, two pixels in from its edges.
			for x := px(trX(float64(c)-0.5)) + 2; x < px(trX(float64(c)+0.5))-2; x++ {
				for y := height - px(trY(-0.5)) + 2; y < height-px(trY(0.5))-2; y++ {
					switch at := pix.At(x, y); {
					case near(at, color.Black, 40):
						black[c]++
					case near(at, color.White, 40):
						white[c]++
					}
				}
			}
		}
		return black, white
	}
	black, white := inked(nil)
	if black != [3]int{} || white != [3]int{} {
		t.Errorf("no Text: cells have %v near-black and %v near-white pixels, want none", black, white)
	}
	black, white = inked([][]string{{"MM", "MM", ""}})
	if white[0] < 20 || black[1] < 20 {
		t.Errorf("labels: %d white pixels on the dark cell, %d black on the light one; want the label in the contrasting colour", white[0], black[1])
	}
	if black[2] != 0 || white[2] != 0 {
		t.Errorf("an empty label left %d black and %d white pixels", black[2], white[2])
	}
	_, white = inked([][]string{{"a label far wider than its cell"}})
	if white[0] < 20 {
		t.Errorf("a long label: %d white pixels in its cell, want it drawn (shrunk)", white[0])
	}
	if white[1] != 0 {
		t.Errorf("a long label spilled into the next cell: %d of its white pixels there", white[1])
	}
}

// TestCategorical: each kind number gets its colour, a value between kinds or beyond them is an
// error, and a heat map of kinds draws each cell in its kind's colour.
func TestCategorical(t *testing.T) {
	kinds := []color.Color{color.NRGBA{R: 200, A: 255}, color.NRGBA{G: 200, A: 255}, color.NRGBA{B: 200, A: 255}}
	cm := Categorical(kinds...)
	for k, want := range kinds {
		if got := Must(cm.At(float64(k))); !near(got, want, 0) {
			t.Errorf("kind %d: %v, want %v", k, got, want)
		}
	}
	for _, v := range []float64{0.5, -1, 3, math.NaN()} {
		if _, err := cm.At(v); err == nil {
			t.Errorf("At(%g) gave no error", v)
		}
	}
	if cm.Min() != 0 || cm.Max() != 2 || len(cm.Palette(10).Colors()) != 3 {
		t.Errorf("range %g .. %g, %d palette colours; want 0 .. 2 and 3", cm.Min(), cm.Max(), len(cm.Palette(10).Colors()))
	}
	cm.SetAlpha(0.5)
	if _, _, _, a := Must(cm.At(1)).RGBA(); a>>8 != 127 && a>>8 != 128 {
		t.Errorf("alpha 0.5: colour alpha %d of 255", a>>8)
	}
}

// luma is the perceived brightness of c, 0 .. 255.
func luma(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 257
}

func TestSequential(t *testing.T) {
	cm := Sequential(-2, 2)
	prev := -1.0
	for v := -2.0; v <= 2; v += 0.25 {
		l := luma(Color(cm, v))
		if l <= prev {
			t.Errorf("luminance falls from %.1f to %.1f at %g: not a sequential palette", prev, l, v)
		}
		prev = l
	}
	if !near(Color(cm, -5), Color(cm, -2), 0) || !near(Color(cm, 5), Color(cm, 2), 0) {
		t.Error("values beyond the range do not take the end colours")
	}
}

// TestCyclic: the two ends of the range have the same colour, neighbouring values have close
// colours everywhere including across the wrap, and the colours do cover the loop.
func TestCyclic(t *testing.T) {
	cm := Cyclic(0, 2*math.Pi)
	if !near(Must(cm.At(0)), Must(cm.At(2*math.Pi)), 0) {
		t.Errorf("At(0) = %v, At(2π) = %v: the palette does not close", Must(cm.At(0)), Must(cm.At(2*math.Pi)))
	}
	const n = 720
	pal := cm.Palette(n).Colors()
	if !near(pal[0], pal[n-1], 0) {
		t.Errorf("Palette: first %v, last %v", pal[0], pal[n-1])
	}
	lo, hi := 255.0, 0.0
	for i := range n {
		a, b := pal[i], pal[(i+1)%n]
		if !near(a, b, 6) { // 4 segments over 720 steps: at most ~1.4 levels a step for 0xff-wide jumps
			t.Errorf("colours %d and %d jump: %v -> %v", i, (i+1)%n, a, b)
		}
		lo, hi = math.Min(lo, luma(a)), math.Max(hi, luma(a))
	}
	if hi-lo < 150 {
		t.Errorf("luminance spans only %.0f .. %.0f: too little contrast for a heat map", lo, hi)
	}
	if _, err := cm.At(7); err == nil {
		t.Error("At(7) outside 0 .. 2π gave no error")
	}
}

func TestIntTicks(t *testing.T) {
	labels := func(ts []plot.Tick) (vals []float64, names []string) {
		for _, tk := range ts {
			vals = append(vals, tk.Value)
			if tk.Label != "" {
				names = append(names, tk.Label)
			}
		}
		return vals, names
	}
	vals, names := labels(IntTicks{}.Ticks(-0.5, 4.5))
	if !slices.Equal(vals, []float64{0, 1, 2, 3, 4}) || !slices.Equal(names, []string{"0", "1", "2", "3", "4"}) {
		t.Errorf("ticks over -0.5 .. 4.5: %v labelled %v", vals, names)
	}
	_, names = labels(IntTicks{Names: []string{"The", "·cat"}}.Ticks(-0.5, 2.5))
	if !slices.Equal(names, []string{"The", "·cat", "2"}) {
		t.Errorf("named ticks: %v", names)
	}
	vals, names = labels(IntTicks{}.Ticks(0, 100))
	if len(vals) != 101 || !slices.Equal(names, []string{"0", "5", "10", "15", "20", "25", "30", "35", "40", "45", "50", "55", "60", "65", "70", "75", "80", "85", "90", "95", "100"}) {
		t.Errorf("0 .. 100: %d ticks, labels %v; want 101 ticks labelled every 5", len(vals), names)
	}
	vals, names = labels(IntTicks{}.Ticks(0, 40959))
	if len(vals) != len(names) || len(names) > 24 || names[1] != "2000" {
		t.Errorf("0 .. 40959: %d ticks, labels %v; want at most 24, all labelled, every 2000", len(vals), names)
	}
	for _, v := range vals {
		if v != math.Trunc(v) {
			t.Errorf("fractional tick %v", v)
		}
	}
}

func TestTicks(t *testing.T) {
	var got []string
	for _, tk := range (Ticks{}).Ticks(0, 7600) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if !slices.Equal(got, []string{"0", "2500", "5000", "7500"}) {
		t.Errorf("labels over 0 .. 7600: %q", got)
	}
	got = nil
	for _, tk := range (Ticks{}).Ticks(0, 1) {
		if tk.Label != "" {
			got = append(got, tk.Label)
		}
	}
	if !slices.Equal(got, []string{"0", "0.5", "1"}) {
		t.Errorf("labels over 0 .. 1: %q", got)
	}
}

func TestLogTicks(t *testing.T) {
	var labels []string
	for _, tk := range (LogTicks{}).Ticks(1.2e-6, 10.1) {
		if tk.Value < 1.2e-6 || tk.Value > 10.1 {
			t.Errorf("tick %g outside the range 1.2e-6 .. 10.1", tk.Value)
		}
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"1e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10"}) {
		t.Errorf("labels %q", labels)
	}
	labels = nil
	for _, tk := range (LogTicks{}).Ticks(3e-8, 0.05) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if !slices.Equal(labels, []string{"1e-07", "1e-06", "1e-05", "0.0001", "0.001", "0.01"}) {
		t.Errorf("labels over 3e-8 .. 0.05: %q", labels)
	}
}

func TestTokenLabels(t *testing.T) {
	tok := TinyTokenizer()
	ids := tok.Encode("The capital\n你 Ω")
	got := TokenLabels(tok, ids)
	var want []string
	for _, id := range ids {
		s, _ := tok.Decode([]int{id}, false)
		switch s {
		case "The":
			want = append(want, "The")
		case " capital":
			want = append(want, "·capital")
		case "\n":
			want = append(want, "¶")
		case " Ω":
			want = append(want, "·Ω")
		default: // 你, or a piece of it: the font has no CJK glyphs
			want = append(want, "#"+strconv.Itoa(id))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("TokenLabels(%v) = %q, want %q", ids, got, want)
	}
	if !Drawable("Ωmega Я é") || Drawable("你好") || Drawable("🫠") {
		t.Error("Drawable: Greek, Cyrillic and Latin must be drawable, CJK and emoji not")
	}
}

// TestAttentionGrid draws a 2-layer x 3-head grid with token labels.
func TestAttentionGrid(t *testing.T) {
	maps := make([][]*mat.Dense, 2)
	for l := range maps {
		for range 3 {
			p := mat.NewDense(4, 4, nil)
			for r := range 4 {
				p.Set(r, r, 1)
			}
			maps[l] = append(maps[l], p)
		}
	}
	g := AttentionGrid("test", maps, []string{"a", "b", "c", "d"})
	if len(g.Cells) != 2 || len(g.Cells[0]) != 3 || g.Bar == nil || len(g.Swatches) != 1 {
		t.Fatalf("grid of %d rows, %d columns, bar %v, %d swatches; want 2 x 3 with a bar and the mask swatch",
			len(g.Cells), len(g.Cells[0]), g.Bar != nil, len(g.Swatches))
	}
	if g.Cells[1][2].Title.Text != "layer 1, head 2" {
		t.Errorf("cell (1, 2) is titled %q", g.Cells[1][2].Title.Text)
	}
	decode(t, Must(g.PNG(6*vg.Inch, 4*vg.Inch)), 576, 384)
	big := make([][]*mat.Dense, 8) // more than 6 layers: the compact layout
	for l := range big {
		big[l] = maps[0]
	}
	g = AttentionGrid("big", big, []string{"a", "b", "c", "d"})
	if len(g.Cells) != 8 || len(g.RowLabels) != 8 || len(g.ColLabels) != 3 || g.RowLabels[7] != "layer 7" || g.ColLabels[2] != "head 2" {
		t.Fatalf("compact grid: %d rows, row labels %q, column labels %q", len(g.Cells), g.RowLabels, g.ColLabels)
	}
	decode(t, Must(g.PNG(6*vg.Inch, 8*vg.Inch)), 576, 768)
	picked := AttentionHeads("picked", maps, nil, [][2]int{{1, 0}, {0, 2}, {1, 1}}, 2)
	if len(picked.Cells) != 2 || picked.Cells[1][1] != nil || picked.Cells[0][1].Title.Text != "layer 0, head 2" {
		t.Errorf("AttentionHeads: wrong layout")
	}
}

func TestLoadBench(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "bench.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"machine": "m", "date": "2026-01-01", "threads": 2, "source": "s", "read_bandwidth_gbs": 20,
		"peers": {"llama.cpp": "abc"},
		"rows": [{"engine": "qwen3", "weights": "BF16", "test": "decode", "tokens": 64, "depth": 0, "tok_s": 10,
		          "bytes_per_token": 1000000000, "peak_rss_mib": 1200},
		         {"engine": "qwen3", "weights": "BF16", "test": "prefill", "tokens": 128, "depth": 0, "tok_s": 90},
		         {"engine": "qwen3", "weights": "BF16", "test": "decode", "tokens": 64, "depth": 0, "batch": 8, "tok_s": 60,
		          "tok_s_min": 55, "tok_s_max": 61}]}`
	b, err := LoadBench(write(good))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := b.Find("qwen3", "BF16", "decode", 0, 0)
	if !ok || r.TokS != 10 || b.Bound(r) != 20 {
		t.Errorf("Find/Bound: %+v %v, bound %g; want the decode row and 20 tok/s", r, ok, b.Bound(r))
	}
	if r, ok := b.Find("qwen3", "BF16", "prefill", 128, 0); !ok || b.Bound(r) != 0 {
		t.Errorf("prefill row: %+v %v, bound %g (no bytes_per_token: 0)", r, ok, b.Bound(r))
	}
	if _, ok := b.Find("qwen3", "F32", "decode", 0, 0); ok {
		t.Error("found a row that is not there")
	}
	if r, ok := b.FindBatch("qwen3", "BF16", "decode", 8); !ok || r.TokS != 60 || r.TokSMin != 55 || r.TokSMax != 61 {
		t.Errorf("FindBatch(8): %+v %v, want the batch-8 row (60 tok/s, its runs 55-61)", r, ok)
	}
	if _, ok := b.FindBatch("qwen3", "BF16", "decode", 4); ok {
		t.Error("FindBatch(4) found a row that is not there")
	}
	for _, c := range []struct{ edit, want string }{
		{`"read_bandwidth_gbs": 20`, "read_bandwidth_gbs"},
		{`"test": "decode"`, `test "decod"`},
		{`"tok_s": 10`, "tok_s 0"},
		{`"threads": 2`, "unknown field"},
		{`"batch": 8`, "negative"},
		{`"tok_s_min": 55`, "outside its runs' range"},
		{`"tok_s_min": 55, `, "outside its runs' range"},
	} {
		bad := strings.Replace(good, c.edit, map[string]string{
			`"read_bandwidth_gbs": 20`: `"read_bandwidth_gbs": 0`,
			`"test": "decode"`:         `"test": "decod"`,
			`"tok_s": 10`:              `"tok_s": 0`,
			`"threads": 2`:             `"thread": 2`,
			`"batch": 8`:               `"batch": -8`,
			`"tok_s_min": 55`:          `"tok_s_min": 65`,
			`"tok_s_min": 55, `:        ``, // only tok_s_max
		}[c.edit], 1)
		if _, err := LoadBench(write(bad)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("after %s: error %v, want one mentioning %q", c.edit, err, c.want)
		}
	}
}

// TestCommittedBench checks the files the notebooks draw: one sequence at a time (bench.json) and
// batched (bench_batched.json, whose every row names its batch size).
func TestCommittedBench(t *testing.T) {
	for _, name := range []string{"bench.json", "bench_batched.json"} {
		b, err := LoadBench(filepath.Join("..", "data", name))
		if err != nil {
			t.Fatal(err)
		}
		if b.Source == "" || b.Machine == "" || b.Date == "" {
			t.Errorf("%s must say where its numbers come from: machine %q, date %q, source %q", name, b.Machine, b.Date, b.Source)
		}
		for i, r := range b.Rows {
			if batched := name == "bench_batched.json"; batched != (r.Batch > 0) {
				t.Errorf("%s row %d: batch %d (batched rows belong in bench_batched.json, and only there)", name, i, r.Batch)
			}
		}
	}
}

func TestReadGoBench(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	out := "goos: linux\npkg: x\nBenchmarkStep/cached/pos=16-2         \t     100\t    123456 ns/op\n" +
		"BenchmarkStep/recompute/pos=16        \t       3\t 1.5e+09 ns/op\nPASS\n"
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadGoBench(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []GoBench{{"Step/cached/pos=16", 100, 123456}, {"Step/recompute/pos=16", 3, 1.5e9}}
	if !slices.Equal(got, want) {
		t.Errorf("ReadGoBench = %+v, want %+v", got, want)
	}
	if err := os.WriteFile(p, []byte("PASS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGoBench(p); err == nil {
		t.Error("a file without results gave no error")
	}
}

func TestMedians(t *testing.T) {
	got := Medians([]GoBench{{"a", 1, 5}, {"b", 1, 2}, {"a", 1, 1}, {"b", 1, 4}, {"a", 1, 3}})
	if got["a"] != 3 || got["b"] != 3 || len(got) != 2 {
		t.Errorf("Medians = %v, want a: 3 (of 5, 1, 3), b: 3 (of 2, 4)", got)
	}
}

func TestTopIndices(t *testing.T) {
	v := []float64{0.1, 3, -1, 3, 2}
	if got := TopIndices(v, 3); !slices.Equal(got, []int{1, 3, 4}) {
		t.Errorf("TopIndices = %v, want [1 3 4]", got)
	}
	if got := TopIndices(v, 10); len(got) != 5 {
		t.Errorf("TopIndices(v, 10) has %d entries, want all 5", len(got))
	}
}

// TestGoldenAttentionLayer: the layer loads, and chapter 05 run on it reproduces transformers'
// output (reference/golden/05_attention/out.npy) within the course tolerance, so the loader
// wires every weight to its place.
func TestGoldenAttentionLayer(t *testing.T) {
	c, w, x, err := GoldenAttentionLayer()
	if err != nil {
		t.Fatal(err)
	}
	out, _ := attention.Forward(c, w, c.RoPE(64), x, 0)
	want, err := reference.LoadDense("05_attention", "out.npy")
	if err != nil {
		t.Fatal(err)
	}
	if e := reference.RelErr(out.RawMatrix().Data, want.RawMatrix().Data); e > 1e-5 {
		t.Errorf("attention on the loaded layer differs from transformers by %.2g (relative; tolerance 1e-5)", e)
	}
}

// TestPointLabels: names of crowded points (the roofline's decoding points, in points of the
// canvas) are all placed, none covers another or any marker, and each stays next to its own
// point (its box within a name's width and a gap of the point).
func TestPointLabels(t *testing.T) {
	pts := plotter.XYs{{X: 100, Y: 100}, {X: 140, Y: 101}, {X: 160, Y: 115}, {X: 163, Y: 118}, {X: 60, Y: 60}}
	names := []string{"Q8_0", "Q6_K", "Q4_K_M", "Q4_0", "BF16"}
	avoid := plotter.XYs{{X: 100, Y: 88}, {X: 60, Y: 72}}
	l := NewPointLabels(pts, names, avoid, vg.Points(4))
	boxes := l.layout(func(xy plotter.XY) vg.Point { return vg.Point{X: vg.Length(xy.X), Y: vg.Length(xy.Y)} })
	marks := append(append(plotter.XYs{}, pts...), avoid...)
	for i, b := range boxes {
		if b == (vg.Rectangle{}) {
			t.Fatalf("%s: no place found", names[i])
		}
		for j, c := range boxes[:i] {
			if overlaps(b, c) {
				t.Errorf("%s's name %v covers %s's %v", names[i], b, names[j], c)
			}
		}
		for _, m := range marks {
			r := vg.Rectangle{Min: vg.Point{X: vg.Length(m.X) - 4, Y: vg.Length(m.Y) - 4}, Max: vg.Point{X: vg.Length(m.X) + 4, Y: vg.Length(m.Y) + 4}}
			if overlaps(b, r) {
				t.Errorf("%s's name %v covers the marker at %v", names[i], b, m)
			}
		}
		reach := l.Style.Width(names[i]) + l.Style.Height(names[i]) + 8
		cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
		if d := math.Hypot(cx-pts[i].X, cy-pts[i].Y); d > float64(reach) {
			t.Errorf("%s's name is %.0f points from its point (at most %.0f)", names[i], d, float64(reach))
		}
	}
}

// TestLogTicksShortRange: an axis spanning less than two decades gets more labels than its powers
// of ten (a loss from 3 to 12 would otherwise read "10" alone), and one spanning less than a
// factor of 2.5 gets every tick labelled.
func TestLogTicksShortRange(t *testing.T) {
	for _, c := range []struct {
		min, max float64
		want     []string
	}{
		{3, 12, []string{"3", "4", "5", "6", "7", "8", "9", "10"}},
		{0.3, 10, []string{"0.5", "1", "2", "5", "10"}},
		{0.08, 3000, []string{"0.1", "1", "10", "100", "1000"}},
		{16, 2048, []string{"20", "50", "100", "200", "500", "1000", "2000"}},
	} {
		var got []string
		for _, tk := range (LogTicks{}).Ticks(c.min, c.max) {
			if tk.Value < c.min || tk.Value > c.max {
				t.Errorf("%g .. %g: tick %g outside the range", c.min, c.max, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("labels over %g .. %g: %q, want %q", c.min, c.max, got, c.want)
		}
	}
}

// TestReadRange: the probe's spread comes from the source line as scripts/bench.sh writes it, and
// is refused when absent or when it does not contain the median.
func TestReadRange(t *testing.T) {
	for _, c := range []struct {
		source   string
		median   float64
		lo, hi   float64
		expectOK bool
	}{
		{"read bandwidth: a 1 GiB AVX2 read stream with all cores, median of 6 measurements (41.3-78.5 GB/s); peak RSS", 52.46, 41.3, 78.5, true},
		{"no spread here", 52.46, 0, 0, false},
		{"median of 6 measurements (41.3-50.0 GB/s)", 52.46, 0, 0, false}, // the median outside its own range
	} {
		b := Bench{Source: c.source, ReadBandwidthGBs: c.median}
		lo, hi, ok := b.ReadRange()
		if ok != c.expectOK || lo != c.lo || hi != c.hi {
			t.Errorf("%q: ReadRange() = %g, %g, %v; want %g, %g, %v", c.source, lo, hi, ok, c.lo, c.hi, c.expectOK)
		}
	}
}

// TestNiceTicks: about N labels at round steps, a minor tick between two labels, labels written
// with the step's digits.
func TestNiceTicks(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, c := range []struct {
		min, max float64
		n        int
		want     string
	}{
		{0, 420, 8, "0 50 100 150 200 250 300 350 400"},
		{0, 60, 6, "0 10 20 30 40 50 60"},
		{0, 1.3, 6, "0.0 0.2 0.4 0.6 0.8 1.0 1.2"},
		{-3, 3, 0, "-3 -2 -1 0 1 2 3"},
	} {
		ts := NiceTicks{N: c.n}.Ticks(c.min, c.max)
		if got := strings.Join(labels(ts), " "); got != c.want {
			t.Errorf("NiceTicks{%d}.Ticks(%g, %g): labels %q, want %q", c.n, c.min, c.max, got, c.want)
		}
		if len(ts) < 2 || ts[1].Label != "" || ts[1].Value <= ts[0].Value {
			t.Errorf("NiceTicks{%d}.Ticks(%g, %g): no minor tick after the first label: %v", c.n, c.min, c.max, ts)
		}
	}
}
