package qwen3_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/reference"
)

// The examples run on the course's tiny reference checkpoint: it was trained only on Go's source, so
// its text after an English prompt is Go comments, but it goes through exactly the code the real
// Qwen3-0.6B does. They decode
// greedily so that the text printed is the same on every run. qwen3/README.md's Go programs are the ones
// under qwen3/examples (TestREADMESnippets checks it).

// ask loads a checkpoint, starts a chat and streams one reply (qwen3/examples/ask as a program).
func ask(ctx context.Context, path, question string) (string, error) {
	m, err := qwen3.Load(ctx, path) // a GGUF file or a Hugging Face directory
	if err != nil {
		return "", err
	}
	defer m.Close()
	// Thinking is off unless Thinking: true; temperature 0 is greedy decoding.
	chat, err := m.NewChat(qwen3.ChatOptions{
		System: "You are terse.",
		Reply:  qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 12},
	})
	if err != nil {
		return "", err
	}
	defer chat.Close()
	return chat.Send(ctx, question, func(piece string) error {
		fmt.Print(piece) // the reply, piece by piece, as it is generated
		return nil
	})
}

func Example() {
	reply, err := ask(context.Background(), reference.TinyGGUF(), "What is 2+2?")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("\n%d bytes\n", len(reply))
	// Output:
	// // The result is the value of the value of the
	// 47 bytes
}

// Close on the nil Model that a failed Load returns does nothing, so an early `defer m.Close()`
// cannot panic.
func Example_missingFile() {
	m, err := qwen3.Load(context.Background(), "no-such-model.gguf")
	defer m.Close()
	fmt.Println(errors.Is(err, os.ErrNotExist))
	// Output: true
}

func ExampleModel_Generate() {
	m, err := qwen3.Load(context.Background(), reference.TinyGGUF())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	opts := qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 8}
	text, stats, err := m.Generate(context.Background(), "The capital of France is", opts, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n%d prompt tokens, %d new tokens, finish: %s\n", text, stats.PromptTokens, stats.NewTokens, stats.Finish)
	// Output:
	// " not a non-1, or the"
	// 5 prompt tokens, 8 new tokens, finish: length
}

// The zero Sampling is the checkpoint's recommendation; each field set replaces one setting.
func ExampleSampling() {
	m, err := qwen3.Load(context.Background(), reference.TinyGGUF())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	for _, s := range []qwen3.Sampling{
		{},
		{Temperature: new(0.7), Seed: 42},
		{Temperature: new(0.0)},
		qwen3.SamplingFrom(sampling.QwenNonThinking(1)),
		{TopP: new(0.0)},
	} {
		settings, err := m.Settings(s)
		if err != nil {
			fmt.Println(strings.TrimPrefix(err.Error(), "qwen3: "))
			continue
		}
		fmt.Printf("%+v greedy=%v\n", settings, settings.IsGreedy())
	}
	// Output:
	// {Temperature:0.6 TopK:20 TopP:0.95 MinP:0 Seed:0} greedy=false
	// {Temperature:0.7 TopK:20 TopP:0.95 MinP:0 Seed:42} greedy=false
	// {Temperature:0 TopK:20 TopP:0.95 MinP:0 Seed:0} greedy=true
	// {Temperature:0.7 TopK:20 TopP:0.8 MinP:0 Seed:1} greedy=false
	// invalid sampling settings: top_p 0 must be in (0, 1] (1 = off)
}

// A chat keeps the conversation; Reset starts a new one with the same system prompt.
func ExampleChat_Reset() {
	m, err := qwen3.Load(context.Background(), reference.TinyGGUF())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	chat, err := m.NewChat(qwen3.ChatOptions{
		System: "You are terse.",
		Reply:  qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 4},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	first, _ := chat.Send(ctx, "Hi", nil)
	chat.Send(ctx, "And again?", nil)
	fmt.Println(len(chat.Messages()), "messages")
	chat.Reset()
	again, _ := chat.Send(ctx, "Hi", nil)
	fmt.Println(len(chat.Messages()), "messages; same first reply:", again == first, "; system prompt tokens reused:", chat.Reused() > 0)
	// Output:
	// 5 messages
	// 3 messages; same first reply: true ; system prompt tokens reused: true
}

// Several prompts decoded together: each weight read from memory serves every sequence. Each
// sequence streams to the callback with its index, and stops on its own.
func ExampleModel_GenerateBatch() {
	m, err := qwen3.Load(context.Background(), reference.TinyGGUF())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	prompts := []string{"The capital of France is", "Once upon a time", "Hi"}
	opts := qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 6}
	pieces := make([]int, len(prompts))
	texts, stats, err := m.GenerateBatch(context.Background(), prompts, opts, func(seq int, piece string) error {
		pieces[seq]++ // the text of sequence seq, piece by piece
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, text := range texts {
		fmt.Printf("%d: %q (%d tokens, %d pieces, finish: %s)\n", i, text, stats[i].NewTokens, pieces[i], stats[i].Finish)
	}
	// Output:
	// 0: " not a non-1," (6 tokens, 6 pieces, finish: length)
	// 1: " of the time of the time" (6 tokens, 6 pieces, finish: length)
	// 2: " := make(map[types.Type" (6 tokens, 6 pieces, finish: length)
}

// A Cache is one sequence's keys and values: Prefill runs a prompt into it, Step one token more,
// and Truncate goes back to a prefix, whose cached keys and values stay valid, so that another
// continuation of the same prompt does not run the prompt again.
func ExampleModel_NewCache() {
	ctx := context.Background()
	m, err := qwen3.Load(ctx, reference.TinyGGUF())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	c, err := m.NewCache(64) // room for 64 tokens
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	tok := m.Tokenizer()
	prompt := tok.Encode("func main() {")
	logits, err := c.Prefill(ctx, prompt)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The two likeliest next tokens.
	first, second := 0, 1
	for i, v := range logits {
		if v > logits[first] {
			first, second = i, first
		} else if i != first && v > logits[second] {
			second = i
		}
	}
	continueFrom := func(id int) string { // greedy decoding from id on, 6 tokens
		ids := []int{id}
		for len(ids) < 6 {
			logits, err := c.Step(ids[len(ids)-1])
			if err != nil {
				return err.Error()
			}
			best := 0
			for i, v := range logits {
				if v > logits[best] {
					best = i
				}
			}
			ids = append(ids, best)
		}
		text, _ := tok.Decode(ids, false)
		return text
	}
	fmt.Printf("%d prompt tokens cached\n", c.Len())
	fmt.Printf("likeliest: %q\n", continueFrom(first))
	c.Truncate(len(prompt)) // back to the prompt alone: its 4 tokens are not run again
	fmt.Printf("runner-up: %q\n", continueFrom(second))
	// Output:
	// 4 prompt tokens cached
	// likeliest: " return 0 }\n\nfunc ("
	// runner-up: " { return 0 }\n\nfunc"
}

// Batch.Run runs any tokens of several caches in one forward pass: here cache a decodes while
// cache c's prompt arrives in two chunks, each riding in a's step (a server's chunked prefill).
// Every weight read from memory serves a's token and c's chunk together.
func ExampleBatch_Run() {
	ctx := context.Background()
	m, err := qwen3.Load(ctx, reference.TinyGGUF())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	tok := m.Tokenizer()
	argmax := func(logits []float32) int {
		best := 0
		for i, v := range logits {
			if v > logits[best] {
				best = i
			}
		}
		return best
	}
	b, err := m.NewBatch(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	a, _ := b.NewCache(64)
	defer a.Close()
	logits, err := a.Prefill(ctx, tok.Encode("func main() {"))
	if err != nil {
		fmt.Println(err)
		return
	}
	next := argmax(logits)
	c, _ := b.NewCache(64)
	defer c.Close()
	prompt := tok.Encode("// Copyright 2009 The Go Authors. All rights")
	var out []int
	for _, chunk := range [][]int{prompt[:6], prompt[6:]} {
		rows, err := b.Run([]*qwen3.Cache{a, c}, [][]int{{next}, chunk})
		if err != nil {
			fmt.Println(err)
			return
		}
		out = append(out, next)
		next = argmax(rows[0]) // a's next token; rows[1] predicts the token after c's chunk
		if c.Len() == len(prompt) {
			first, _ := tok.Decode([]int{argmax(rows[1])}, false)
			fmt.Printf("c: %d prompt tokens in two passes, then %q\n", c.Len(), first)
		}
	}
	text, _ := tok.Decode(out, false)
	fmt.Printf("a: %q meanwhile\n", text)
	// Output:
	// c: 13 prompt tokens in two passes, then " reserved"
	// a: " return " meanwhile
}
