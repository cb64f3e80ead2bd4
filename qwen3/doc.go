// Package qwen3 is the course's chapters assembled into a runnable, fast Qwen3: load a GGUF file or
// a Hugging Face directory, generate text, chat, decode several sequences together.
//
//	m, err := qwen3.Load(ctx, "Qwen3-0.6B-Q8_0.gguf")   // or a directory with config.json + safetensors
//	if err != nil { ... }
//	defer m.Close()
//	text, stats, err := m.Generate(ctx, "The capital of France is", qwen3.ReplyOptions{}, onText)
//	chat, err := m.NewChat(qwen3.ChatOptions{System: "You are terse."})   // thinking off
//	reply, err := chat.Send(ctx, "What is 2+2?", onText)
//	texts, stats, err := m.GenerateBatch(ctx, []string{"Hello", "Once upon a time"}, qwen3.ReplyOptions{},
//		func(seq int, piece string) error { ... })   // several prompts decoded together
//
// This page states what the package promises; how fast it runs, the options' costs and the
// measurements behind its design are in qwen3/README.md, and the examples run on the course's
// tiny reference checkpoint.
//
// # The pieces
//
// Load's settings are LoadOption values (WithThreads, WithKVCache, ...); one reply's are ReplyOptions
// (sampling, token budget, stop tokens, context length); a conversation's are ChatOptions (the
// system prompt, thinking, and the ReplyOptions of its turns). Generate, GenerateBatch and Chat
// are built on two lower-level types that a program scheduling sequences itself (a server's
// slots) holds directly: a Cache is one sequence's KV cache, chapter 08's Cache in the engine
// (Prefill, Step, Truncate to a prefix the next prompt shares, Reset), and a Batch steps one
// token of several caches in one forward pass, each at its own position (chapter 10's lesson,
// without padding).
//
// The course's own types are used where they are the lesson: the checkpoint's configuration is
// chapter 01's gguf.Config (Model.Config), the text goes through chapter 02's Tokenizer
// (Model.Tokenizer: encoding, streaming decoding, the chat template), RoPE's frequencies and
// float32 angles are chapter 04's, and tokens are chosen by chapter 09's Sampler with its
// sampling.Settings (Sampling changes the checkpoint's settings; Model.Settings resolves it).
// The package owns only what must differ to be fast: float32 activations, weights kept in the
// file's precision and decoded inside the kernels (internal/kernels: plain Go, AVX2 and AVX-512
// on amd64, NEON and SDOT on arm64; see Kernels), the KV cache's layout and its tiled attention
// with an online softmax, the worker pool, and its own generation loop (its logits are float32
// and owned by a cache, its top-k shortcut hands the sampler only the surviving candidates, and
// a chat turn continues a cache that already holds the shared prefix).
//
// # Zero values
//
// Zero means "the default" everywhere, and a default is the checkpoint's or "off": no
// LoadOption loads with a goroutine per core the Go runtime may use (runtime.GOMAXPROCS, which
// on Linux follows a container's CPU limit since Go 1.25), the KV cache's type chosen per cache
// (KVAuto: float32 for one sequence of up to DefaultMaxContext tokens, float16 for a longer one
// and for a Batch's) and int16 inputs for the block-quantized matrices; WithThreads(0) is that same default. The zero ReplyOptions samples with the
// checkpoint's recommended settings (generation_config.json or the GGUF's general.sampling.*
// keys) and seed 0, up to DefaultMaxNewTokens new tokens, in a context of min(DefaultMaxContext,
// the model's) tokens; a field of Sampling that is set replaces one recommended setting
// (Sampling{Temperature: new(0.0)} is greedy). The zero ChatOptions has no system prompt and
// thinking off. The qwen3 command thinks unless -think=false, as Qwen3's chat template does.
// A KVType that is none of KVAuto, KVFloat32 and KVFloat16 (made by a conversion) makes Load fail.
//
// # Memory
//
// The weights stay in the file's bytes: a GGUF file's are read into transparent huge pages on
// Linux where the kernel offers them and the file fits in half the memory available to the
// process (WithoutHugePages: left in the mapped file), a Hugging Face directory's stay mapped.
// A KV cache of n tokens takes n times Cache.BytesPerToken of address space outside the Go heap
// (mapped from the operating system on Linux, macOS and FreeBSD; the Go heap elsewhere), whose
// pages are committed as tokens fill them and returned by Cache.Close. Generate keeps one cache
// in the model between calls and reuses it, so that calls one after another do not grow the
// process (Model.Close returns it); GenerateBatch returns its caches when it returns; a Chat
// holds one until Chat.Close. The forward pass's buffers are allocated once per model, and a
// decode step, alone or in a Batch, allocates nothing.
//
// # Concurrency
//
// A loaded Model is safe for concurrent use: any number of goroutines may generate at once,
// each with its own Cache, Batch or Chat. Their forward passes take turns, one at a time, each
// over all the cores, so goroutines that generate at once share the cores rather than gain
// speed (a Batch is the way to make several sequences cheaper). A Cache, Batch or Chat is for
// one goroutine at a time. The package's tests run under the race detector in CI.
//
// # Errors
//
// An error the package makes starts with "qwen3: " once, followed by what each step knows
// ("qwen3: batch step: cache 1: context is full: 2 cached + 1 new tokens > 2"); errors that
// programs test for are wrapped, so that errors.Is finds them: ErrContextFull when a cache has
// no room (Generate stops a reply at a full context without an error, Stats.Finish says so),
// ErrClosed for a model or cache used after Close. A cancelled context's error, and an error
// returned by the caller's callback, come back as they were. Bad input (a file, a prompt, a
// setting) is an error that says what and where, never a panic. A panic inside the engine, on
// any of its goroutines (a kernel given shapes it cannot take), comes back as a *PanicError that
// names the function that panicked and what the engine was computing; the tokens of that pass do
// not join their caches and the model stays usable. Model.Close while another goroutine
// generates waits for the forward pass in progress, and that goroutine's next pass returns an
// error wrapping ErrClosed: never a read of released memory.
//
// # Exactness
//
// The tests check these against reference numbers: the engine's logits match transformers'
// within 1e-4 (absolute) on the tiny reference model, and chapter 07's float64 forward pass
// within 5e-6 of the largest logit on the same weights; its greedy tokens are transformers'
// generate() tokens. Decoding a block-quantized type rounds the inputs of its matrices to int16
// blocks so that its dot products multiply integers (tolerance 2e-3 of the largest logit against
// chapter 07, 5e-4 for prompts); WithExactActivations keeps them float32, and the float32
// tolerance holds again on the dequantized weights. These hold for a float32 cache: by default
// (KVAuto) one sequence's cache of up to DefaultMaxContext tokens. A float16 cache (a longer one,
// a Batch's by default, or every cache WithKVCache(KVFloat16)) rounds each cached key and value
// to half precision, llama.cpp's default (tolerance 3e-3 of the largest logit on the tiny model,
// 2e-3 on a random full-width one). A Batch's step of up to 11 caches gives, bit for bit, the
// logits and caches of stepping each cache alone (from 12 on, on AVX-512 VNNI, it is held to
// Step's tolerance against chapter 07 instead: see Batch.Step); Batch.Run, which mixes a prompt's
// chunk with other caches' decoding tokens in one pass, gives the chunk Prefill's bits and each
// decoding token Step's tolerance. A prompt's chunks give the logits of its tokens stepped one at
// a time within float32 rounding.
package qwen3
