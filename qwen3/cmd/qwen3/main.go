// Command qwen3 runs Qwen3 models: a prompt, an interactive chat, or a look inside a model file.
//
//	qwen3 run 'func main() {'                            complete a prompt (the built-in tiny model unless -model)
//	echo "What is 2+2?" | qwen3 run -chat -think=false   the prompt from standard input, as one chat turn
//	qwen3 chat -model Qwen3-0.6B-Q8_0.gguf               talk: line editing, history, /help; Ctrl-C stops a reply
//	qwen3 run -trace steps.jsonl 'func main() {'         also write each decode step as a line of JSON (package qwen3/viz)
//	qwen3 viz                                            a page in the browser that shows every decode step as it happens
//	qwen3 inspect FILE|DIR                               what a GGUF file, a safetensors file or an HF directory holds
//	qwen3 serve -slots 8                                 an OpenAI-compatible server on 127.0.0.1:8080 (package qwen3/serve)
//
// -model takes a GGUF file or a Hugging Face directory. Without it, run and chat use the course's
// tiny reference checkpoint (reference/tiny-qwen3.gguf): a 6-layer Qwen3 trained on Go's standard
// library, which completes Go code and nothing else (it was never trained on the chat template).
// Exit status: 0 done, 1 error, 2 bad command line, 130 interrupted (Ctrl-C).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/term"

	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

func main() {
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	e := &env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, interrupts: interrupts,
		stdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
	err := run(os.Args[1:], e)
	if err != nil && !errors.Is(err, errInterrupted) {
		fmt.Fprintln(os.Stderr, "qwen3:", strings.TrimPrefix(err.Error(), "qwen3: "))
	}
	os.Exit(exitCode(err))
}

// env is what a command reads and writes: the standard streams, whether each is a terminal
// (line editing, prompts and progress are for terminals only), and the Ctrl-C signals.
type env struct {
	stdin                          io.Reader
	stdout, stderr                 io.Writer
	interrupts                     <-chan os.Signal
	stdinTTY, stdoutTTY, stderrTTY bool
}

var (
	// errInterrupted ends a command stopped by Ctrl-C, after what was generated is printed.
	errInterrupted = errors.New("interrupted")
	// errUsage marks a bad command line.
	errUsage = errors.New("usage")
)

func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errInterrupted):
		return 130 // 128 + SIGINT, as shells report it
	case errors.Is(err, errUsage):
		return 2
	}
	return 1
}

// usageError is a bad command line: its message, and exit status 2.
type usageError struct{ msg string }

func (u usageError) Error() string        { return u.msg }
func (u usageError) Is(target error) bool { return target == errUsage }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

const usage = `qwen3 runs Qwen3 models: the built-in tiny reference checkpoint, or -model FILE|DIR.

usage:
  qwen3 run     [flags] [TEXT]     complete TEXT (or -prompt TEXT, or standard input); -chat answers it as a chat turn
  qwen3 chat    [flags]            interactive chat: line editing, history, """ for several lines, /help
  qwen3 viz     [flags]            a page that shows every decode step: candidates, nucleus, tail, the token drawn
  qwen3 inspect FILE|DIR           what a GGUF file, a safetensors file or an HF directory holds
  qwen3 serve   [flags]            serve the model over OpenAI's HTTP API, with continuous batching
  qwen3 version                    print the version and build information

Run 'qwen3 run -h', 'qwen3 chat -h' or 'qwen3 viz -h' for the flags.`

func run(args []string, e *env) error {
	// A QWEN3_KERNELS that names no level leaves the kernels at the best the CPU has; the kernels
	// package prints nothing, so say it here, where the user looks.
	if err := kernels.EnvError(); err != nil {
		fmt.Fprintln(e.stderr, "qwen3: warning:", strings.TrimPrefix(err.Error(), "kernels: "))
	}
	if len(args) == 0 {
		return usageError{usage}
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return runCmd(rest, e)
	case "chat":
		return chatCmd(rest, e)
	case "serve":
		return serveCmd(rest, e)
	case "viz":
		return vizCmd(rest, e)
	case "inspect":
		if len(rest) == 1 && isHelp(rest[0]) {
			fmt.Fprintln(e.stdout, "usage: qwen3 inspect FILE|DIR\n\nPrints a GGUF file's header, metadata and tensor table; a safetensors file's header and tensors; or a Hugging Face directory's config, tensors, tokenizer and generation defaults.")
			return nil
		}
		if len(rest) != 1 || strings.HasPrefix(rest[0], "-") {
			return usagef("usage: qwen3 inspect FILE|DIR")
		}
		return inspect(rest[0], e.stdout)
	case "version", "-version", "--version", "-v":
		fmt.Fprintln(e.stdout, version())
		return nil
	case "help":
		if len(rest) == 1 && (rest[0] == "run" || rest[0] == "chat" || rest[0] == "inspect" || rest[0] == "serve" || rest[0] == "viz") {
			return run([]string{rest[0], "-h"}, e)
		}
		fmt.Fprintln(e.stdout, usage)
		return nil
	default:
		if isHelp(cmd) {
			fmt.Fprintln(e.stdout, usage)
			return nil
		}
		return usagef("unknown command %q\n\n%s", cmd, usage)
	}
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// version is the module's version and how the binary was built.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return fmt.Sprintf("qwen3 (no build information) %s %s/%s\nkernels %s", runtime.Version(), runtime.GOOS, runtime.GOARCH, qwen3.Kernels())
	}
	v := fmt.Sprintf("qwen3 %s %s %s %s/%s", info.Main.Path, info.Main.Version, info.GoVersion, runtime.GOOS, runtime.GOARCH)
	var rev, at, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf("\ncommit %s%s, %s", rev, modified, at)
	}
	return v + "\nkernels " + qwen3.Kernels()
}
