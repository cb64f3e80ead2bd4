package main

import (
	"fmt"
	"io"
	"time"
)

// meter draws one line of progress on a terminal, redrawn in place: what is done of the total,
// the rate and the time left. It is used only when standard error is a terminal (a redirected
// stderr gets no carriage returns).
type meter struct {
	w     io.Writer
	label string
	unit  string
	scale int64 // units are done/scale
	start time.Time
	drawn time.Time
	shown bool
}

func newMeter(w io.Writer, label, unit string, scale int64) *meter {
	return &meter{w: w, label: label, unit: unit, scale: scale, start: time.Now()}
}

// update redraws the line, at most ten times a second.
func (m *meter) update(done, total int64) {
	now := time.Now()
	if done < total && now.Sub(m.drawn) < 100*time.Millisecond {
		return
	}
	m.drawn, m.shown = now, true
	line := fmt.Sprintf("%s: %d/%d %s (%d%%)", m.label, done/m.scale, total/m.scale, m.unit, 100*done/max(total, 1))
	if elapsed := now.Sub(m.start).Seconds(); elapsed > 0.5 && done > 0 {
		rate := float64(done) / elapsed
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		line += fmt.Sprintf(", %.0f %s/s, %v left", rate/float64(m.scale), m.unit, left.Round(time.Second))
	}
	fmt.Fprintf(m.w, "\r\x1b[K%s", line)
}

// finish erases the line, and prints summary on its own line if it is not empty.
func (m *meter) finish(summary string) {
	if m.shown {
		fmt.Fprint(m.w, "\r\x1b[K")
		m.shown = false
	}
	if summary != "" {
		fmt.Fprintln(m.w, summary)
	}
}

// prefillMeter shows a reply's prefill on a terminal, for prompts of more than two chunks (256
// tokens); the line is erased before the reply starts.
type prefillMeter struct {
	e   *env
	bar *meter
}

// progress is an Options.Progress: nil unless standard error is a terminal.
func (p *prefillMeter) progress() func(done, total int) {
	if !p.e.stderrTTY {
		return nil
	}
	return func(done, total int) {
		if total <= 256 {
			return
		}
		if p.bar == nil {
			p.bar = newMeter(p.e.stderr, "prompt", "tokens", 1)
		}
		p.bar.update(int64(done), int64(total))
		if done == total {
			p.clear()
		}
	}
}

// clear erases the line (a cancelled prefill leaves it) and starts afresh for the next prompt.
func (p *prefillMeter) clear() {
	if p.bar != nil {
		p.bar.finish("")
		p.bar = nil
	}
}
