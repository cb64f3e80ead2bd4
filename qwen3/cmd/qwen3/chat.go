package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/qwen3go/qwen3go/qwen3"
)

func chatCmd(args []string, e *env) error {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	c := common{name: "chat"}
	c.register(fs)
	history := fs.String("history", defaultHistory(), `file of the chat's input history, on a terminal ("" keeps none)`)
	args, err := c.parse(fs, args, "qwen3 chat [flags]\n\nAn interactive chat: type a message and press Enter; \"\"\" starts and ends several lines; /help lists the commands.\nOn a terminal: line editing, history (Up, Ctrl-R), Ctrl-C stops a reply, Ctrl-D leaves. Piped: one message a line.", e.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if len(args) > 0 {
		return usagef("chat takes no arguments (%q); type the messages, or pipe them in", strings.Join(args, " "))
	}
	m, err := c.load(e)
	if err != nil {
		return err
	}
	defer m.Close()
	meter := &prefillMeter{e: e}
	chat, err := m.NewChat(qwen3.ChatOptions{System: c.system, Thinking: c.think, Reply: c.options(meter)})
	if err != nil {
		return err
	}
	defer chat.Close()
	var in entryReader
	if e.stdinTTY && e.stdoutTTY {
		if in, err = newTerminalReader(*history); err != nil {
			return err
		}
	} else {
		lr := &lineReader{r: bufio.NewReader(e.stdin)}
		if e.stdinTTY {
			lr.prompt = e.stderr // typing with stdout redirected: the prompt goes to stderr
		}
		in = lr
	}
	s := &chatSession{e: e, c: &c, m: m, chat: chat, meter: meter}
	if c.model == "" {
		fmt.Fprintln(e.stderr, builtinChatNote)
	}
	fmt.Fprintf(e.stderr, "chatting with %s (%s, %d layers, %v weights, %d-token context); thinking %s. /help lists the commands; Ctrl-C stops a reply, Ctrl-D or /bye leaves.\n",
		filepath.Base(c.path), m.Source(), m.Config().NumHiddenLayers, m.WeightType(), c.ctxTokens, onOff(c.think))
	return s.loop(in)
}

// chatSession is a running chat: the conversation and the flags' settings, which the slash
// commands change.
type chatSession struct {
	e     *env
	c     *common
	m     *qwen3.Model
	chat  *qwen3.Chat
	meter *prefillMeter
}

// writeError is an error writing a reply: the chat cannot go on.
type writeError struct{ err error }

func (w writeError) Error() string { return w.err.Error() }
func (w writeError) Unwrap() error { return w.err }

func (s *chatSession) loop(in entryReader) error {
	e := s.e
	for {
		entry, err := in.read()
		switch {
		case errors.Is(err, io.EOF):
			if e.stdinTTY {
				fmt.Fprintln(e.stderr)
			}
			return nil
		case errors.Is(err, errPromptCancelled):
			if strings.TrimSpace(entry) == "" {
				fmt.Fprintln(e.stderr, "(Ctrl-D or /bye leaves)")
			}
			continue
		case errors.Is(err, errEntryTooLong):
			fmt.Fprintln(e.stderr, "error:", err)
			continue
		case err != nil:
			return err
		}
		if strings.HasPrefix(entry, "/") {
			quit, err := s.command(entry)
			if err != nil {
				fmt.Fprintln(e.stderr, "error:", err)
			}
			if quit {
				return nil
			}
			continue
		}
		text := unquote(entry)
		if text == "" {
			continue
		}
		if err := s.send(text); err != nil {
			return err
		}
	}
}

// send runs one turn: Ctrl-C stops the reply (or the prompt's prefill) and the chat goes on.
func (s *chatSession) send(text string) error {
	e := s.e
	// A Ctrl-C pressed while no reply was running only reminds how to leave; it must not cancel
	// the reply about to start.
drain:
	for {
		select {
		case <-e.interrupts:
			fmt.Fprintln(e.stderr, "(Ctrl-D or /bye leaves)")
		default:
			break drain
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-e.interrupts:
			cancel()
		case <-done:
		}
	}()
	dropped := s.chat.Dropped()
	wrote := false
	_, err := s.chat.Send(ctx, text, func(piece string) error {
		wrote = true
		if _, err := io.WriteString(e.stdout, piece); err != nil {
			return writeError{err}
		}
		return nil
	})
	close(done)
	cancel()
	s.meter.clear()
	if wrote {
		fmt.Fprintln(e.stdout)
	}
	st := s.chat.Last()
	var we writeError
	switch {
	case errors.As(err, &we):
		return err
	case errors.Is(err, context.Canceled) && !wrote:
		fmt.Fprintf(e.stderr, "[stopped during the prompt, after %d tokens; the message was not kept]\n", st.PromptTokens)
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(e.stderr, "[stopped]")
	case err != nil:
		fmt.Fprintln(e.stderr, "error:", strings.TrimPrefix(s.c.contextHint(err, s.m.Config().MaxPositionEmbeddings, 0).Error(), "qwen3: "))
		return nil
	}
	if n := s.chat.Dropped() - dropped; n > 0 {
		_, size := s.chat.Context()
		fmt.Fprintf(e.stderr, "[context full (%d tokens): the model no longer sees the %d oldest messages (%d of %d so far); the conversation is kept; /clear starts afresh]\n",
			size, n, s.chat.Dropped(), s.conversation())
	}
	if st.Finish == qwen3.FinishContext {
		_, size := s.chat.Context()
		fmt.Fprintf(e.stderr, "[the reply filled the context of %d tokens and stopped; raise -ctx (at most %d)]\n", size, s.m.Config().MaxPositionEmbeddings)
	}
	if s.c.stats {
		fmt.Fprintln(e.stderr, formatStats(st))
	}
	if e.stdoutTTY {
		fmt.Fprintln(e.stdout)
	}
	return nil
}
