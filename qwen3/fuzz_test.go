package qwen3

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/reference"
)

// The fuzz targets of the engine: the whole load of a GGUF file held in memory (LoadGGUFBytes:
// chapter 01's parser, the configuration, chapter 02's tokenizer, the weights' shapes and types),
// generation_config.json, and a chat fed arbitrary messages in a small context. Run one for ten
// minutes with
//
//	nice -n 10 go test -run '^$' -fuzz '^FuzzLoadGGUFBytes$' -fuzztime 10m -parallel 1 ./qwen3

// ggufWriter writes the GGUF files of the fuzz targets (version 3, alignment 32): metadata in the
// order added, then the tensor table, then the data.
type ggufWriter struct {
	kv, info, data []byte
	nkv, ntensors  int
}

func appendStr(b []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint64(b, uint64(len(s))), s...)
}

func (w *ggufWriter) key(k string, typ uint32) {
	w.kv = binary.LittleEndian.AppendUint32(appendStr(w.kv, k), typ)
	w.nkv++
}

func (w *ggufWriter) str(k, v string) { w.key(k, 8); w.kv = appendStr(w.kv, v) }
func (w *ggufWriter) u32(k string, v uint32) {
	w.key(k, 4)
	w.kv = binary.LittleEndian.AppendUint32(w.kv, v)
}
func (w *ggufWriter) f32(k string, v float32) {
	w.key(k, 6)
	w.kv = binary.LittleEndian.AppendUint32(w.kv, math.Float32bits(v))
}

func (w *ggufWriter) strs(k string, v []string) {
	w.key(k, 9)
	w.kv = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(w.kv, 8), uint64(len(v)))
	for _, s := range v {
		w.kv = appendStr(w.kv, s)
	}
}

func (w *ggufWriter) i32s(k string, v []int32) {
	w.key(k, 9)
	w.kv = binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32(w.kv, 5), uint64(len(v)))
	for _, x := range v {
		w.kv = binary.LittleEndian.AppendUint32(w.kv, uint32(x))
	}
}

// tensor adds a tensor; dims are ggml's, fastest first.
func (w *ggufWriter) tensor(name string, dims []uint64, typ gguf.GGMLType, data []byte) {
	for len(w.data)%gguf.DefaultAlignment != 0 {
		w.data = append(w.data, 0)
	}
	w.info = binary.LittleEndian.AppendUint32(appendStr(w.info, name), uint32(len(dims)))
	for _, d := range dims {
		w.info = binary.LittleEndian.AppendUint64(w.info, d)
	}
	w.info = binary.LittleEndian.AppendUint32(w.info, uint32(typ))
	w.info = binary.LittleEndian.AppendUint64(w.info, uint64(len(w.data)))
	w.data = append(w.data, data...)
	w.ntensors++
}

func (w *ggufWriter) bytes() []byte {
	b := binary.LittleEndian.AppendUint32([]byte(gguf.Magic), 3)
	b = binary.LittleEndian.AppendUint64(b, uint64(w.ntensors))
	b = binary.LittleEndian.AppendUint64(b, uint64(w.nkv))
	b = append(append(b, w.kv...), w.info...)
	for len(b)%gguf.DefaultAlignment != 0 {
		b = append(b, 0)
	}
	return append(b, w.data...)
}

// ggufSpec is a GGUF file before it is written: metadata entries and tensors in order, which
// tests edit (drop a key, change a value, a tensor's type or shape) before bytes writes them.
type ggufSpec struct {
	meta    []ggufMeta
	tensors []ggufTensor
}

type ggufMeta struct {
	key string
	put func(w *ggufWriter) // writes the entry
}

type ggufTensor struct {
	name string
	dims []uint64 // ggml's order, fastest first
	typ  gguf.GGMLType
	data []byte
}

// set replaces (or appends) the metadata entry key.
func (s *ggufSpec) set(key string, put func(w *ggufWriter)) {
	for i := range s.meta {
		if s.meta[i].key == key {
			s.meta[i].put = put
			return
		}
	}
	s.meta = append(s.meta, ggufMeta{key, put})
}

// drop removes the metadata entry or tensor named name.
func (s *ggufSpec) drop(name string) {
	s.meta = slices.DeleteFunc(s.meta, func(m ggufMeta) bool { return m.key == name })
	s.tensors = slices.DeleteFunc(s.tensors, func(t ggufTensor) bool { return t.name == name })
}

// tensor returns the tensor named name, to edit.
func (s *ggufSpec) tensor(name string) *ggufTensor {
	for i := range s.tensors {
		if s.tensors[i].name == name {
			return &s.tensors[i]
		}
	}
	panic("no tensor " + name)
}

func (s *ggufSpec) bytes() []byte {
	w := &ggufWriter{}
	for _, m := range s.meta {
		m.put(w)
	}
	for _, t := range s.tensors {
		w.tensor(t.name, t.dims, t.typ, t.data)
	}
	return w.bytes()
}

// encodeValues stores float32 values as typ (F32, F16, BF16, F64 or Q8_0).
func encodeValues(typ gguf.GGMLType, v []float32) []byte {
	var b []byte
	switch typ {
	case gguf.TypeQ8_0:
		b, _ = gguf.QuantizeQ8_0(v)
	case gguf.TypeBF16:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, gguf.F32ToBF16(x))
		}
	case gguf.TypeF16:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint16(b, gguf.F32ToF16(x))
		}
	case gguf.TypeF64:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(x)))
		}
	default:
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	return b
}

// smallQwen3 is a Qwen3 checkpoint small enough to fuzz (about 28 KB as GGUF): the 256 byte-level
// tokens, two merges and three special tokens; hidden 32, one layer, two query heads and one KV
// head of 16, intermediate 64, a context of 1024; its matrices in four storage types (Q8_0, BF16,
// F16, F32), their weights drawn from a seeded generator.
func smallQwen3() *ggufSpec {
	const hidden, inter, heads, kvHeads, headDim = 32, 64, 2, 1, 16
	var tokens []string
	for _, r := range tokenizer.ByteToRune() {
		tokens = append(tokens, string(r))
	}
	merges := []string{"Ġ t", "h e"}
	tokens = append(tokens, "Ġt", "he")
	types := slices.Repeat([]int32{int32(tokenizer.TypeNormal)}, len(tokens))
	for _, s := range []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"} {
		tokens, types = append(tokens, s), append(types, int32(tokenizer.TypeControl))
	}
	vocab := len(tokens)

	s := &ggufSpec{}
	str := func(k, v string) { s.set(k, func(w *ggufWriter) { w.str(k, v) }) }
	u32 := func(k string, v uint32) { s.set(k, func(w *ggufWriter) { w.u32(k, v) }) }
	f32 := func(k string, v float32) { s.set(k, func(w *ggufWriter) { w.f32(k, v) }) }
	str("general.architecture", "qwen3")
	u32("qwen3.embedding_length", hidden)
	u32("qwen3.feed_forward_length", inter)
	u32("qwen3.block_count", 1)
	u32("qwen3.attention.head_count", heads)
	u32("qwen3.attention.head_count_kv", kvHeads)
	u32("qwen3.attention.key_length", headDim)
	u32("qwen3.context_length", 1024)
	f32("qwen3.rope.freq_base", 1e6)
	f32("qwen3.attention.layer_norm_rms_epsilon", 1e-6)
	str("tokenizer.ggml.model", "gpt2")
	str("tokenizer.ggml.pre", "qwen2")
	s.set("tokenizer.ggml.tokens", func(w *ggufWriter) { w.strs("tokenizer.ggml.tokens", tokens) })
	s.set("tokenizer.ggml.token_type", func(w *ggufWriter) { w.i32s("tokenizer.ggml.token_type", types) })
	s.set("tokenizer.ggml.merges", func(w *ggufWriter) { w.strs("tokenizer.ggml.merges", merges) })
	u32("tokenizer.ggml.eos_token_id", uint32(vocab-1))
	f32("general.sampling.temp", 0.6)

	r := rand.New(rand.NewPCG(1, 2))
	values := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(scale * r.NormFloat64())
		}
		return v
	}
	matrix := func(name string, typ gguf.GGMLType, rows, cols int) {
		v := values(rows*cols, 1/math.Sqrt(float64(cols)))
		s.tensors = append(s.tensors, ggufTensor{name, []uint64{uint64(cols), uint64(rows)}, typ, encodeValues(typ, v)})
	}
	norm := func(name string, n int) {
		v := values(n, 0.1)
		for i := range v {
			v[i]++
		}
		s.tensors = append(s.tensors, ggufTensor{name, []uint64{uint64(n)}, gguf.TypeF32, encodeValues(gguf.TypeF32, v)})
	}
	matrix("token_embd.weight", gguf.TypeQ8_0, vocab, hidden)
	norm("blk.0.attn_norm.weight", hidden)
	matrix("blk.0.attn_q.weight", gguf.TypeBF16, heads*headDim, hidden)
	matrix("blk.0.attn_k.weight", gguf.TypeF16, kvHeads*headDim, hidden)
	matrix("blk.0.attn_v.weight", gguf.TypeF32, kvHeads*headDim, hidden)
	matrix("blk.0.attn_output.weight", gguf.TypeQ8_0, hidden, heads*headDim)
	norm("blk.0.attn_q_norm.weight", headDim)
	norm("blk.0.attn_k_norm.weight", headDim)
	norm("blk.0.ffn_norm.weight", hidden)
	matrix("blk.0.ffn_gate.weight", gguf.TypeBF16, inter, hidden)
	matrix("blk.0.ffn_up.weight", gguf.TypeF16, inter, hidden)
	matrix("blk.0.ffn_down.weight", gguf.TypeQ8_0, hidden, inter)
	norm("output_norm.weight", hidden)
	return s
}

// smallQwen3GGUF is smallQwen3 written as a GGUF file.
func smallQwen3GGUF() []byte { return smallQwen3().bytes() }

// engineAllocPerByte bounds what loading n bytes of a GGUF file may allocate
// (reference.AllocBound): the tokenizer's tables (chapter 02's bound, 128 per byte) dominate;
// weights are used where they are, or widened from at least a byte per value.
const engineAllocPerByte = 128

// FuzzLoadGGUFBytes feeds arbitrary bytes to LoadGGUFBytes. A file is refused with an error that
// names it, or it loads into a model that can run: a session opens and a prompt of its own tokens
// prefills and decodes three tokens without an error. Loading allocates at most
// engineAllocPerByte per input byte, whatever sizes the file claims.
func FuzzLoadGGUFBytes(f *testing.F) {
	f.Add(smallQwen3GGUF())
	f.Fuzz(func(t *testing.T, b []byte) {
		var m *Model
		var err error
		if e := reference.CheckAllocBound(len(b), engineAllocPerByte, func() {
			if m != nil { // measured again: the model of the last measure is not needed
				m.Close()
			}
			m, err = LoadGGUFBytes(t.Context(), "fuzz.gguf", b, WithThreads(1))
		}); e != nil {
			t.Fatal(e)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.gguf") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		defer m.Close()
		checkDefaults(t, m, m.Defaults())
		s, err := m.NewCache(min(16, m.sizes.MaxContext))
		if err != nil {
			t.Fatalf("the model loaded, but a session cannot open: %v", err)
		}
		ids := m.Tokenizer().Encode("the <|im_start|>")
		ids = ids[:min(len(ids), s.MaxLen()-3)]
		if len(ids) == 0 {
			return
		}
		if _, err := s.Prefill(t.Context(), ids); err != nil {
			t.Fatalf("the model loaded, but prefilling %v fails: %v", ids, err)
		}
		for range 3 {
			if _, err := s.Step(ids[0]); err != nil {
				t.Fatalf("the model loaded, but a decoding step fails: %v", err)
			}
		}
	})
}

// FuzzGenerationConfig feeds arbitrary bytes to the reader of generation_config.json: it fails
// with an error naming the file, or gives defaults whose stop tokens include both of Qwen3's end
// tokens, and whose sampling settings Model.Settings checks (a nonsense one, say top_p 7, is
// refused there with an error naming it, never used).
func FuzzGenerationConfig(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join(reference.TinyHFDir(), "generation_config.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"eos_token_id": [151645, 151643], "temperature": 0.7, "top_k": 20, "top_p": 0.8, "min_p": 0}`))
	f.Add([]byte(`{"eos_token_id": 5, "top_p": 7}`))
	f.Add([]byte(`{"temperature": 0.7,`))
	m := smallModel(f)
	path := filepath.Join(f.TempDir(), "generation_config.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := hfDefaults(path, m.Tokenizer())
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		checkDefaults(t, m, d)
	})
}

// checkDefaults asserts what a checkpoint's defaults must give: both of Qwen3's end tokens stop a
// reply, and the sampling settings they recommend are in range, or Settings refuses them.
func checkDefaults(t *testing.T, m *Model, d Defaults) {
	t.Helper()
	for _, s := range []string{"<|im_end|>", "<|endoftext|>"} {
		if id, ok := m.Tokenizer().TokenID(s); ok && !slices.Contains(d.Stop, id) {
			t.Fatalf("stop tokens %v lack %s", d.Stop, s)
		}
	}
	mm := *m
	mm.defaults = d
	if st, err := mm.Settings(Sampling{}); err == nil {
		if !(st.Temperature >= 0) || st.TopK < 0 || !(st.TopP > 0 && st.TopP <= 1) || !(st.MinP >= 0 && st.MinP <= 1) {
			t.Fatalf("defaults %+v give settings %+v that Settings accepts", d, st)
		}
	}
}

// smallModels caches the model of smallQwen3GGUF per test binary.
var smallModels = sync.OnceValues(func() (*Model, error) {
	return LoadGGUFBytes(context.Background(), "small.gguf", smallQwen3GGUF(), WithThreads(1))
})

func smallModel(tb testing.TB) *Model {
	tb.Helper()
	m, err := smallModels()
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// FuzzChat sends arbitrary messages (the input cut at NUL bytes) to a chat with the small model in a
// context of 48 to 813 tokens, so that old turns are dropped and some messages do not fit. Each
// Send either replies, and the conversation grows by the message and the reply, or fails: for an
// empty message and for one that does not fit with the system prompt (ErrContextFull), and then the
// conversation is as it was. The cache never holds more than the context, and the turns dropped
// are whole turns, never more than there are.
func FuzzChat(f *testing.F) {
	f.Add([]byte("hi\x00the he\x00\x00<|im_start|>system\nx<|im_end|>"), uint8(0), "terse", false)
	f.Add([]byte(strings.Repeat("a long message ", 12)+"\x00ok"), uint8(3), "", true)
	m := smallModel(f)
	f.Fuzz(func(t *testing.T, data []byte, ctx uint8, system string, thinking bool) {
		c, err := m.NewChat(ChatOptions{System: system, Thinking: thinking, Reply: ReplyOptions{
			MaxContext: 48 + 3*int(ctx), MaxNewTokens: 4, Sampling: greedy, Stop: []int{},
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		for _, msg := range strings.Split(string(data), "\x00") {
			before := slices.Clone(c.Messages())
			dropped := c.Dropped()
			reply, err := c.Send(context.Background(), msg, nil)
			after := c.Messages()
			switch {
			case strings.TrimSpace(msg) == "":
				if err == nil {
					t.Fatalf("the empty message %q was sent", msg)
				}
			case errors.Is(err, ErrContextFull):
			case err != nil:
				t.Fatalf("Send(%q): %v", msg, err)
			}
			if err != nil {
				if !slices.Equal(after, before) || c.Dropped() != dropped {
					t.Fatalf("Send(%q) failed (%v) and changed the conversation: %d messages, %d dropped; were %d, %d",
						msg, err, len(after), c.Dropped(), len(before), dropped)
				}
				continue
			}
			want := append(before, tokenizer.Message{Role: "user", Content: msg}, tokenizer.Message{Role: "assistant", Content: reply})
			if !slices.Equal(after, want) {
				t.Fatalf("after Send(%q): %v, want %v", msg, after, want)
			}
			if used, size := c.Context(); used > size {
				t.Fatalf("the cache holds %d tokens of %d", used, size)
			}
			if n := len(c.messages); c.Dropped()%2 != 0 || c.Dropped() > n-2 {
				t.Fatalf("%d messages dropped of %d: not whole turns before the last", c.Dropped(), n)
			}
			if c.Last().NewTokens > 4 {
				t.Fatalf("%d new tokens, at most 4 asked", c.Last().NewTokens)
			}
		}
	})
}

// FuzzPicker compares the engine's picker (float32 logits; top-k candidates found with a heap and
// only they handed to chapter 09) with chapter 09's Sampler on the whole vocabulary, for arbitrary
// logits (ties, -Inf, +Inf and NaN among them) and settings: the same token with the same seed, or
// an error from both.
func FuzzPicker(f *testing.F) {
	f.Add([]byte{1, 0, 2, 0, 2, 0, 0, 0}, 0.7, 2, 0.9, 0.0, uint64(1))
	f.Add([]byte{0, 0x80, 9, 0, 9, 0, 9, 0}, 0.0, 0, 1.0, 0.0, uint64(2))
	f.Add([]byte{1, 0x7f, 3, 0, 0xff, 0x7f}, 1.0, 1, 0.5, 0.1, uint64(3))
	f.Add([]byte{1, 0, 0xfe, 0x7f}, 0.0, 0, 1.0, 0.0, uint64(4)) // greedy, a NaN
	f.Fuzz(func(t *testing.T, raw []byte, temp float64, topK int, topP, minP float64, seed uint64) {
		var logits []float32
		for i := 0; i+2 <= len(raw) && len(logits) < 512; i += 2 {
			v := int16(binary.LittleEndian.Uint16(raw[i:]))
			switch v {
			case math.MinInt16:
				logits = append(logits, float32(math.Inf(-1)))
			case math.MaxInt16:
				logits = append(logits, float32(math.Inf(1)))
			case math.MaxInt16 - 1:
				logits = append(logits, float32(math.NaN()))
			default:
				logits = append(logits, float32(v)/256)
			}
		}
		if len(logits) == 0 {
			return
		}
		s := sampling.Settings{Temperature: temp, TopK: topK, TopP: topP, MinP: minP, Seed: seed}
		sm, err := sampling.NewSampler(s)
		if err != nil {
			return
		}
		ref, _ := sampling.NewSampler(s)
		got, gotErr := newPicker(len(logits), sm).pick(logits)
		wide := make([]float64, len(logits))
		for i, v := range logits {
			wide[i] = float64(v)
		}
		want, wantErr := ref.Sample(wide)
		if (gotErr != nil) != (wantErr != nil) || gotErr == nil && got != want {
			t.Fatalf("settings %+v, logits %v: the picker gives %d, %v; chapter 09 gives %d, %v", s, logits, got, gotErr, want, wantErr)
		}
	})
}

// FuzzBatchStep gives Batch.Step arbitrary caches and ids: four caches of 4 to 8 tokens of the
// small model, partly filled, in any order, with repeats, nil, a closed cache, ids outside the
// vocabulary, full caches, and more or fewer ids than caches. A step that can run gives, bit for
// bit, the logits Cache.Step gives on a twin of each cache; any other is an error that leaves
// every cache as it was.
func FuzzBatchStep(f *testing.F) {
	f.Add([]byte{3, 4, 2, 7, 0, 8, 8, 5, 1, 3, 0, 10, 1, 20, 2, 30, 9, 2, 3, 40, 3, 50, 9})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 5, 0, 6, 1})
	f.Add([]byte{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 7, 1, 5, 6, 2})
	m := smallModel(f)
	vocab := m.sizes.Vocab
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
		batch, err := m.NewBatch(1 + next()%4)
		if err != nil {
			t.Fatal(err)
		}
		var caches, twins []*Cache
		for range 4 {
			maxLen, filled := 4+next()%5, next()
			ids := []int{257, 258, 116, 104, 101, 32, 260, 97}[:filled%(maxLen+1)]
			for _, list := range []*[]*Cache{&caches, &twins} {
				c, err := m.NewCache(maxLen)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if len(ids) > 0 {
					if _, err := c.Prefill(t.Context(), ids); err != nil {
						t.Fatal(err)
					}
				}
				*list = append(*list, c)
			}
		}
		closed, err := m.NewCache(4)
		if err != nil {
			t.Fatal(err)
		}
		closed.Close()
		for step := 0; step < 16 && len(data) > 0; step++ {
			n := next() % 6
			var in []*Cache
			var which, ids []int
			valid, seen := n >= 1 && n <= batch.Size(), map[int]bool{}
			for range n {
				k, id := next()%6, int(int8(next()))*3+130
				switch k {
				case 4:
					in, valid = append(in, nil), false
				case 5:
					in, valid = append(in, closed), false
				default:
					in = append(in, caches[k])
					valid = valid && !seen[k] && caches[k].Len() < caches[k].MaxLen()
					seen[k] = true
				}
				which, ids = append(which, k), append(ids, id)
				valid = valid && id >= 0 && id < vocab
			}
			if next()%8 == 0 {
				ids, valid = append(ids, 1), false
			}
			before := make([][]int, 4)
			for k, c := range caches {
				before[k] = slices.Clone(c.Tokens())
			}
			rows, err := batch.Step(in, ids)
			if !valid {
				if err == nil || !strings.HasPrefix(err.Error(), "qwen3: batch step: ") {
					t.Fatalf("step %d: caches %v, ids %v: %v, want an error", step, which, ids, err)
				}
				for k, c := range caches {
					if !slices.Equal(c.Tokens(), before[k]) {
						t.Fatalf("step %d: the failed step (%v) changed cache %d: %v, was %v", step, err, k, c.Tokens(), before[k])
					}
				}
				continue
			}
			if err != nil {
				t.Fatalf("step %d: caches %v, ids %v: %v", step, which, ids, err)
			}
			for i, k := range which {
				want, err := twins[k].Step(ids[i])
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(rows[i], want) {
					t.Fatalf("step %d: cache %d, id %d: the batch's logits differ from Step's", step, k, ids[i])
				}
			}
		}
	})
}
