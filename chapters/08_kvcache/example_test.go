package kvcache_test

import (
	"fmt"
	"log"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	kvcache "github.com/qwen3go/qwen3go/chapters/08_kvcache"
	"github.com/qwen3go/qwen3go/reference"
)

// Greedy decoding with a KV cache: prefill the prompt once, then feed each chosen token back with
// Step. The tiny model's weights are random, so the tokens are not English; they are the ones
// transformers' cached generation picks too (golden/08_kvcache/step_ids.npy).
func ExampleCache_Step() {
	m, err := forward.Load(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	c, err := kvcache.New(m, 64)
	if err != nil {
		log.Fatal(err)
	}
	logits, err := c.Prefill([]int{785, 6722, 315, 9625, 374}) // "The capital of France is"
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
	fmt.Println("generated:", out)
	fmt.Println("cached tokens:", c.Len(), "rows projected:", c.ProjectedRows())
	// Output:
	// generated: [537 387 1483 311 198 197 322 279]
	// cached tokens: 13 rows projected: 78
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
