package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// readAll reads every entry of in with a lineReader whose buffer is 16 bytes (so long lines come
// in several pieces) and whose entries are at most limit bytes (0: maxEntry): each entry's text, or
// "<too long>" for one skipped.
func readAll(t *testing.T, in string, limit int) []string {
	t.Helper()
	l := &lineReader{r: bufio.NewReaderSize(strings.NewReader(in), 16), max: limit}
	var out []string
	for range len(in) + 2 {
		e, err := l.read()
		switch {
		case errors.Is(err, errEntryTooLong):
			out = append(out, "<too long>")
		case err != nil:
			return out
		default:
			out = append(out, e)
		}
	}
	t.Fatalf("%q: more entries than bytes, the reader does not advance", in)
	return nil
}

// FuzzLineReader reads arbitrary text as the chat reads a pipe: lines, and blocks between """
// and """. With a limit on an entry's length, the entries are those read without one, in the same
// order, except that each entry over the limit is one "<too long>": an entry of at most limit-2
// bytes comes through whole, and one of more than limit+1 bytes is skipped whole, with the rest of
// its block (the limit counts a line's line break; a block's lines are checked as they join).
// The reader never loses its place in the text.
func FuzzLineReader(f *testing.F) {
	f.Add("hi\nthere\n", uint8(4))
	f.Add("a\n\"\"\"\nfirst\n"+strings.Repeat("x", 40)+"\nsecond\n\"\"\"\nafter\n", uint8(20))
	f.Add("\"\"\"b\r\nc\"\"\"\r\n\"\"\" open", uint8(3))
	f.Fuzz(func(t *testing.T, in string, limit uint8) {
		max := 4 + int(limit)%60
		whole := readAll(t, in, 0)
		cut := readAll(t, in, max)
		var want []string
		for _, e := range whole {
			switch {
			case len(e) <= max-2:
				want = append(want, e)
			case len(e) > max+1:
				want = append(want, "<too long>")
			default:
				want = append(want, "either")
			}
		}
		ok := len(cut) == len(want)
		for i := 0; ok && i < len(want); i++ {
			ok = cut[i] == want[i] || want[i] == "either" && (cut[i] == whole[i] || cut[i] == "<too long>")
		}
		if !ok {
			t.Fatalf("%q with entries of at most %d bytes reads\n%s\nwithout a limit\n%s", in, max, show(cut), show(whole))
		}
	})
}

func show(entries []string) string {
	var b strings.Builder
	for i, e := range entries {
		fmt.Fprintf(&b, "  %d: %q\n", i, e)
	}
	return b.String()
}
