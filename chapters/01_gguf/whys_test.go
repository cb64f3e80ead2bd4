package gguf_test

import (
	"fmt"
	"log"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// Example_metadata measures region 2 of the tiny reference checkpoint, which carries Qwen3's real
// tokenizer: the two long string arrays, and the bytes from the end of the header to the first
// tensor record.
func Example_metadata() {
	f, err := gguf.Open(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	for _, key := range []string{"tokenizer.ggml.tokens", "tokenizer.ggml.merges"} {
		s, err := f.Strings(key)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d strings\n", key, len(s))
	}
	fmt.Printf("region 2, the metadata: %.1f MB\n", float64(f.Tensors[0].InfoOffset-24)/1e6)
	// Output:
	// tokenizer.ggml.tokens: 151936 strings
	// tokenizer.ggml.merges: 151387 strings
	// region 2, the metadata: 5.9 MB
}

// Example_keptInFloat shows which of Qwen3-0.6B's weights a quantized GGUF file keeps in float32
// and which types llama.cpp's Q4_K_M gives the others. The rules are llama.cpp's
// (src/llama-quant.cpp): tensor_allows_quantization quantizes only tensors of two or more
// dimensions whose name does not end in "_norm.weight", so every norm stays F32; for Q4_K_M,
// llama_tensor_get_type_impl gives the output matrix (here the tied token_embd) Q6_K, and attn_v
// and ffn_down Q6_K in the layers where use_more_bits(i, n) holds (the first n/8, the last n/8,
// and every third layer between), Q4_K everywhere else.
func Example_keptInFloat() {
	c := gguf.Qwen3_0_6B()
	p := gguf.CountParams(c)
	n := c.NumHiddenLayers
	useMoreBits := func(i int) bool { return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2 }
	d, hd, f := int64(c.HiddenSize), int64(c.HeadDim), int64(c.IntermediateSize)
	q, kv := int64(c.NumAttentionHeads)*hd, int64(c.NumKeyValueHeads)*hd
	bytes := func(weights int64, t gguf.GGMLType) int64 { return weights / t.BlockSize() * t.TypeSize() }

	var more []int
	mix := bytes(p.Embedding, gguf.TypeQ6_K) + p.Norms*4
	for i := range n {
		v, down := gguf.TypeQ4_K, gguf.TypeQ4_K
		if useMoreBits(i) {
			v, down = gguf.TypeQ6_K, gguf.TypeQ6_K
			more = append(more, i)
		}
		mix += bytes(d*q+d*kv+q*d, gguf.TypeQ4_K) + bytes(d*kv, v) // q, k, o; v
		mix += bytes(2*d*f, gguf.TypeQ4_K) + bytes(d*f, down)      // gate, up; down
	}
	fmt.Printf("norm weights kept in F32: %d of %d parameters (%.3f%%), %d bytes\n",
		p.Norms, p.Total(), 100*float64(p.Norms)/float64(p.Total()), 4*p.Norms)
	fmt.Printf("quantized to Q8_0 they would save %d bytes, %.3f%% of the Q8_0 file\n",
		4*p.Norms-bytes(p.Norms, gguf.TypeQ8_0), 100*float64(4*p.Norms-bytes(p.Norms, gguf.TypeQ8_0))/float64(gguf.WeightBytes(c, gguf.TypeQ8_0)))
	fmt.Printf("q_norm and k_norm hold %d values: half a Q4_K block of %d\n", hd, gguf.TypeQ4_K.BlockSize())
	fmt.Printf("Q4_K_M: attn_v and ffn_down in Q6_K in %d of %d layers %v\n", len(more), n, more)
	fmt.Printf("weights: %d bytes as Q4_K_M, %d as Q4_K everywhere (+%.0f%%)\n",
		mix, gguf.WeightBytes(c, gguf.TypeQ4_K), 100*(float64(mix)/float64(gguf.WeightBytes(c, gguf.TypeQ4_K))-1))
	// Output:
	// norm weights kept in F32: 65536 of 596049920 parameters (0.011%), 262144 bytes
	// quantized to Q8_0 they would save 192512 bytes, 0.030% of the Q8_0 file
	// q_norm and k_norm hold 128 values: half a Q4_K block of 256
	// Q4_K_M: attn_v and ffn_down in Q6_K in 14 of 28 layers [0 1 2 5 8 11 14 17 20 23 24 25 26 27]
	// weights: 390753280 bytes as Q4_K_M, 335503360 as Q4_K everywhere (+16%)
}
