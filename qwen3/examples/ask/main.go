// Command ask asks Qwen3 one question and prints the reply as it is generated.
//
//	go run ./qwen3/examples/ask [CHECKPOINT] [QUESTION]
//
// CHECKPOINT is a GGUF file or a Hugging Face directory; by default models/Qwen3-0.6B-Q8_0.gguf,
// the official Q8_0 file that `scripts/download_qwen3.sh gguf` fetches. (The course's tiny
// checkpoint, reference/tiny-qwen3.gguf, runs too, but its answer means nothing.)
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/qwen3go/qwen3go/qwen3"
)

func main() {
	path, question := "models/Qwen3-0.6B-Q8_0.gguf", "What is 2+2?"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if len(os.Args) > 2 {
		question = os.Args[2]
	}
	if _, err := ask(context.Background(), os.Stdout, path, question); err != nil {
		fmt.Fprintln(os.Stderr, "ask:", err)
		os.Exit(1)
	}
	fmt.Println()
}

// ask loads the checkpoint at path, asks question in a new chat and writes the reply to w, piece
// by piece as it is generated; it returns the whole reply.
func ask(ctx context.Context, w io.Writer, path, question string) (string, error) {
	m, err := qwen3.Load(ctx, path) // a GGUF file or a Hugging Face directory
	if err != nil {
		return "", err
	}
	defer m.Close()
	// Thinking is off unless Thinking: true; temperature 0 is greedy decoding.
	chat, err := m.NewChat(qwen3.ChatOptions{
		System: "You are terse.",
		Reply:  qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 64},
	})
	if err != nil {
		return "", err
	}
	defer chat.Close()
	return chat.Send(ctx, question, func(piece string) error {
		_, err := io.WriteString(w, piece)
		return err
	})
}
