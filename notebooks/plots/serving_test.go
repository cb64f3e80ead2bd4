package plots

import (
	"image"
	"image/color"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/qwen3go/qwen3go/qwen3/serve"
	"github.com/qwen3go/qwen3go/qwen3/serve/loadgen"
)

// count returns how many pixels of img are c, exactly.
func count(img image.Image, c color.Color) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if near(img.At(x, y), c, 0) {
				n++
			}
		}
	}
	return n
}

// Timeline's bars are as long as the times they stand for: 1 s waiting and 2 s generating on one
// lane, 0.5 s waiting (a request that got no token) on the other, so the blue bars cover 2 / 1.5
// of what the orange ones cover.
func TestTimeline(t *testing.T) {
	res := loadgen.Result{Clients: 2, Records: []loadgen.Record{
		{Client: 0, Start: 0, TTFT: time.Second, Total: 3 * time.Second},
		{Client: 1, Start: 500 * time.Millisecond, Total: 500 * time.Millisecond},
	}}
	img := decode(t, Must(PNG(Timeline("t", res), 8*vg.Inch, 3*vg.Inch)), 768, 288)
	wait, gen := count(img, WaitingColor), count(img, GeneratingColor)
	if wait == 0 || gen == 0 {
		t.Fatalf("%d waiting and %d generating pixels", wait, gen)
	}
	if r := float64(gen) / float64(wait); math.Abs(r-2/1.5) > 0.1 {
		t.Errorf("generating / waiting pixels = %.2f, want 2 s / 1.5 s = 1.33 within 0.1", r)
	}
}

func TestGaps(t *testing.T) {
	g := Gaps("x", loadgen.Record{Start: time.Second, TTFT: 500 * time.Millisecond, Gaps: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}})
	if len(g.At) != 2 || math.Abs(g.At[0]-1.6) > 1e-9 || math.Abs(g.At[1]-1.8) > 1e-9 || g.Gaps[0] != 100 || g.Gaps[1] != 200 {
		t.Errorf("Gaps: at %v, gaps %v; want at 1.6 and 1.8 s, gaps 100 and 200 ms", g.At, g.Gaps)
	}
	img := decode(t, Must(PNG(GapTrace("t", []GapRun{g, {Name: "y", At: []float64{1, 2}, Gaps: []float64{5, 6}, From: 1, To: 2}}), 6*vg.Inch, 3*vg.Inch)), 576, 288)
	if count(img, SeriesColors[0]) == 0 || count(img, SeriesColors[1]) == 0 {
		t.Error("GapTrace draws not both runs' colours")
	}
}

func TestServingCurves(t *testing.T) {
	runs := []loadgen.Summary{{Clients: 1, TokensPerSecond: 100, TTFT50: time.Millisecond, TTFT99: 2 * time.Millisecond},
		{Clients: 8, TokensPerSecond: 400, TTFT50: 3 * time.Millisecond, TTFT99: 9 * time.Millisecond}}
	ps := ServingCurves([]Series{{Name: "a", Runs: runs}, {Name: "b", Runs: runs}})
	if len(ps) != 3 {
		t.Fatalf("%d panels, want 3", len(ps))
	}
	xmin, xmax, ymax := ps[0].X.Min, ps[0].X.Max, ps[0].Y.Max
	if xmin != 1 || xmax != 8 || ymax != 400*1.3 { // the largest value and 30% headroom for the legend
		t.Errorf("tokens per second panel spans x %v..%v, y up to %v; want 1..8 and 520", xmin, xmax, ymax)
	}
	img := decode(t, Must(Grid{Cells: [][]*plot.Plot{ps}}.PNG(9*vg.Inch, 3*vg.Inch)), 864, 288)
	if count(img, SeriesColors[0]) == 0 || count(img, SeriesColors[1]) == 0 {
		t.Error("the curves draw not both series' colours")
	}
}

// PrefixBars stacks the prefilled tokens on the cached ones: their areas are in the counts' ratio.
func TestPrefixBars(t *testing.T) {
	if _, err := PrefixBars("t", []int{1}, []int{1, 2}); err == nil {
		t.Error("PrefixBars takes counts of different lengths")
	}
	p := Must(PrefixBars("t", []int{0, 300}, []int{100, 100}))
	img := decode(t, Must(PNG(p, 5*vg.Inch, 4*vg.Inch)), 480, 384)
	cached, prefilled := count(img, GeneratingColor), count(img, WaitingColor)
	if r := float64(cached) / float64(prefilled); math.Abs(r-300.0/200) > 0.1 {
		t.Errorf("cached / prefilled pixels = %.2f, want 300 / 200 = 1.5 within 0.1", r)
	}
}

// ServeTiny serves the tiny model until stop.
func TestServeTiny(t *testing.T) {
	s, base, stop := ServeTiny(serve.Config{Slots: 2})
	resp, err := http.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"tiny-qwen3"`) || s.Config().Slots != 2 {
		t.Errorf("GET /v1/models: %s", b)
	}
	stop()
	if _, err := http.Get(base + "/models"); err == nil {
		t.Error("the server still answers after stop")
	}
}
