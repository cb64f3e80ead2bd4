package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/qwen3/viz"
)

// maxStdinPrompt bounds a prompt read from standard input: far more text than any context holds
// (40,960 tokens are about 160 KB), but not an unbounded allocation.
const maxStdinPrompt = 16 << 20

func runCmd(args []string, e *env) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	c := common{name: "run"}
	c.register(fs)
	prompt := fs.String("prompt", "", "the text to continue; - reads standard input (default: the arguments, or standard input when it is not a terminal)")
	asChat := fs.Bool("chat", false, "answer the prompt as one user turn of Qwen3's chat template (with -think and -system)")
	tracePath := fs.String("trace", "", "write each decode step to `FILE` as a line of JSON: the top candidates' probabilities before and\n"+
		"after each warper, the nucleus, the tail and the token drawn (package qwen3/viz documents the fields)")
	args, err := c.parse(fs, args, "qwen3 run [flags] [TEXT]\n\nCompletes TEXT: the arguments, -prompt TEXT, or standard input (-prompt -, or when it is not a terminal).", e.stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if !*asChat {
		for _, name := range []string{"think", "system"} {
			if c.set[name] {
				return usagef("-%s applies to chat turns: add -chat", name)
			}
		}
	}
	text, err := promptText(*prompt, c.set["prompt"], args, e)
	if err != nil {
		return err
	}
	var traceFile *os.File
	if *tracePath != "" {
		// Created before the model loads, so that a path that cannot be written fails at once.
		if traceFile, err = os.Create(*tracePath); err != nil {
			return fmt.Errorf("-trace: %w", err)
		}
		defer traceFile.Close()
	}
	m, err := c.load(e)
	if err != nil {
		return err
	}
	defer m.Close()

	// The first Ctrl-C cancels: what was generated is printed, with -stats, and the exit status
	// is 130.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-e.interrupts:
			cancel()
		case <-ctx.Done():
		}
	}()
	meter := &prefillMeter{e: e}
	opts := c.options(meter)
	var trace *viz.Trace
	var traceBuf *bufio.Writer
	if traceFile != nil {
		traceBuf = bufio.NewWriter(traceFile)
		trace = viz.NewTrace(traceBuf, m.Tokenizer(), 0)
		opts.OnStep = trace.Step
	}
	// The prompt is echoed with the first piece of text, so that an error (a prompt longer than
	// the context) leaves stdout empty.
	echoed := *asChat
	echo := func() error {
		if echoed {
			return nil
		}
		echoed = true
		_, err := io.WriteString(e.stdout, text)
		return err
	}
	print := func(piece string) error {
		if err := echo(); err != nil {
			return err
		}
		_, err := io.WriteString(e.stdout, piece)
		return err
	}
	var st qwen3.Stats
	if *asChat {
		var chat *qwen3.Chat
		if chat, err = m.NewChat(qwen3.ChatOptions{System: c.system, Thinking: c.think, Reply: opts}); err != nil {
			return err
		}
		defer chat.Close()
		_, err = chat.Send(ctx, text, print)
		st = chat.Last()
	} else {
		_, st, err = m.Generate(ctx, text, opts, print)
	}
	meter.clear()
	if trace != nil {
		// What was traced is kept, also after a Ctrl-C or an error.
		terr := trace.Err()
		if terr == nil {
			terr = traceBuf.Flush()
		}
		if terr == nil {
			terr = traceFile.Close()
		}
		if terr != nil {
			fmt.Fprintf(e.stderr, "qwen3: -trace %s: %v\n", *tracePath, terr)
			if err == nil {
				err = fmt.Errorf("-trace %s: %w", *tracePath, terr)
			}
		}
	}
	cancelled := errors.Is(err, context.Canceled)
	if err != nil && !cancelled {
		if st.NewTokens == 0 {
			n := 0
			if errors.Is(err, qwen3.ErrContextFull) {
				n = len(m.Tokenizer().Encode(text))
			}
			return c.contextHint(err, m.Config().MaxPositionEmbeddings, n)
		}
		fmt.Fprintln(e.stdout)
		return err
	}
	if err := echo(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	switch {
	case cancelled && st.NewTokens == 0:
		fmt.Fprintf(e.stderr, "[interrupted during the prompt, after %d tokens]\n", st.PromptTokens)
	case cancelled:
		fmt.Fprintf(e.stderr, "[interrupted after %d new tokens]\n", st.NewTokens)
	case st.Finish == qwen3.FinishContext:
		fmt.Fprintf(e.stderr, "[stopped: the context of %d tokens is full; raise -ctx (at most %d for this model)]\n", c.ctxTokens, m.Config().MaxPositionEmbeddings)
	}
	if c.stats {
		fmt.Fprintln(e.stderr, formatStats(st))
	}
	if cancelled {
		return errInterrupted
	}
	return nil
}

// promptText finds run's prompt: -prompt TEXT, -prompt - (standard input), the arguments, or
// standard input when it is not a terminal. One final newline of standard input is dropped
// (echo adds it).
func promptText(flagValue string, flagSet bool, args []string, e *env) (string, error) {
	switch {
	case flagSet && len(args) > 0:
		return "", usagef("give the prompt once: -prompt, or arguments (%q)", strings.Join(args, " "))
	case flagSet && flagValue != "-":
		if flagValue == "" {
			return "", usagef("-prompt is empty")
		}
		return flagValue, nil
	case len(args) > 0:
		return strings.Join(args, " "), nil
	case !flagSet && e.stdinTTY:
		return "", usagef("run needs a prompt: qwen3 run TEXT, -prompt TEXT, or text on standard input (see 'qwen3 run -h')")
	}
	b, err := io.ReadAll(io.LimitReader(e.stdin, maxStdinPrompt+1))
	if err != nil {
		return "", fmt.Errorf("reading the prompt from standard input: %w", err)
	}
	if len(b) > maxStdinPrompt {
		return "", fmt.Errorf("the prompt on standard input is over %d MB", maxStdinPrompt>>20)
	}
	text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if strings.TrimSpace(text) == "" {
		return "", usagef("the prompt on standard input is empty")
	}
	return text, nil
}
