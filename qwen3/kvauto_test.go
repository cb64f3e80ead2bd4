package qwen3

import (
	"context"
	"math"
	"testing"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/reference"
)

// TestKVAutoMemory: the sizes that KVAuto's documentation gives to justify its line, computed
// from Qwen3-0.6B's config.json (chapter 01's gguf.Qwen3_0_6B) by the function the engine sizes
// its caches with: a token's keys and values, a cache of DefaultMaxContext and of 32,768 tokens,
// sixteen sequences of DefaultMaxContext in a batch.
func TestKVAutoMemory(t *testing.T) {
	s := sizesOf(gguf.Qwen3_0_6B())
	f32, f16 := s.kvBytes(KVFloat32), s.kvBytes(KVFloat16)
	const MiB, GiB = 1 << 20, 1 << 30
	for _, tc := range []struct {
		what      string
		got, want float64
	}{
		{"bytes per token, float32", float64(f32), 229376},
		{"bytes per token, float16", float64(f16), 114688},
		{"KVAuto's bytes per token (float32's)", float64(s.kvBytes(KVAuto)), 229376},
		{"MiB of a float32 cache of DefaultMaxContext tokens", float64(DefaultMaxContext*f32) / MiB, 896},
		{"GiB of a float32 cache of 32,768 tokens", float64(32768*f32) / GiB, 7},
		{"GiB of a float16 cache of 32,768 tokens", float64(32768*f16) / GiB, 3.5},
		{"GiB of 16 float32 caches of DefaultMaxContext tokens", float64(16*DefaultMaxContext*f32) / GiB, 14},
		{"GiB of 16 float16 caches of DefaultMaxContext tokens", float64(16*DefaultMaxContext*f16) / GiB, 7},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, KVAuto's documentation says %v", tc.what, tc.got, tc.want)
		}
	}
}

// TestKVAuto: under the default KV type (KVAuto) Model.NewCache makes float32 caches of up to
// DefaultMaxContext tokens and float16 ones past it, Batch.NewCache makes float16 ones; a type
// given to WithKVCache holds for every cache, a Batch's too. Each cache's BytesPerToken is its
// type's; a Batch steps a float32 and a float16 cache together and gives each, bit for bit, the
// logits it gets stepped alone.
func TestKVAuto(t *testing.T) {
	type want struct {
		single, long, batch KVType // NewCache(DefaultMaxContext), NewCache(DefaultMaxContext+1), Batch.NewCache(0)
		elem                int64  // the bytes of a cached value that KVBytesPerToken counts
	}
	for _, tc := range []struct {
		opts []LoadOption
		want want
	}{
		{nil, want{KVFloat32, KVFloat16, KVFloat16, 4}},
		{[]LoadOption{WithKVCache(KVAuto)}, want{KVFloat32, KVFloat16, KVFloat16, 4}},
		{[]LoadOption{WithKVCache(KVFloat32)}, want{KVFloat32, KVFloat32, KVFloat32, 4}},
		{[]LoadOption{WithKVCache(KVFloat16)}, want{KVFloat16, KVFloat16, KVFloat16, 2}},
	} {
		m, err := Load(t.Context(), reference.TinyGGUF(), append(tc.opts, WithThreads(1))...)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		b, err := m.NewBatch(2)
		if err != nil {
			t.Fatal(err)
		}
		made := func(what string, c *Cache, err error, want KVType) *Cache {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			if c.Type() != want {
				t.Errorf("model of KV type %v: %s is %v, want %v", m.KVCache(), what, c.Type(), want)
			}
			if got, want := c.BytesPerToken(), m.kvBytes(want); got != want {
				t.Errorf("model of KV type %v: %s's BytesPerToken %d, want %d", m.KVCache(), what, got, want)
			}
			return c
		}
		c, err := m.NewCache(0)
		made("NewCache(0)", c, err, tc.want.single)
		c, err = m.NewCache(DefaultMaxContext)
		single := made("NewCache(DefaultMaxContext)", c, err, tc.want.single)
		c, err = m.NewCache(DefaultMaxContext + 1)
		made("NewCache(DefaultMaxContext+1)", c, err, tc.want.long)
		c, err = b.NewCache(0)
		batched := made("Batch.NewCache(0)", c, err, tc.want.batch)
		cfg := m.Config()
		if want := 2 * tc.want.elem * int64(cfg.NumHiddenLayers*cfg.NumKeyValueHeads*cfg.HeadDim); m.KVBytesPerToken() != want {
			t.Errorf("model of KV type %v: KVBytesPerToken %d, want %d", m.KVCache(), m.KVBytesPerToken(), want)
		}

		// A batch of the two types against each stepped alone.
		ids := []int{3, 141, 59, 265, 358}
		var alone [2][]float32
		for i, kv := range []KVType{single.Type(), batched.Type()} {
			c, err := m.newCache(64, kv == KVFloat16 && m.KVCache() == KVAuto)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Type() != kv {
				t.Fatalf("the lone cache is %v, want %v", c.Type(), kv)
			}
			if _, err := c.Prefill(context.Background(), ids[:4]); err != nil {
				t.Fatal(err)
			}
			l, err := c.Step(ids[4])
			if err != nil {
				t.Fatal(err)
			}
			alone[i] = append([]float32(nil), l...)
		}
		for _, c := range []*Cache{single, batched} {
			if _, err := c.Prefill(context.Background(), ids[:4]); err != nil {
				t.Fatal(err)
			}
		}
		got, err := b.Step([]*Cache{single, batched}, []int{ids[4], ids[4]})
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			for j, v := range got[i] {
				if math.Float32bits(v) != math.Float32bits(alone[i][j]) {
					t.Fatalf("model of KV type %v: a batch of a %v and a %v cache: cache %d's logit %d is %v, alone %v",
						m.KVCache(), single.Type(), batched.Type(), i, j, v, alone[i][j])
				}
			}
		}
	}
}

// TestHugeCacheMax: the sizes that hugeCacheMax's documentation gives, computed from Qwen3-0.6B's
// config.json by the function newCache sizes its mappings with: the longest caches under the
// line, scripts/bench's sixteen batch caches of 193 tokens in 4 KB and 2 MB pages, and what 2 MB
// pages would commit at the first token of a DefaultMaxContext cache.
func TestHugeCacheMax(t *testing.T) {
	s := sizesOf(gguf.Qwen3_0_6B())
	longest := func(kv KVType) int {
		n := 0
		for s.cacheBytes(kv, n+1) <= hugeCacheMax {
			n++
		}
		return n
	}
	batch := s.cacheBytes(KVFloat16, 128+64+1)
	const page, huge = 4 << 10, 2 << 20
	regions := s.Layers * s.KVHeads * 2 // a key and a value region per layer and head
	for _, tc := range []struct {
		what      string
		got, want int
	}{
		{"the longest float32 cache in huge pages, tokens", longest(KVFloat32), 288},
		{"the longest float16 cache in huge pages, tokens", longest(KVFloat16), 578},
		{"4 KB pages of 16 float16 caches of 193 tokens", 16 * ((batch + page - 1) / page), 89824},
		{"2 MB pages of 16 float16 caches of 193 tokens", 16 * ((batch + huge - 1) / huge), 176},
		{"regions of a cache", regions, 448},
		{"MiB of a huge page per region", regions * huge >> 20, 896},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %d, hugeCacheMax's documentation says %d", tc.what, tc.got, tc.want)
		}
	}
	if s.cacheBytes(KVFloat32, DefaultMaxContext) <= hugeCacheMax {
		t.Errorf("a float32 cache of DefaultMaxContext tokens (%d bytes) would be in huge pages", s.cacheBytes(KVFloat32, DefaultMaxContext))
	}
}
