package forward_test

import (
	"fmt"
	"log"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// Load the tiny reference model from its GGUF file and score the next token after
// "The capital of France is". The tiny model knows only Go's source, so its favourite next token
// is not " Paris" (id 537 is " not"); transformers picks the same id (see the golden test).
func ExampleModel_Forward() {
	m, err := forward.Load(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	ids := []int{785, 6722, 315, 9625, 374} // "The capital of France is"
	logits, err := m.Forward(ids)
	if err != nil {
		log.Fatal(err)
	}
	seq, vocab := logits.Dims()
	last := logits.RawRowView(seq - 1)
	best := 0
	for id, v := range last {
		if v > last[best] {
			best = id
		}
	}
	fmt.Printf("logits %d x %d, tied head %v\n", seq, vocab, m.Tied)
	fmt.Printf("next token id %d (logit %.2f)\n", best, last[best])
	// Output:
	// logits 5 x 151936, tied head true
	// next token id 537 (logit 8.13)
}

// Compare a forward pass with transformers' trace, stage by stage.
func ExampleFirstDivergence() {
	m, err := forward.Load(reference.TinyHFDir())
	if err != nil {
		log.Fatal(err)
	}
	want, err := forward.GoldenTrace(1)
	if err != nil {
		log.Fatal(err)
	}
	got, err := m.ForwardTrace(want.IDs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(forward.FirstDivergence(got, want, 1e-5))
	got.Layers[2].Set(0, 0, 100) // break layer 2's output
	fmt.Println(forward.FirstDivergence(got, want, 1e-5))
	// Output:
	// every stage agrees (tolerance 1e-05)
	// layer 2 differs by 22.5 (tolerance 1e-05): check its attention (Q/K/V, QK-norm, RoPE, GQA), its MLP and the two residual adds
}
