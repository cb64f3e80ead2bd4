package serve

import (
	"strings"
	"testing"
)

// feed runs text through a textOut one byte-token at a time and returns what it released, piece
// by piece, and whether a stop string ended it.
func feed(t *testing.T, text string, stops ...string) ([]string, bool) {
	t.Helper()
	out := newTextOut(byteTokenizer(t), stops)
	var pieces []string
	for i := 0; i < len(text); i++ {
		piece, stopped := out.add(int(text[i]))
		pieces = append(pieces, piece)
		if stopped {
			return pieces, true
		}
	}
	return append(pieces, out.flush()), false
}

func TestTextOutStops(t *testing.T) {
	for _, c := range []struct {
		text    string
		stops   []string
		want    string
		stopped bool
	}{
		{"hello world", nil, "hello world", false},
		{"hello world", []string{"wor"}, "hello ", true},
		{"hello world", []string{"xyz"}, "hello world", false},
		{"hello world", []string{"world", "lo w"}, "hel", true}, // the first to appear wins
		{"a\n\nb", []string{"\n\n"}, "a", true},
		{"a\nb\n", []string{"\n\n"}, "a\nb\n", false}, // a held "\n" is released at the end
		{"abab abc", []string{"abc"}, "abab ", true},  // a false start is released
		{"héllo", []string{"llo"}, "hé", true},        // two-byte é decoded whole
		{"ends with sto", []string{"stop"}, "ends with sto", false},
	} {
		pieces, stopped := feed(t, c.text, c.stops...)
		if got := strings.Join(pieces, ""); got != c.want || stopped != c.stopped {
			t.Errorf("%q with stops %q: released %q (stopped %v), want %q (stopped %v)", c.text, c.stops, got, stopped, c.want, c.stopped)
		}
	}
}

// Text that may begin a stop string waits; the rest goes at once.
func TestTextOutHoldsOnlyAPossibleStop(t *testing.T) {
	pieces, _ := feed(t, "ab\nc", "\n\n")
	want := []string{"a", "b", "", "\nc", ""}
	if strings.Join(pieces, "|") != strings.Join(want, "|") {
		t.Errorf("pieces %q, want %q: only the \"\\n\" that may start \"\\n\\n\" waits", pieces, want)
	}
}
