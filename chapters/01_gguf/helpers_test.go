package gguf

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// assertErr fails unless err is non-nil and its message contains every one of wants. It is for
// errors that are not about a file's format (a missing key, an unsupported type); those are
// checked with wantFormatErr.
func assertErr(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q does not contain %q", err, w)
		}
	}
}

// anyOffset tells wantFormatErr not to check the offset.
const anyOffset = -2

// wantFormatErr fails unless err holds a *FormatError (found with errors.As) for field at byte
// offset whose Msg contains every one of msgs, and returns it.
func wantFormatErr(t *testing.T, err error, field string, offset int64, msgs ...string) *FormatError {
	t.Helper()
	where := fmt.Sprintf("%s at byte %d", field, offset)
	if offset == anyOffset {
		where = field
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FormatError; want one for %s", err, err, where)
	}
	if fe.Field != field || (offset != anyOffset && fe.Offset != offset) {
		t.Fatalf("FormatError for %s at byte %d, want %s (%v)", fe.Field, fe.Offset, where, err)
	}
	for _, m := range msgs {
		if !strings.Contains(fe.Msg, m) {
			t.Fatalf("FormatError message %q does not contain %q", fe.Msg, m)
		}
	}
	return fe
}

// parsesOrStop stops the test with one message when b, a correct file, does not parse: then every
// broken-file case of the test would fail with that same error (a reader that reads the header
// wrong rejects everything), and printing it once per case would bury it.
func parsesOrStop(t *testing.T, what string, b []byte) {
	t.Helper()
	if _, err := Parse(b); err != nil {
		t.Fatalf("%s, a correct file, does not parse: %v\n(every broken file of this test would fail with this same error: fix the reader first)", what, err)
	}
}

// capped reports at most limit failures of a loop in full and then how many more there were, so
// that one bug met at every step prints a few lines, not one per step.
type capped struct {
	t     *testing.T
	n     int
	limit int
}

func (c *capped) Errorf(format string, args ...any) {
	c.t.Helper()
	if c.n++; c.n <= c.limit {
		c.t.Errorf(format, args...)
	}
}

// done prints the count of the failures not shown.
func (c *capped) done() {
	c.t.Helper()
	if c.n > c.limit {
		c.t.Errorf("... and %d more like these (%d in all)", c.n-c.limit, c.n)
	}
}
