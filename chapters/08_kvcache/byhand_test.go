package kvcache_test

import (
	"fmt"
	"math"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	kvcache "github.com/qwen3go/qwen3go/chapters/08_kvcache"
)

// smallModel is a random Qwen3 small enough to follow (chapter 07's forward.Random): a vocabulary
// of 5, hidden 8, 2 layers, 2 query heads over 1 KV head of head_dim 4, intermediate 8, 16
// positions.
func smallModel() *forward.Model {
	m, err := forward.Random(gguf.Config{HiddenSize: 8, IntermediateSize: 8, NumHiddenLayers: 2, NumAttentionHeads: 2,
		NumKeyValueHeads: 1, HeadDim: 4, VocabSize: 5, MaxPositionEmbeddings: 16, RopeTheta: 1e6, RMSNormEps: 1e-6}, 1)
	if err != nil {
		panic(err)
	}
	return m
}

// Example_byHand is the worked example of the package doc: a prompt of 3 tokens and two decode
// steps on a small random model, counting what the cache holds and what each call computes, and
// checking the last logits against chapter 07's full recompute.
func Example_byHand() {
	m := smallModel()
	c, err := kvcache.New(m, 16)
	if err != nil {
		panic(err)
	}
	ids := []int{1, 3, 2}
	logits, _ := c.Prefill(ids)
	fmt.Printf("prefill %v: Len %d, rows projected %d (3 per layer)\n", ids, c.Len(), c.ProjectedRows())
	for _, id := range []int{4, 0} {
		logits, _ = c.Step(id)
		ids = append(ids, id)
		fmt.Printf("step %d at position %d: Len %d, rows projected %d (+1 per layer), keys read per head %d\n",
			id, c.Len()-1, c.Len(), c.ProjectedRows(), c.Len())
	}
	full, _ := m.Forward(ids)
	var diff float64
	for j, v := range full.RawRowView(len(ids) - 1) {
		diff = math.Max(diff, math.Abs(v-logits[j]))
	}
	fmt.Printf("last logits %.4f; chapter 07 on all %d tokens agrees within 1e-12: %v\n", logits, len(ids), diff < 1e-12)
	fmt.Printf("cache: %d layers x (K and V) x %d tokens x %d values = %d bytes in float64\n", 2, c.Len(), 4, kvcache.Bytes(m.Config, c.Len(), 8))
	// Output:
	// prefill [1 3 2]: Len 3, rows projected 6 (3 per layer)
	// step 4 at position 3: Len 4, rows projected 8 (+1 per layer), keys read per head 4
	// step 0 at position 4: Len 5, rows projected 10 (+1 per layer), keys read per head 5
	// last logits [2.5036 -0.4761 1.9130 0.3822 0.4162]; chapter 07 on all 5 tokens agrees within 1e-12: true
	// cache: 2 layers x (K and V) x 5 tokens x 4 values = 640 bytes in float64
}

// Example_gqa counts what grouped-query attention saves in Qwen3-0.6B's cache (chapter 05's
// "What it saves"), and the context at which the cache outweighs the model itself.
func Example_gqa() {
	cfg := gguf.Qwen3_0_6B()
	for _, kv := range []struct {
		name  string
		heads int
	}{{"MHA, 16 KV heads", 16}, {"GQA,  8 KV heads (Qwen3)", 8}, {"MQA,  1 KV head", 1}} {
		c := cfg
		c.NumKeyValueHeads = kv.heads
		fmt.Printf("%-25s %7d bytes per token, %5.2f GB at 32,768 tokens (BF16)\n",
			kv.name, kvcache.Bytes(c, 1, 2), float64(kvcache.Bytes(c, 32768, 2))/1e9)
	}
	w := gguf.WeightBytes(cfg, gguf.TypeBF16)
	fmt.Printf("BF16 weights %.2f GB = the BF16 cache of %d tokens\n", float64(w)/1e9, w/kvcache.Bytes(cfg, 1, 2))
	// Output:
	// MHA, 16 KV heads           229376 bytes per token,  7.52 GB at 32,768 tokens (BF16)
	// GQA,  8 KV heads (Qwen3)   114688 bytes per token,  3.76 GB at 32,768 tokens (BF16)
	// MQA,  1 KV head             14336 bytes per token,  0.47 GB at 32,768 tokens (BF16)
	// BF16 weights 1.19 GB = the BF16 cache of 10395 tokens
}

// Example_decodeReads is what a decoded token of Qwen3-0.6B reads from memory as the context
// grows: every weight once (BF16) and every cached key and value of every layer, for each kind of
// attention. It also counts what a prompt reads when it is fed at once (one pass over the weights
// per chunk) against token by token (one pass per token).
func Example_decodeReads() {
	cfg := gguf.Qwen3_0_6B()
	w := gguf.WeightBytes(cfg, gguf.TypeBF16)
	fmt.Println("GB read per decoded token, BF16 weights and cache:")
	fmt.Printf("%8s %12s %20s %12s\n", "context", "MHA, 16 KV", "GQA, 8 KV (Qwen3)", "MQA, 1 KV")
	for _, n := range []int{0, 4096, 32768} {
		fmt.Printf("%8d", n)
		for i, kv := range []int{16, 8, 1} {
			c := cfg
			c.NumKeyValueHeads = kv
			fmt.Printf(" %*.2f", []int{12, 20, 12}[i], float64(w+kvcache.Bytes(c, n, 2))/1e9)
		}
		fmt.Println()
	}
	const prompt = 512
	fmt.Printf("a %d-token prompt: the weights read once in one chunk (%.2f GB), %d times token by token (%.0f GB)\n",
		prompt, float64(w)/1e9, prompt, float64(prompt*w)/1e9)
	// Output:
	// GB read per decoded token, BF16 weights and cache:
	//  context   MHA, 16 KV    GQA, 8 KV (Qwen3)    MQA, 1 KV
	//        0         1.19                 1.19         1.19
	//     4096         2.13                 1.66         1.25
	//    32768         8.71                 4.95         1.66
	// a 512-token prompt: the weights read once in one chunk (1.19 GB), 512 times token by token (610 GB)
}
