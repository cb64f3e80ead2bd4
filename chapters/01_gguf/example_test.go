package gguf_test

import (
	"encoding/binary"
	"fmt"
	"log"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// Open a GGUF file and print its four regions: the header, the metadata as a table, the tensor
// table, and where the data section starts.
func Example() {
	f, err := gguf.Open(reference.Golden("01_gguf", "sample.gguf"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fmt.Printf("GGUF v%d: %d metadata entries, %d tensors, %d bytes\n", f.Version, f.KVCount, f.TensorCount, f.Size)
	for _, kv := range f.Metadata {
		fmt.Printf("%-22s %-15s %s\n", kv.Key, kv.Value.TypeName(), kv.Value.Format(4))
	}
	for _, t := range f.Tensors {
		fmt.Printf("%-6s %-4v dims %-8s shape %-8s at +%d\n", t.Name, t.Type, fmt.Sprint(t.Dims), fmt.Sprint(t.Shape()), t.Offset)
	}
	fmt.Printf("data section at byte %d (alignment %d)\n", f.DataOffset, f.Alignment)
	// Output:
	// GGUF v3: 22 metadata entries, 8 tensors, 2848 bytes
	// general.architecture   STRING          "sample"
	// sample.u8              UINT8           200
	// sample.i8              INT8            -100
	// sample.u16             UINT16          60000
	// sample.i16             INT16           -30000
	// sample.u32             UINT32          4000000000
	// sample.i32             INT32           -2000000000
	// sample.f32             FLOAT32         0.15625
	// sample.bool_true       BOOL            true
	// sample.bool_false      BOOL            false
	// sample.string          STRING          "héllo, 世界 🌍"
	// sample.empty_string    STRING          ""
	// sample.u64             UINT64          18000000000000000000
	// sample.i64             INT64           -9000000000000000000
	// sample.f64             FLOAT64         -2.718281828459045
	// sample.array_u8        ARRAY[UINT8]    [1 2 255]
	// sample.array_i32       ARRAY[INT32]    [-1 0 1 2147483647]
	// sample.array_f32       ARRAY[FLOAT32]  [0.5 -1.25 3]
	// sample.array_string    ARRAY[STRING]   ["a" "" "Ġthe" "<|im_end|>"]
	// sample.array_bool      ARRAY[BOOL]     [true false true]
	// sample.nested          ARRAY[ARRAY]    [[1 2 3] [4] [5 6]]
	// sample.nested_strings  ARRAY[ARRAY]    [["x" "y"] ["z"]]
	// f32    F32  dims [8 3]    shape [3 8]    at +0
	// f32_3d F32  dims [4 3 2]  shape [2 3 4]  at +96
	// f16    F16  dims [16 4]   shape [4 16]   at +192
	// bf16   BF16 dims [16 4]   shape [4 16]   at +320
	// q8_0   Q8_0 dims [64 3]   shape [3 64]   at +448
	// q4_0   Q4_0 dims [64 2]   shape [2 64]   at +672
	// q4_k   Q4_K dims [256 2]  shape [2 256]  at +768
	// q6_k   Q6_K dims [256 2]  shape [2 256]  at +1056
	// data section at byte 1344 (alignment 32)
}

// The tiny reference checkpoint's configuration, read from GGUF metadata.
func ExampleConfigFromGGUF() {
	f, err := gguf.Open(reference.TinyGGUF())
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	c, err := gguf.ConfigFromGGUF(f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d layers, hidden %d, %d/%d heads of %d, vocab %d, theta %g, eps %g, tied %v\n",
		c.NumHiddenLayers, c.HiddenSize, c.NumAttentionHeads, c.NumKeyValueHeads, c.HeadDim, c.VocabSize,
		c.RopeTheta, c.RMSNormEps, c.TieWordEmbeddings)
	tokens, _ := f.Strings("tokenizer.ggml.tokens")
	fmt.Printf("token 9707 is %q; the tensor data starts at byte %d\n", tokens[9707], f.DataOffset)
	// Output:
	// 6 layers, hidden 64, 4/2 heads of 32, vocab 151936, theta 1e+06, eps 1e-06, tied true
	// token 9707 is "Hello"; the tensor data starts at byte 5936864
}

// Where Qwen3-0.6B's 596 million parameters are, and what they cost in each ggml type.
func ExampleCountParams() {
	c := gguf.Qwen3_0_6B()
	p := gguf.CountParams(c)
	fmt.Printf("embedding %11d\nattention %11d\nMLP       %11d\nnorms     %11d\ntotal     %11d\n",
		p.Embedding, p.Attention, p.MLP, p.Norms, p.Total())
	for _, t := range []gguf.GGMLType{gguf.TypeF32, gguf.TypeBF16, gguf.TypeQ8_0, gguf.TypeQ6_K, gguf.TypeQ4_K} {
		fmt.Printf("%-4v %6.4f bytes/weight %13d bytes\n", t, t.BytesPerWeight(), gguf.WeightBytes(c, t))
	}
	// Output:
	// embedding   155582464
	// attention   176160768
	// MLP         264241152
	// norms           65536
	// total       596049920
	// F32  4.0000 bytes/weight    2384199680 bytes
	// BF16 2.0000 bytes/weight    1192230912 bytes
	// Q8_0 1.0625 bytes/weight     633495552 bytes
	// Q6_K 0.8203 bytes/weight     489155584 bytes
	// Q4_K 0.5625 bytes/weight     335503360 bytes
}

func ExampleHFName() {
	hf, _ := gguf.HFName("blk.3.attn_q.weight")
	g, _ := gguf.GGUFName("model.layers.27.mlp.down_proj.weight")
	fmt.Println(hf)
	fmt.Println(g)
	// Output:
	// model.layers.3.self_attn.q_proj.weight
	// blk.27.ffn_down.weight
}

// One Q8_0 block: a float16 scale d = 0.5 (bits 0x3800) and 32 signed bytes; y = d*q.
func ExampleDequantize() {
	block := binary.LittleEndian.AppendUint16(nil, 0x3800)
	for j := range 32 {
		block = append(block, byte(int8(j-16)))
	}
	y := make([]float32, 32)
	if err := gguf.Dequantize(y, gguf.TypeQ8_0, block); err != nil {
		log.Fatal(err)
	}
	fmt.Println(y[:4], y[28:])
	// Output:
	// [-8 -7.5 -7 -6.5] [6 6.5 7 7.5]
}
