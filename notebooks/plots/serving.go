package plots

import (
	"context"
	"fmt"
	"image/color"
	"net"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/qwen3/serve"
	"github.com/qwen3go/qwen3go/qwen3/serve/loadgen"
	"github.com/qwen3go/qwen3go/reference"
)

// Notebook 13's helpers: a server on the tiny model, and the pictures of what its clients saw.

// ServeTiny starts the server of `qwen3 serve` (package qwen3/serve) on the course's tiny model,
// on a free loopback port, and returns it with its API's base URL (http://127.0.0.1:PORT/v1);
// stop shuts it down and closes the model. It panics when the model cannot be loaded or the
// configuration is refused, which fails the cell.
func ServeTiny(cfg serve.Config) (s *serve.Server, base string, stop func()) {
	m := Must(qwen3.LoadGGUFBytes(context.Background(), "tiny-qwen3.gguf", reference.TinyGGUFBytes()))
	if cfg.Model == "" {
		cfg.Model = "tiny-qwen3"
	}
	s, err := serve.New(m, cfg)
	if err != nil {
		m.Close()
		panic(err)
	}
	ln := Must(net.Listen("tcp", "127.0.0.1:0"))
	go s.Serve(ln)
	return s, "http://" + ln.Addr().String() + "/v1", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		m.Close()
	}
}

// The colours of the serving pictures (Okabe and Ito's colour-blind-safe palette): a request
// waiting for its first token, and generating; the series of the curves.
var (
	WaitingColor    = color.RGBA{R: 230, G: 159, B: 0, A: 255} // orange
	GeneratingColor = color.RGBA{R: 0, G: 114, B: 178, A: 255} // blue
	SeriesColors    = []color.Color{GeneratingColor, WaitingColor, color.RGBA{R: 0, G: 158, B: 115, A: 255}, color.RGBA{R: 204, G: 121, B: 167, A: 255}}
)

// TimelineSwatches names Timeline's two colours for a Grid's key.
func TimelineSwatches() []Swatch {
	return []Swatch{{Color: WaitingColor, Label: "waiting"}, {Color: GeneratingColor, Label: "generating"}}
}

// Timeline draws a load generator's requests as bars on their clients' lanes (client 0 at the
// bottom), in seconds since the run began: from the request sent to its first token in
// WaitingColor, from there to its last in GeneratingColor. A gap between two bars of a lane is
// the client reading its last event and sending the next request.
func Timeline(title string, res loadgen.Result) *plot.Plot {
	p := New(title, "time since the run began (s)", "client")
	p.Y.Tick.Marker = IntTicks{}
	width := vg.Points(9)
	for _, r := range res.Records {
		y := float64(r.Client)
		start, first, end := r.Start.Seconds(), (r.Start + r.TTFT).Seconds(), (r.Start + r.Total).Seconds()
		if r.TTFT == 0 { // no token came
			first = end
		}
		for _, seg := range []struct {
			from, to float64
			c        color.Color
		}{{start, first, WaitingColor}, {first, end, GeneratingColor}} {
			if seg.to <= seg.from {
				continue
			}
			l := Must(plotter.NewLine(plotter.XYs{{X: seg.from, Y: y}, {X: seg.to, Y: y}}))
			l.LineStyle = draw.LineStyle{Color: seg.c, Width: width}
			p.Add(l)
		}
	}
	p.Y.Min, p.Y.Max = -0.7, float64(res.Clients)-0.3
	p.X.Min = 0
	return p
}

// Series is one line of ServingCurves: a name and one run's summary per number of clients.
type Series struct {
	Name string
	Runs []loadgen.Summary
}

// ServingCurves draws three panels against the number of concurrent clients: the aggregate
// tokens per second, the time to the first token and the inter-token latency, each latency at
// its median (solid) and 99th percentile (dashed), one colour per series. The clients axis is
// logarithmic, labelled with the numbers of clients measured (1, 2, 4, 8, ...).
func ServingCurves(series []Series) []*plot.Plot {
	tps := New("tokens per second, all clients together", "concurrent clients", "tok/s")
	ttft := New("time to first token", "concurrent clients", "ms")
	itl := New("gap between tokens", "concurrent clients", "ms")
	for _, p := range []*plot.Plot{tps, ttft, itl} {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, LogTicks{}
		p.Legend.Top, p.Legend.Left = true, true
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for i, s := range series {
		c := SeriesColors[i%len(SeriesColors)]
		line := func(p *plot.Plot, label string, dashed bool, y func(loadgen.Summary) float64) {
			xy := make(plotter.XYs, len(s.Runs))
			for k, r := range s.Runs {
				xy[k] = plotter.XY{X: float64(r.Clients), Y: y(r)}
			}
			l, pts := Must2(plotter.NewLinePoints(xy))
			l.Color, pts.Color, l.Width = c, c, vg.Points(1.5)
			if dashed {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(l, pts)
			p.Legend.Add(label, l)
		}
		line(tps, s.Name, false, func(r loadgen.Summary) float64 { return r.TokensPerSecond })
		line(ttft, s.Name+" p50", false, func(r loadgen.Summary) float64 { return ms(r.TTFT50) })
		line(ttft, s.Name+" p99", true, func(r loadgen.Summary) float64 { return ms(r.TTFT99) })
		line(itl, s.Name+" p50", false, func(r loadgen.Summary) float64 { return ms(r.ITL50) })
		line(itl, s.Name+" p99", true, func(r loadgen.Summary) float64 { return ms(r.ITL99) })
	}
	var ticks []plot.Tick // the numbers of clients measured, and only those
	for _, s := range series {
		for _, r := range s.Runs {
			if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == float64(r.Clients) }) {
				ticks = append(ticks, plot.Tick{Value: float64(r.Clients), Label: fmt.Sprint(r.Clients)})
			}
		}
	}
	for _, p := range []*plot.Plot{tps, ttft, itl} {
		p.Y.Min = 0
		p.Y.Max *= 1.3 // headroom: the legend, top left, stays clear of a curve that starts high
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	return []*plot.Plot{tps, ttft, itl}
}

// GapRun is one stream's tokens for GapTrace: when each arrived (seconds since the run began)
// and the gap before it (ms), and the span of something that happened meanwhile (From, To: the
// long prompt's prefill, say; To 0 for none).
type GapRun struct {
	Name     string
	At, Gaps []float64
	From, To float64
}

// Gaps returns a record's tokens as a GapRun: the time each piece of text arrived after the
// first, and the gap before it.
func Gaps(name string, r loadgen.Record) GapRun {
	g := GapRun{Name: name}
	t := r.Start + r.TTFT
	for _, d := range r.Gaps {
		t += d
		g.At = append(g.At, t.Seconds())
		g.Gaps = append(g.Gaps, float64(d.Microseconds())/1000)
	}
	return g
}

// GapTrace draws runs' inter-token gaps against time, a point per token at the time it arrived,
// one colour per run; each run's marked span is a bar of its colour above the points.
func GapTrace(title string, runs []GapRun) *plot.Plot {
	p := New(title, "time since the run began (s)", "gap before the token (ms)")
	p.Legend.Top, p.Legend.Left = true, true // the spans start later, and run to the right edge
	top := 0.0
	for _, r := range runs {
		for _, g := range r.Gaps {
			top = max(top, g)
		}
	}
	for i, r := range runs {
		c := SeriesColors[i%len(SeriesColors)]
		xy := make(plotter.XYs, len(r.At))
		for k := range r.At {
			xy[k] = plotter.XY{X: r.At[k], Y: r.Gaps[k]}
		}
		pts := Must(plotter.NewScatter(xy))
		pts.Color, pts.Radius, pts.Shape = c, vg.Points(2), draw.CircleGlyph{}
		p.Add(pts)
		p.Legend.Add(r.Name, pts)
		if r.To > r.From {
			y := top * (1.08 + 0.06*float64(i))
			band := Must(plotter.NewLine(plotter.XYs{{X: r.From, Y: y}, {X: r.To, Y: y}}))
			band.Color, band.Width = c, vg.Points(5)
			p.Add(band)
		}
	}
	p.Y.Min = 0
	return p
}

// PrefixBars draws, per turn of a conversation, its prompt's tokens as a stacked bar: those a
// slot's cache already held (GeneratingColor, below) and those prefilled (WaitingColor, above).
func PrefixBars(title string, cached, prefilled []int) (*plot.Plot, error) {
	if len(cached) != len(prefilled) || len(cached) == 0 {
		return nil, fmt.Errorf("plots: PrefixBars: %d cached and %d prefilled counts, want as many, at least one", len(cached), len(prefilled))
	}
	p := New(title, "turn", "prompt tokens")
	w := vg.Points(28)
	lower, upper := make(plotter.Values, len(cached)), make(plotter.Values, len(cached))
	names := make([]string, len(cached))
	for i := range cached {
		lower[i], upper[i] = float64(cached[i]), float64(prefilled[i])
		names[i] = fmt.Sprint(i + 1)
	}
	a, err := plotter.NewBarChart(lower, w)
	if err != nil {
		return nil, err
	}
	b, err := plotter.NewBarChart(upper, w)
	if err != nil {
		return nil, err
	}
	a.Color, b.Color = GeneratingColor, WaitingColor
	a.LineStyle.Width, b.LineStyle.Width = 0, 0
	b.StackOn(a)
	p.Add(a, b)
	p.Legend.Add("found in the slot's cache", a)
	p.Legend.Add("prefilled", b)
	p.Legend.Top, p.Legend.Left = true, true
	p.NominalX(names...)
	return p, nil
}
