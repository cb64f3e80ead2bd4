package viz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	"github.com/qwen3go/qwen3go/qwen3"
)

// Trace writes an Event as one line of JSON for every decode step it is given: set a reply's
// ReplyOptions.OnStep to its Step method. It is what `qwen3 run -trace FILE` writes, and
// ReadTrace reads it back. After the first error (an event that cannot be made, or a failed
// write) it writes nothing more; Err returns that error.
type Trace struct {
	w   io.Writer
	tok *tokenizer.Tokenizer
	top int
	n   int
	err error
}

// NewTrace returns a Trace writing to w, with the tokens' text from tok and top candidates per
// step (DefaultTop when top <= 0). Buffer w if it is a file: a line is one write.
func NewTrace(w io.Writer, tok *tokenizer.Tokenizer, top int) *Trace {
	return &Trace{w: w, tok: tok, top: top}
}

// Step writes s's Event.
func (t *Trace) Step(s qwen3.Step) {
	if t.err != nil {
		return
	}
	e, err := NewEvent(s, t.tok, t.top)
	if err != nil {
		t.err = err
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		t.err = fmt.Errorf("viz: step %d: %w", s.Index, err)
		return
	}
	if _, err := t.w.Write(append(line, '\n')); err != nil {
		t.err = fmt.Errorf("viz: writing the trace of step %d: %w", s.Index, err)
		return
	}
	t.n++
}

// Events is how many events were written.
func (t *Trace) Events() int { return t.n }

// Err is the first error of Step, if any.
func (t *Trace) Err() error { return t.err }

// maxLine bounds a trace line ReadTrace accepts: an event of a few hundred candidates is tens of
// kilobytes.
const maxLine = 4 << 20

// ReadTrace reads the events of a trace, one JSON object a line (empty lines are skipped). An
// error names the line.
func ReadTrace(r io.Reader) ([]Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var events []Event
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Event
		d := json.NewDecoder(bytes.NewReader(line))
		d.DisallowUnknownFields()
		if err := d.Decode(&e); err != nil {
			return events, fmt.Errorf("viz: trace line %d: %w", n, err)
		}
		if d.More() {
			return events, fmt.Errorf("viz: trace line %d: more than one JSON value", n)
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return events, fmt.Errorf("viz: reading the trace after %d events: %w", len(events), err)
	}
	return events, nil
}
