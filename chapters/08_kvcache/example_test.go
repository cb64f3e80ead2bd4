package kvcache_test

import (
	"fmt"
	"log"
	"path/filepath"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	kvcache "github.com/qwen3go/qwen3go/chapters/08_kvcache"
	"github.com/qwen3go/qwen3go/reference"
)

// Greedy decoding with a KV cache: prefill the prompt once, then feed each chosen token back with
// Step. The prompt is the golden one of reference/golden/08_kvcache, and the tiny model, trained
// on Go source, continues it with Go; the ids are the ones transformers' cached
// generation picks too (step_ids.npy there).
func ExampleCache_Step() {
	m, err := forward.Load(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(reference.TinyHFDir(), "tokenizer.json"))
	if err != nil {
		log.Fatal(err)
	}
	c, err := kvcache.New(m, 64)
	if err != nil {
		log.Fatal(err)
	}
	logits, err := c.Prefill([]int{2830, 1887, 368, 314}) // "func main() {"
	if err != nil {
		log.Fatal(err)
	}
	var out []int
	for len(out) < 8 {
		next := argmax(logits)
		out = append(out, next)
		if logits, err = c.Step(next); err != nil {
			log.Fatal(err)
		}
	}
	text, err := tok.Decode(out, false)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("generated:", out)
	fmt.Printf("as text: %q\n", text)
	fmt.Println("cached tokens:", c.Len(), "rows projected:", c.ProjectedRows())
	// Output:
	// generated: [470 220 15 555 2830 320 82 353]
	// as text: " return 0 }\n\nfunc (s *"
	// cached tokens: 12 rows projected: 72
}

func argmax(v []float64) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}

// How much memory the KV cache of Qwen3-0.6B takes: 28 layers x K and V x 8 KV heads x 128.
func ExampleBytes() {
	cfg := gguf.Qwen3_0_6B()
	fmt.Println("float32 bytes per token:", kvcache.Bytes(cfg, 1, 4))
	for _, n := range []int{1024, 8192, 40960} {
		fmt.Printf("%5d tokens: %.2f GiB float32, %.2f GiB bf16\n", n,
			float64(kvcache.Bytes(cfg, n, 4))/(1<<30), float64(kvcache.Bytes(cfg, n, 2))/(1<<30))
	}
	// Output:
	// float32 bytes per token: 229376
	//  1024 tokens: 0.22 GiB float32, 0.11 GiB bf16
	//  8192 tokens: 1.75 GiB float32, 0.88 GiB bf16
	// 40960 tokens: 8.75 GiB float32, 4.38 GiB bf16
}
