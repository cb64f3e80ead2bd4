package viz_test

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/qwen3/viz"
	"github.com/qwen3go/qwen3go/reference"
)

// chromium finds a Chromium or Chrome to drive: $QWEN3_CHROMIUM, or one on PATH. Without one the
// browser test skips, unless QWEN3_REQUIRE_CHROMIUM=1 or CI is set (.ci/run installs Debian's
// chromium and sets the first): there it must run.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("QWEN3_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("QWEN3_REQUIRE_CHROMIUM") == "1" || os.Getenv("CI") != "" {
		t.Fatal("no Chromium found (chromium, chromium-browser, google-chrome on PATH, or $QWEN3_CHROMIUM), and CI must run the browser test: apt-get install chromium")
	}
	t.Skip("no Chromium found: apt-get install chromium (or set QWEN3_CHROMIUM) to run the browser test")
	return ""
}

// browser starts a headless Chromium with a fresh profile, with the flags that keep it off the
// network (this machine's closed network refuses many of the connections it would open).
func browser(t *testing.T, width, height int) context.Context {
	t.Helper()
	path := chromium(t)
	// A fresh profile. Chromium's child processes can still write in it for a moment after the
	// browser stops, when t.TempDir's removal would fail the test: remove it with retries, after
	// the browser's cancel (cleanups run last registered first).
	profile, err := os.MkdirTemp("", "qwen3-viz-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 100 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser's profile %s", profile)
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(width, height),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc, chromedp.WithLogf(t.Logf), chromedp.WithBrowserOption(chromedp.WithConsolef(t.Logf)))
	t.Cleanup(cancelTab)
	return tab
}

// engineSteps runs the same reply as the page's through the engine itself and returns its events:
// what the page must show.
func engineSteps(t *testing.T, m *qwen3.Model, prompt string, s sampling.Settings, maxTokens int) []viz.Event {
	t.Helper()
	var events []viz.Event
	var err error
	_, _, gerr := m.Generate(context.Background(), prompt, qwen3.ReplyOptions{
		Sampling: qwen3.SamplingFrom(s), MaxNewTokens: maxTokens,
		OnStep: func(st qwen3.Step) {
			e, eerr := viz.NewEvent(st, m.Tokenizer(), 0)
			if eerr != nil && err == nil {
				err = eerr
			}
			events = append(events, e)
		},
	}, nil)
	if gerr != nil || err != nil {
		t.Fatal(gerr, err)
	}
	return events
}

// shownStep is what the page shows of the selected step, read from its DOM.
type shownStep struct {
	Step       int       `json:"step"`  // #step's data-step
	Chart      int       `json:"chart"` // the chart's data-step
	Kept       int       `json:"kept"`  // the nucleus size the page says
	DrawnID    int       `json:"drawnID"`
	DrawnRows  []int     `json:"drawnRows"` // ids of the rows marked drawn
	DrawnKept  bool      `json:"drawnKept"` // the drawn row is a kept one
	KeptQ      []float64 `json:"keptQ"`     // data-q of every kept row (the "more kept" row included)
	KeptRows   int       `json:"keptRows"`  // kept tokens the rows account for
	Title      string    `json:"title"`
	StarMarked bool      `json:"star"` // the drawn row's rank cell shows the ★
}

const readStep = `(() => {
  const s = document.getElementById("step");
  const rows = [...document.querySelectorAll("#chart .row[data-kept]")];
  const kept = rows.filter((r) => r.dataset.kept === "1");
  const drawn = rows.filter((r) => r.dataset.drawn === "1");
  return {
    step: Number(s.dataset.step), chart: Number(document.getElementById("chart").dataset.step),
    kept: Number(s.dataset.kept), drawnID: Number(s.dataset.drawn),
    drawnRows: drawn.map((r) => Number(r.dataset.id)),
    drawnKept: drawn.length === 1 && drawn[0].dataset.kept === "1",
    keptQ: kept.map((r) => Number(r.dataset.q)),
    keptRows: kept.reduce((n, r) => n + (r.dataset.rest ? Number(r.dataset.rest) : 1), 0),
    title: document.getElementById("step-title").textContent,
    star: drawn.length === 1 && getComputedStyle(drawn[0].querySelector(".rank"), "::before").content.includes("★"),
  };
})()`

// check compares the page's step with the engine's event and checks the page's own arithmetic.
func (s shownStep) check(t *testing.T, want viz.Event) {
	t.Helper()
	if s.Step != want.Step || s.Chart != want.Step {
		t.Fatalf("the page shows step %d (chart %d), want %d", s.Step, s.Chart, want.Step)
	}
	if s.DrawnID != want.ID || !slices.Equal(s.DrawnRows, []int{want.ID}) || !s.DrawnKept || !s.StarMarked {
		t.Fatalf("step %d: the page marks rows %v drawn (kept %v, ★ %v; step says %d), the engine drew %d", want.Step, s.DrawnRows, s.DrawnKept, s.StarMarked, s.DrawnID, want.ID)
	}
	if s.Kept != want.Kept || s.KeptRows != want.Kept {
		t.Fatalf("step %d: the page says a nucleus of %d, its rows hold %d kept tokens; the engine kept %d", want.Step, s.Kept, s.KeptRows, want.Kept)
	}
	// The kept probabilities are the renormalised distribution the token was drawn from: they sum
	// to 1. 1e-6 is the bound; float64 sums of at most a few hundred terms err by ~1e-15.
	sum := 0.0
	for _, q := range s.KeptQ {
		sum += q
	}
	if math.Abs(sum-1) > 1e-6 {
		t.Fatalf("step %d: the kept candidates' probabilities %v sum to %.12f, want 1 within 1e-6", want.Step, s.KeptQ, sum)
	}
}

func waitRun(t *testing.T, tab context.Context, run int) {
	t.Helper()
	js := fmt.Sprintf(`(() => { const s = document.getElementById("status"); return s.dataset.run === "%d" && s.dataset.state === "done"; })()`, run)
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(2*time.Minute), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		status, _ := chromedp.Run(tab, chromedp.Text(chromedp.ID("status")))
		t.Fatalf("waiting for reply %d to end: %v (status: %q)", run, err, status)
	}
}

func show(t *testing.T, tab context.Context) shownStep {
	t.Helper()
	s, err := chromedp.Run(tab, chromedp.Evaluate[shownStep](readStep))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// clickStep clicks a step's bar in the timeline and waits for its chart.
func clickStep(t *testing.T, tab context.Context, step int) {
	t.Helper()
	sel := chromedp.CSS(fmt.Sprintf(`#timeline button[data-step="%d"]`, step))
	if err := chromedp.Do(tab,
		chromedp.Click(sel),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#chart[data-step="%d"] .row[data-drawn="1"] .token`, step))),
	); err != nil {
		t.Fatalf("clicking step %d: %v", step, err)
	}
}

func screenshot(t *testing.T, tab context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("QWEN3_VIZ_SCREENSHOTS")
	if dir == "" {
		dir = t.ArtifactDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// TestBrowser drives the page in headless Chromium against a server started here, on the built-in
// tiny model: it sends a prompt, waits for a step's chart, checks the drawn token is marked and the
// kept candidates' probabilities sum to 1, and that each step shown is the engine's own (the same
// reply run through qwen3.Generate); clicks back to the first step; changes top-p and sees the
// nucleus of that step shrink, as the engine's does; replays a step; and checks a phone's width.
// It saves screenshots (QWEN3_VIZ_SCREENSHOTS, or go test -artifacts).
func TestBrowser(t *testing.T) {
	tab := browser(t, 1280, 1000)
	m, err := qwen3.LoadGGUFBytes(context.Background(), "tiny-qwen3.gguf", reference.TinyGGUFBytes())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// "func (" is a step the tiny model is unsure about: 16 tokens in its nucleus at top-p 0.95.
	const prompt, maxTokens = "func (", 24
	first := sampling.QwenThinking(1)
	srv := httptest.NewServer(viz.Handler(m, viz.Options{Name: "tiny-qwen3.gguf (built in)", Complete: true, Settings: &first, MaxTokens: maxTokens}))
	defer srv.Close()

	for i, a := range []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(srv.URL),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`)),
		chromedp.SendKeys(chromedp.ID("input"), prompt),
		chromedp.Click(chromedp.ID("send-button")),
		// A row is display: contents (no box of its own): wait for its token's cell.
		chromedp.WaitVisible(chromedp.CSS(`#chart .row[data-drawn="1"] .token`)),
	} {
		if err := chromedp.Do(tab, a); err != nil {
			status, _ := chromedp.Run(tab, chromedp.Text(chromedp.ID("status")))
			t.Fatalf("action %d: %v (status %q)", i, err, status)
		}
	}
	waitRun(t, tab, 1)
	want := engineSteps(t, m, prompt, first, maxTokens)
	last := show(t, tab)
	if last.Step != len(want)-1 {
		t.Fatalf("after the reply the page shows step %d; the engine made %d steps", last.Step, len(want))
	}
	last.check(t, want[last.Step])
	if want[0].Kept < 3 {
		t.Fatalf("the engine's first step kept %d tokens: the prompt no longer makes a wide nucleus, pick another", want[0].Kept)
	}

	clickStep(t, tab, 0)
	s0 := show(t, tab)
	s0.check(t, want[0])
	screenshot(t, tab, "viz-step.png")

	// top-p 0.3: the page runs the message again; the first step's logits are the prompt's, so
	// its nucleus must shrink, to what the engine keeps with top-p 0.3.
	if err := chromedp.Do(tab,
		chromedp.SetValue(chromedp.ID("top_p"), ""),
		chromedp.SendKeys(chromedp.ID("top_p"), "0.3"+kb.Tab),
	); err != nil {
		t.Fatal(err)
	}
	waitRun(t, tab, 2)
	narrow := first
	narrow.TopP = 0.3
	want2 := engineSteps(t, m, prompt, narrow, maxTokens)
	clickStep(t, tab, 0)
	n0 := show(t, tab)
	n0.check(t, want2[0])
	if !(n0.Kept < s0.Kept) {
		t.Fatalf("top-p 0.95 kept %d tokens at step 0, top-p 0.3 keeps %d: the nucleus did not shrink", s0.Kept, n0.Kept)
	}
	t.Logf("step 0: nucleus %d at top-p 0.95, %d at top-p 0.3", s0.Kept, n0.Kept)

	// The replay walks the candidates and fills the meter with the mass top-p kept.
	clickStep(t, tab, 0)
	if err := chromedp.Do(tab, chromedp.Click(chromedp.ID("replay"))); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.getElementById("replay-text").textContent.startsWith("Kept ")`,
		chromedp.WithPollingTimeout(time.Minute), chromedp.WithPollingInterval(100*time.Millisecond))); err != nil {
		t.Fatalf("the replay did not end: %v", err)
	}
	fill, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("#meter .fill").style.width`))
	if err != nil {
		t.Fatal(err)
	}
	kept := 0.0
	for _, c := range want2[0].Candidates {
		if c.Cut == "" || c.Cut == viz.CutMinP {
			kept += c.PK
		}
	}
	if got, err := strconv.ParseFloat(fill[:len(fill)-1], 64); err != nil || math.Abs(got-100*min(1, kept)) > 0.01 {
		t.Fatalf("the replay's meter ends at %q, the mass top-p kept is %.4f", fill, kept)
	}

	// A phone: nothing wider than the screen, the chart still there.
	if err := chromedp.Do(tab, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	wide, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth + 1`))
	if err != nil {
		t.Fatal(err)
	}
	if !wide {
		w, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		t.Errorf("on a 390-pixel-wide screen the page is %d pixels wide", w)
	}
	show(t, tab).check(t, want2[0])
	screenshot(t, tab, "viz-phone.png")
}
