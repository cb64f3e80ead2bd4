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
}

func (l *lineReader) line() (string, error) {
	var b []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(b)+len(chunk) > maxEntry {
			// Skip the rest of the line: it is over any context anyway.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = l.r.ReadSlice('\n')
			}
			return "", errEntryTooLong
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

func (l *lineReader) read() (string, error) {
	if l.prompt != nil {
		fmt.Fprint(l.prompt, ">>> ")
	}
	entry, err := l.line()
	if err != nil {
		return "", err
	}
	for open(entry) {
		if l.prompt != nil {
			fmt.Fprint(l.prompt, "... ")
		}
		next, err := l.line()
		if errors.Is(err, io.EOF) {
			return entry, nil // an unclosed block ends with the input
		} else if err != nil {
			return "", err
		}
		if len(entry)+len(next) > maxEntry {
			// Skip to the line that closes the block (it has an odd number of """).
			for !open(next) {
				if next, err = l.line(); err != nil && !errors.Is(err, errEntryTooLong) {
					break
				}
			}
			return "", errEntryTooLong
		}
		entry += "\n" + next
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
