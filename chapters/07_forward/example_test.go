package forward_test

import (
	"fmt"
	"log"
	"path/filepath"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	"github.com/qwen3go/qwen3go/reference"
)

// Load the tiny reference model from its GGUF file and score the next token after
// "The capital of France is". The tiny model knows only Go's source, so its favourite next token
// is not " Paris" (id 537 is " not"). transformers 5.23 picks the same id with the same logit
// (checked by hand on 2026-11-27; this prompt is not in the golden data, whose Go prompts
// TestGoldenLogitsFullVocab compares over the whole vocabulary).
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
	// next token id 537 (logit 5.62)
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
	// layer 2 differs by 62.2 (tolerance 1e-05): check its attention (Q/K/V, QK-norm, RoPE, GQA), its MLP and the two residual adds
}

// What tying the LM head to the embedding saves in Qwen3-0.6B: the weights of a second
// vocab x hidden matrix, their bytes in a BF16 and a Q8_0 file, and what the whole model takes
// in this chapter's float64. Decoding reads the head whole for every token either way (and one
// row of the embedding), so the tie saves memory and file size, not reads per token.
func Example_tiedHead() {
	tied := gguf.Qwen3_0_6B()
	untied := tied
	untied.TieWordEmbeddings = false
	head := gguf.CountParams(untied).LMHead
	fmt.Printf("an untied head: %d more weights, %.1f%% of the %d tied parameters\n",
		head, 100*float64(head)/float64(gguf.CountParams(tied).Total()), gguf.CountParams(tied).Total())
	for _, t := range []gguf.GGMLType{gguf.TypeBF16, gguf.TypeQ8_0} {
		a, b := gguf.WeightBytes(tied, t), gguf.WeightBytes(untied, t)
		fmt.Printf("%-5v file: %.2f GB tied, %.2f GB untied (+%.0f MB)\n", t, float64(a)/1e9, float64(b)/1e9, float64(b-a)/1e6)
	}
	fmt.Printf("float64, as this chapter holds it: %.2f GB\n", float64(8*gguf.CountParams(tied).Total())/1e9)
	// Output:
	// an untied head: 155582464 more weights, 26.1% of the 596049920 tied parameters
	// BF16  file: 1.19 GB tied, 1.50 GB untied (+311 MB)
	// Q8_0  file: 0.63 GB tied, 0.80 GB untied (+165 MB)
	// float64, as this chapter holds it: 4.77 GB
}

// The shapes of the model's matrices, [out][in] as Hugging Face stores them, for Qwen3-0.6B and for
// the course's tiny reference model, from their configurations (the package doc's table).
func Example_shapes() {
	tiny, err := gguf.ReadConfig(filepath.Join(reference.TinyHFDir(), "config.json"))
	if err != nil {
		log.Fatal(err)
	}
	row := func(name string, f func(c gguf.Config) string) {
		fmt.Printf("%-18s %-34s %s\n", name, f(gguf.Qwen3_0_6B()), f(tiny))
	}
	fmt.Printf("%-18s %-34s %s\n", "", "Qwen3-0.6B", "tiny reference model")
	row("Embedding, LMHead", func(c gguf.Config) string { return fmt.Sprintf("%d x %d", c.VocabSize, c.HiddenSize) })
	row("layers", func(c gguf.Config) string { return fmt.Sprint(c.NumHiddenLayers) })
	row("q_proj / o_proj", func(c gguf.Config) string {
		q := c.NumAttentionHeads * c.HeadDim
		return fmt.Sprintf("%d x %d / %d x %d", q, c.HiddenSize, c.HiddenSize, q)
	})
	row("k_proj, v_proj", func(c gguf.Config) string {
		return fmt.Sprintf("%d x %d (%d KV heads of %d)", c.NumKeyValueHeads*c.HeadDim, c.HiddenSize, c.NumKeyValueHeads, c.HeadDim)
	})
	row("gate, up / down", func(c gguf.Config) string {
		return fmt.Sprintf("%d x %d / %d x %d", c.IntermediateSize, c.HiddenSize, c.HiddenSize, c.IntermediateSize)
	})
	// Output:
	//                    Qwen3-0.6B                         tiny reference model
	// Embedding, LMHead  151936 x 1024                      151936 x 64
	// layers             28                                 6
	// q_proj / o_proj    2048 x 1024 / 1024 x 2048          128 x 64 / 64 x 128
	// k_proj, v_proj     1024 x 1024 (8 KV heads of 128)    64 x 64 (2 KV heads of 32)
	// gate, up / down    3072 x 1024 / 1024 x 3072          192 x 64 / 64 x 192
}
