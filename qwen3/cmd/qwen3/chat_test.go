package main

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestChatPiped: with piped input, each line is a message or a command, a """ block is one
// message, nothing but replies goes to stdout, and every command works and is never sent to the
// model.
func TestChatPiped(t *testing.T) {
	input := strings.Join([]string{
		"Hi",
		"/help",
		"/set temperature 0",
		"/set top-k 1.5",
		"/set top-p 0",
		"/set nonsense 1",
		"/set max-tokens 3",
		"/show",
		"/nothink",
		"/system You are a pirate.",
		"/system",
		`"""first line`,
		"",
		`second line"""`,
		"/stats",
		"/clear",
		"/show",
		"/frobnicate",
		" /not a command, a message",
		"/think",
		"/bye",
		"never read",
	}, "\n")
	r := runArgs(t, input, "chat", "-max-tokens", "5", "-seed", "3", "-stats", "-model", reference.TinyHFDir())
	if r.e != nil {
		t.Fatal(r.e)
	}
	// Three messages were sent: three replies, each followed by a -stats line (and /stats prints
	// one more), and no prompt.
	if n := strings.Count(r.err, "finish:"); n != 4 || strings.Contains(r.out, ">>>") || !strings.HasSuffix(r.out, "\n") {
		t.Errorf("%d stats lines, want 4; stdout should hold only the replies: %q", n, r.out)
	}
	for _, want := range []string{
		"/clear", "/system [TEXT]", "/set NAME VALUE", // /help
		"temperature 0",                                    // /set
		"/set top-k 1.5: not a whole number",               // /set, bad values
		"/set top-p 0: invalid sampling settings: top_p 0", //
		"/set nonsense: no such setting",                   //
		"max-tokens 3, thinking on",                        // /show
		"greedy (temperature 0): temperature 0, top-k 20, top-p 0.95, min-p 0, seed 3",
		"thinking off",                          // /nothink
		"system prompt: You are a pirate.",      // /system
		"3 new tokens at",                       // /stats after the """ block (max-tokens 3)
		"new conversation (same system prompt)", // /clear
		"context: ",                             // /show after /clear
		"no messages yet",                       //
		"unknown command /frobnicate",           // an unknown command is an error
		"thinking on",                           // /think
	} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if strings.Contains(r.err, "never read") || strings.Contains(r.out, "never read") {
		t.Error("input after /bye was read")
	}
	if strings.Contains(r.err, "chat template") {
		t.Errorf("with -model, the chat warns about the built-in model: %q", r.err)
	}
}

// TestChatMultiLine: a """ block is sent as one message with its lines, without the quotes.
func TestChatMultiLine(t *testing.T) {
	for _, in := range []string{"\"\"\"\nfirst line\n\nsecond line\n\"\"\"\n", "\"\"\"first line\n\nsecond line\"\"\"\n"} {
		if got := entries(t, in); len(got) != 1 || unquote(got[0]) != "first line\n\nsecond line" {
			t.Errorf("%q read as %q", in, got)
		}
	}
	if got := entries(t, "a\n\"\"\"b\nc"); len(got) != 2 || unquote(got[1]) != "b\nc" {
		t.Errorf("an unclosed block at the end of input: %q", got)
	}
}

func entries(t *testing.T, in string) []string {
	t.Helper()
	l := &lineReader{r: bufio.NewReader(strings.NewReader(in))}
	var out []string
	for {
		e, err := l.read()
		if err != nil {
			return out
		}
		out = append(out, e)
	}
}

// TestChatLongLine: a line over the limit is skipped with an error, and the chat goes on.
func TestChatLongLine(t *testing.T) {
	input := "Hi\n" + strings.Repeat("x", maxEntry+10) + "\nAgain\n"
	r := runArgs(t, input, "chat", "-max-tokens", "3", "-stats")
	if r.e != nil {
		t.Fatal(r.e)
	}
	if strings.Count(r.err, "finish:") != 2 || !strings.Contains(r.err, "over 16 MB: skipped") {
		t.Errorf("stdout %q\nstderr %q", r.out, r.err)
	}
	// No -model: the chat says what the built-in model is and where the real one is.
	for _, want := range []string{"completes Go code", "never trained on the chat template", `README.md: "The real model"`} {
		if !strings.Contains(r.err, want) {
			t.Errorf("chat on the built-in model: stderr lacks %q:\n%s", want, r.err)
		}
	}
}

// TestChatFullContext: with a 64-token context and long replies, every turn is answered; the
// chat says in one line when the oldest turns leave the model's view, and never exits on a full
// context; a message too long for the context is an error naming -ctx, and the chat goes on.
func TestChatFullContext(t *testing.T) {
	input := "Tell me a story\nsecond turn\nthird turn\n" + strings.Repeat("word ", 100) + "\nfourth turn\n"
	r := runArgs(t, input, "chat", "-ctx", "64", "-max-tokens", "500", "-think=false", "-stats")
	if r.e != nil || r.code != 0 {
		t.Fatalf("exit %d: %v\n%s", r.code, r.e, r.err)
	}
	if n := strings.Count(r.err, "finish:"); n != 4 {
		t.Errorf("%d replies, want 4:\n%s", n, r.err)
	}
	for _, want := range []string{"[context full (64 tokens): the model no longer sees the 2 oldest messages", "the conversation is kept",
		"the reply filled the context of 64 tokens and stopped; raise -ctx", "error: context is full", "raise -ctx"} {
		if !strings.Contains(r.err, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.err)
		}
	}
}

// TestChatInterrupt: Ctrl-C during a reply stops it, keeps what was said, and the chat goes on.
func TestChatInterrupt(t *testing.T) {
	ch := make(chan os.Signal, 1)
	out := &interruptingWriter{trigger: " ", ch: ch}
	var errOut bytes.Buffer
	e := &env{stdin: strings.NewReader("Tell me a long story\n/set max-tokens 4\nThanks\n"), stdout: out, stderr: &errOut, interrupts: ch}
	if err := run([]string{"chat", "-max-tokens", "2000", "-stats"}, e); err != nil {
		t.Fatal(err)
	}
	stats := statsLine.FindAllStringSubmatch(errOut.String(), -1)
	if len(stats) != 2 || stats[0][2] == "0" || stats[0][2] == "2000" || stats[1][2] != "4" ||
		!strings.Contains(errOut.String(), "[stopped]") || !strings.Contains(errOut.String(), "finish: cancelled") {
		t.Errorf("want a stopped reply, then a reply of 4 tokens; stderr %q", errOut.String())
	}
}
