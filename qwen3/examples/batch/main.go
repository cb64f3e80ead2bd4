// Command batch completes several prompts at once: qwen3.GenerateBatch prefills each prompt, then
// decodes the sequences together, so that every weight read from memory makes a token for each.
//
//	go run ./qwen3/examples/batch [CHECKPOINT]
//
// CHECKPOINT is a GGUF file or a Hugging Face directory; by default models/Qwen3-0.6B-Q8_0.gguf,
// the official Q8_0 file that `scripts/download_qwen3.sh gguf` fetches. (The course's tiny
// checkpoint, reference/tiny-qwen3.gguf, runs too, but its text means nothing.)
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/qwen3go/qwen3go/qwen3"
)

func main() {
	path := "models/Qwen3-0.6B-Q8_0.gguf"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	prompts := []string{"The capital of France is", "Once upon a time", "Hi"}
	if err := complete(context.Background(), os.Stdout, path, prompts); err != nil {
		fmt.Fprintln(os.Stderr, "batch:", err)
		os.Exit(1)
	}
}

// complete loads the checkpoint at path, continues every prompt greedily for up to 16 tokens in
// one batch, and writes each prompt with its continuation and why it ended to w.
func complete(ctx context.Context, w io.Writer, path string, prompts []string) error {
	m, err := qwen3.Load(ctx, path)
	if err != nil {
		return err
	}
	defer m.Close()
	opts := qwen3.ReplyOptions{Sampling: qwen3.Sampling{Temperature: new(0.0)}, MaxNewTokens: 16}
	pieces := make([]int, len(prompts))
	texts, stats, err := m.GenerateBatch(ctx, prompts, opts, func(seq int, piece string) error {
		pieces[seq]++ // the text of sequence seq, piece by piece, as it is generated
		return nil
	})
	if err != nil {
		return err
	}
	for i, text := range texts {
		fmt.Fprintf(w, "%q -> %q (%d tokens in %d pieces, finish: %s)\n", prompts[i], text, stats[i].NewTokens, pieces[i], stats[i].Finish)
	}
	return nil
}
