package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reeflective/readline"
)

// The chat reads one entry at a time: a line, or several lines between """ and """. On a
// terminal it reads through a readline library (line editing, history kept across sessions,
// pasted text kept whole); otherwise it reads plain lines, with no prompt and no editing.

var (
	// errPromptCancelled is returned by read when Ctrl-C clears the line being typed.
	errPromptCancelled = errors.New("input cancelled")
	// errEntryTooLong is returned by read for an entry over maxEntry, which it skips.
	errEntryTooLong = fmt.Errorf("an entry of input is over %d MB: skipped", maxEntry>>20)
)

// maxEntry bounds one entry read from a pipe: far more text than any context holds, but not an
// unbounded allocation.
const maxEntry = 16 << 20

type entryReader interface {
	// read returns the next entry, without its final newline; io.EOF at the end of the input.
	read() (string, error)
}

// quotes is the marker of a multi-line entry.
const quotes = `"""`

// open reports whether entry opens a """ block that it does not close.
func open(entry string) bool { return strings.Count(entry, quotes)%2 == 1 }

// unquote returns the text of an entry: the lines between """ and """, or the entry itself.
func unquote(entry string) string {
	t := strings.TrimSpace(entry)
	if strings.HasPrefix(t, quotes) {
		t = strings.TrimPrefix(t, quotes)
		t = strings.TrimSuffix(t, quotes)
	}
	return strings.TrimSpace(t)
}

// lineReader reads entries from a pipe or file.
type lineReader struct {
	r      *bufio.Reader
	prompt io.Writer // where to write a prompt, or nil
	max    int       // the longest entry in bytes; 0 means maxEntry (tests set less)
}

func (l *lineReader) limit() int {
	if l.max > 0 {
		return l.max
	}
	return maxEntry
}

// line returns the next line without its line break. A line over the limit is skipped with
// errEntryTooLong, and what is returned in its place says only whether it opens or closes a block:
// """ when it holds an odd number of them, "" otherwise. (Skipping a line that opens a block, and
// reading the block's lines as entries of their own, would lose the reader's place.)
func (l *lineReader) line() (string, error) {
	var b []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(b)+len(chunk) > l.limit() {
			var q quoteCount
			q.add(b)
			q.add(chunk)
			for errors.Is(err, bufio.ErrBufferFull) {
				chunk, err = l.r.ReadSlice('\n')
				q.add(chunk)
			}
			return q.marker(), errEntryTooLong
		}
		b = append(b, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && (len(b) == 0 || !errors.Is(err, io.EOF)) {
			return "", err
		}
		return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
	}
}

// quoteCount counts the """ of a line read in pieces, as strings.Count does: a run of n quotes
// holds n/3 of them.
type quoteCount struct{ n, run int }

func (q *quoteCount) add(p []byte) {
	for _, c := range p {
		if c == '"' {
			q.run++
			continue
		}
		q.n, q.run = q.n+q.run/3, 0
	}
}

// marker is """ when the line held an odd number of """, "" otherwise.
func (q *quoteCount) marker() string {
	if (q.n+q.run/3)%2 == 1 {
		return quotes
	}
	return ""
}

// read returns the next entry: a line, or the lines of a """ block. An entry over the limit (a
// line, or a block as its lines join) is skipped whole, up to the line that closes its block, and
// reported as errEntryTooLong.
func (l *lineReader) read() (string, error) {
	if l.prompt != nil {
		fmt.Fprint(l.prompt, ">>> ")
	}
	entry, err := l.line()
	tooLong := errors.Is(err, errEntryTooLong)
	if err != nil && !tooLong {
		return "", err
	}
	for open(entry) {
		if l.prompt != nil {
			fmt.Fprint(l.prompt, "... ")
		}
		next, err := l.line()
		if errors.Is(err, io.EOF) {
			break // an unclosed block ends with the input
		}
		if errors.Is(err, errEntryTooLong) || len(entry)+len(next) > l.limit() {
			tooLong = true
		} else if err != nil {
			return "", err
		}
		if tooLong {
			// Keep only whether the block is still open (next does not close it): not its text.
			if entry = ""; !open(next) {
				entry = quotes
			}
			continue
		}
		entry += "\n" + next
	}
	if tooLong {
		return "", errEntryTooLong
	}
	return entry, nil
}

// terminalReader reads entries on a terminal through reeflective/readline: Emacs or Vi keys
// (as the user's ~/.inputrc says), history with Up and Down and Ctrl-R, and a """ block or a
// pasted paragraph kept as one entry.
type terminalReader struct {
	rl *readline.Shell
}

func newTerminalReader(history string) (*terminalReader, error) {
	rl := readline.NewShell()
	rl.Prompt.Primary(func() string { return ">>> " })
	rl.Prompt.Secondary(func() string { return "... " })
	rl.AcceptMultiline = func(line []rune) bool { return !open(string(line)) }
	if err := rl.Config.Set("enable-bracketed-paste", true); err != nil {
		return nil, err
	}
	if history != "" {
		if err := os.MkdirAll(filepath.Dir(history), 0o700); err != nil {
			return nil, fmt.Errorf("chat history: %w", err)
		}
		rl.History.AddFromFile("history", history)
	}
	return &terminalReader{rl: rl}, nil
}

func (t *terminalReader) read() (string, error) {
	line, err := t.rl.Readline()
	if errors.Is(err, readline.ErrInterrupt) {
		return line, errPromptCancelled
	}
	return line, err
}

// defaultHistory is the chat's history file: qwen3/chat-history in the user's cache directory,
// or "" (no history) when there is none.
func defaultHistory() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "qwen3", "chat-history")
}
