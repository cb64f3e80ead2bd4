//go:build linux || darwin

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestMain lets a test start this test binary as the qwen3 command, on a pseudo-terminal.
func TestMain(m *testing.M) {
	if os.Getenv("QWEN3_TEST_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// terminal is the qwen3 command running on a pseudo-terminal, as a person would use it.
type terminal struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	mark int // expect looks at the output from here on
	done chan struct{}
}

func startTerminal(t *testing.T, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), append([]string{"QWEN3_TEST_RUN_MAIN=1", "TERM=xterm-256color", "INPUTRC=/dev/null"}, env...)...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, pty: f, cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			// The line editor asks where the cursor is (ESC [ 6 n); a terminal answers, before
			// expect can see the question and the test type anything more.
			for range strings.Count(string(buf[:n]), "\x1b[6n") {
				io.WriteString(f, "\x1b[1;1R")
			}
			term.mu.Lock()
			term.out.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		f.Close()
	})
	return term
}

// expect waits until the output since the last expect contains s.
func (term *terminal) expect(s string) {
	term.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		term.mu.Lock()
		all := term.out.String()
		i := strings.Index(all[term.mark:], s)
		if i >= 0 {
			term.mark += i + len(s)
		}
		term.mu.Unlock()
		if i >= 0 {
			return
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the terminal never showed %q; it shows:\n%q", s, all[term.mark:])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// prompt waits for the line editor's prompt, ready for keys: it draws ">>> " and asks where the
// cursor is, and reads keys once it has the answer.
func (term *terminal) prompt() {
	term.t.Helper()
	term.expect(">>> \x1b[6n")
	time.Sleep(50 * time.Millisecond)
}

// send types keys.
func (term *terminal) send(keys string) {
	term.t.Helper()
	if _, err := io.WriteString(term.pty, keys); err != nil {
		term.t.Fatal(err)
	}
	// A person types more slowly than this; the line editor may lose keys that arrive while it
	// redraws the line it just accepted.
	time.Sleep(150 * time.Millisecond)
}

// TestChatOnATerminal types into `qwen3 chat` as a person would: a message, the Up arrow to
// send it again, a """ block, a pasted paragraph, a command, Ctrl-C during a reply and at the
// prompt, and Ctrl-D; then checks the history file kept each entry once, whole.
func TestChatOnATerminal(t *testing.T) {
	cache := t.TempDir()
	term := startTerminal(t, []string{"XDG_CACHE_HOME=" + cache}, "chat", "-max-tokens", "6", "-stats")
	term.expect("/help lists the commands")
	term.expect("\x1b[?2004h") // bracketed paste on: the terminal marks pasted text, which stays one message
	term.prompt()

	term.send("Hi\r")
	term.expect("finish: length")
	term.prompt()

	term.send("\x1b[A") // Up: the last entry comes back, and Enter sends it (an empty line sends nothing)
	term.expect("Hi")
	term.send("\r")
	term.expect("finish: length")
	term.prompt()

	term.send(`"""first line` + "\r")
	term.send(`second line"""` + "\r")
	term.expect("finish: length")
	term.prompt()

	term.send("\x1b[200~pasted one\npasted two\x1b[201~") // a bracketed paste of two lines
	term.send("\r")
	term.expect("finish: length")
	term.prompt()

	term.send("/show\r")
	term.expect("context: ")
	term.expect("\r\n")
	term.prompt()

	term.send("/set max-tokens 3000\r")
	term.expect("max-tokens 3000\r\n") // the command's answer, not the echo of the typing
	term.prompt()
	term.send("Tell me a long story\r")
	term.expect("\x1b[?2004l") // the line editor has returned the line: the reply runs
	time.Sleep(300 * time.Millisecond)
	term.send("\x03") // Ctrl-C during the reply
	term.expect("[stopped]")
	term.expect("finish: cancelled")
	term.prompt()

	term.send("\x03") // Ctrl-C at an empty prompt
	term.expect("(Ctrl-D or /bye leaves)")
	term.prompt()

	term.send("\x04") // Ctrl-D leaves
	select {
	case <-term.done:
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-D did not end the chat")
	}
	if err := term.cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}

	f, err := os.Open(filepath.Join(cache, "qwen3", "chat-history"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var history []string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var item struct{ Block string }
		if err := json.Unmarshal(sc.Bytes(), &item); err != nil {
			t.Fatal(err)
		}
		history = append(history, item.Block)
	}
	// "Hi" is kept once: the line editor does not store an entry equal to the one before.
	want := []string{"Hi", "\"\"\"first line\nsecond line\"\"\"", "pasted one\npasted two", "/show", "/set max-tokens 3000", "Tell me a long story"}
	if !slices.Equal(history, want) {
		t.Errorf("history %q\nwant    %q", history, want)
	}
}

// TestRunOnATerminal: on a terminal, a long prompt's prefill shows its progress on one line,
// erased before the reply; Ctrl-C during it exits 130 with the stats of what was done.
func TestRunOnATerminal(t *testing.T) {
	// 24,000 tokens (an argument is limited to 128 KB): long enough for the meter to show a rate,
	// after half a second, on a fast engine
	term := startTerminal(t, nil, "run", "-stats", "-ctx", "26000", strings.Repeat(" word", 24000))
	term.expect("prompt: ")
	term.expect("tokens/s")
	term.expect("left")
	term.send("\x03")
	term.expect("[interrupted during the prompt, after ")
	term.expect("finish: cancelled")
	<-term.done
	var exit *exec.ExitError
	if err := term.cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit: %v, want status 130", err)
	}
}

// TestMainExitAndErrors runs the binary itself: a bad flag is reported once, on stderr, with exit
// status 2; -h prints to stdout with status 0; a missing model file exits 1; a QWEN3_KERNELS that
// names no level is one warning on stderr, and the command goes on.
func TestMainExitAndErrors(t *testing.T) {
	for _, c := range []struct {
		args     []string
		code     int
		out, err string
		errOnce  string
		env      string
	}{
		{[]string{"run", "-nope", "x"}, 2, "", "qwen3: flag provided but not defined: -nope (see 'qwen3 run -h')\n", "", ""},
		{[]string{"chat", "-ctx", "0"}, 2, "", "qwen3: -ctx 0: the context must hold at least 1 token\n", "", ""},
		{[]string{"run", "-h"}, 0, "usage: qwen3 run", "", "", ""},
		{[]string{"run", "-model", "/nonexistent.gguf", "x"}, 1, "", "", "no such file or directory", ""},
		{[]string{"version"}, 0, "qwen3 ", "", `qwen3: warning: QWEN3_KERNELS="avx9000" is not one of generic`, "QWEN3_KERNELS=avx9000"},
	} {
		cmd := exec.Command(os.Args[0], c.args...)
		cmd.Env = append(os.Environ(), "QWEN3_TEST_RUN_MAIN=1")
		if c.env != "" {
			cmd.Env = append(cmd.Env, c.env)
		}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		if code != c.code || !strings.HasPrefix(stdout.String(), c.out) || (c.err != "" && stderr.String() != c.err) ||
			(c.errOnce != "" && strings.Count(stderr.String(), c.errOnce) != 1) || (c.out == "" && stdout.Len() > 0) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", c.args, code, stdout.String(), stderr.String())
		}
	}
}
