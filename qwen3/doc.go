// Package qwen3 is the course's chapters assembled into a runnable, fast Qwen3: load a GGUF file or
// a Hugging Face directory, generate text, chat.
//
//	m, err := qwen3.Load("Qwen3-0.6B-Q8_0.gguf")   // or a directory with config.json + safetensors
//	if err != nil { ... }
//	defer m.Close()
//	text, stats, err := m.Generate(ctx, "The capital of France is", qwen3.Options{}, onText)
//	chat, err := m.NewChat(qwen3.ChatOptions{System: "You are terse."})   // thinking off
//	reply, err := chat.Send(ctx, "What is 2+2?", onText)
//	texts, stats, err := m.GenerateBatch(ctx, []string{"Hello", "Once upon a time"}, qwen3.Options{},
//		func(seq int, piece string) error { ... })   // several prompts decoded together
//
// Zero values mean "the checkpoint's default" or "off": the zero Options samples with the
// checkpoint's recommended settings (generation_config.json or the GGUF's general.sampling.*
// keys), up to 512 new tokens, in a context of min(4096, the model's) tokens (DefaultMaxNewTokens,
// DefaultMaxContext); a field of Sampling that is set replaces one recommended setting
// (Sampling{Temperature: new(0.0)} is greedy); the zero ChatOptions has no system prompt and
// thinking off. The qwen3 command uses the same defaults except one: it thinks unless
// -think=false, as Qwen3's own chat template does, where a zero ChatOptions means "off". Stats.Finish says why a reply ended;
// Options.Progress reports a long prompt's prefill. A Chat that fills its context leaves its
// oldest turns out of the model's view and goes on; Chat.Reset starts over with the same system
// prompt. The examples run on the course's tiny reference checkpoint.
//
// It reuses the chapters as they are: files through chapter 01 (package gguf), text through
// chapter 02 (package tokenizer: encoding, streaming decoding, the chat template), RoPE's
// frequencies and float32 angles from chapter 04, and token choice through chapter 09's sampler.
// It owns only what must differ to be fast, and is tested against the chapters and the reference:
//
//   - float32 activations instead of float64 gonum matrices;
//   - weights kept in the file's precision, never widened into a copy: F32 is used straight from
//     the file's bytes, BF16, F16, Q8_0, Q4_0, Q4_K and Q6_K are decoded inside the kernels
//     (internal/kernels: plain Go, AVX2 / AVX-512 assembly on amd64, NEON and SDOT on arm64; see
//     Kernels), because decoding one token has to stream every weight from memory once, and fewer
//     bytes per weight is the whole game on a CPU (GGUF types the kernels do not read are widened
//     to F32 at load); when decoding, the input of a block-quantized matrix is rounded to int16
//     blocks once per pass so that its dot products multiply integers (their own tolerance: 2e-3
//     against chapter 07; WithExactActivations turns the rounding off, below);
//   - attention over a packed KV cache in tiles of query rows, with an online softmax; the cache
//     float32, or float16 with WithKVCache(F16) (below);
//   - a GGUF file's weights read into transparent huge pages on Linux (2 MB on x86-64), where the
//     kernel offers them and the file fits in half the memory available to the process
//     (WithoutHugePages: left in the mapped file, as chapter 01 maps it). Decoding streams every weight once per token: in the
//     page cache's 4 KB pages, 400 MB are 100,000 pages scattered over physical memory, each a
//     TLB entry to walk and a boundary where the hardware prefetchers stop; in 2 MB pages they are
//     200 runs of consecutive memory. Decoding 48 tokens, huge pages against the mapping,
//     alternated 12 times in one process (2 threads, the AMD EPYC build machine, 2026-11-27):
//     Q4_0 1.11x, Q4_K_M 1.09x, Q6_K 1.07x, Q8_0 1.04x, BF16 and F32 1.02x; prompts the same
//     within the noise. The price: Load reads the whole file (Q8_0's 640 MB in 0.19-0.53 s
//     against 0.14-0.20 s to map it and touch every page; the kernel sometimes compacts memory to
//     find free 2 MB pages), and the copy is private, where processes mapping one file share it;
//   - a persistent worker pool that splits each matrix's rows over all cores;
//   - fused passes: Q, K and V in one pass over their rows; gate and up in one pass that also
//     applies SiLU; the residual adds inside the output and down projections;
//   - prompts processed in chunks of up to 128 tokens through a packed tile kernel (32 rows x 12
//     tokens), so each weight read from memory serves the whole chunk; the LM head (151,936 rows)
//     only for the last position;
//   - a KV cache and buffers allocated once per Session: a decode step allocates nothing;
//   - batched decoding (chapter 10 in the engine): a Batch steps one token of several Sessions in
//     one forward pass, so each weight read from memory makes a token for every sequence, and
//     the batched kernels decode each block of weights once for eight, four or two of them
//     (bit for bit what Step computes), while each token attends to its own Session's cache at
//     its own position (no padding needed);
//     GenerateBatch prefills prompts of any lengths, decodes them together, lets a sequence that
//     stops leave the batch, and streams each sequence's text to the callback with its index.
//
// Two Load options trade chapter 07's numbers for memory or speed the other way round; both are
// off by default, so that the engine's logits stay within float32 rounding of chapter 07's on the
// same weights:
//
//   - WithKVCache(F16) keeps the KV cache in half precision, llama.cpp's default. Qwen3-0.6B's
//     cache takes 224 KiB per token in float32 and 112 KiB in float16: a full 4,096-token context
//     896 MiB against 448 MiB, 32,768 tokens 7.0 GiB against 3.5 GiB, the whole 40,960 8.75 GiB
//     against 4.4 GiB (the Q8_0 weights are 610 MiB). Deep in a context a decoded token reads the
//     whole cache, so halving it speeds decoding up there (Q8_0 decoding 2,048 tokens deep,
//     one thread: 11.1-11.8 tokens/s against 5.2-8.5 with float32, two A/B pairs of scripts/bench
//     on the build machine, an AMD EPYC, 2026-11-25). The price: each key and value rounded to
//     11 significant bits moves the logits by 2.8e-4-3.1e-4 of the largest on the tiny model
//     and by 4.3e-4 on the random full-size checkpoint, against 1e-6 with the float32 cache. The
//     default stays float32 because this course checks every number against transformers (the
//     tiny model's golden logits within 1e-4), and because the operating system commits a
//     cache's pages only as tokens fill them: a 500-token chat costs 110 MiB either way. For long
//     contexts, qwen3 run and chat take -kv-cache f16.
//   - WithExactActivations keeps the inputs of the block-quantized matrices in float32, as chapter
//     07 does: decoding dots Q8_0 rows with a kernel that widens each weight inside the loop, and
//     decodes the 4- and 6-bit rows into a float32 buffer before dotting them; prompts take the
//     float tile. The engine then matches chapter 07 on the same dequantized weights within the
//     float32 tolerance (5e-6 of the largest logit; measured 8.2e-7 on the tiny model as Q8_0, and
//     4.9e-7 for Q8_0, 7.5e-7 for Q4_K_M on the random full-size checkpoint, where int16 inputs
//     give 7.8e-5 and 8.0e-5). It costs speed (one thread, two A/B pairs of scripts/bench on the
//     build machine): Q8_0 prompts run at 0.64-0.70 of the int16 speed and decode at 0.88-0.92;
//     Q4_K_M prompts at 0.76-0.79, decoding at 0.25 (its rows are decoded to float32 before each
//     dot product). The -exact flag of qwen3 run and chat sets it. Models without such matrices
//     are not affected.
//
// Concurrency: a loaded Model is read-only and may be shared by any number of goroutines, each
// with its own Session (or Batch, or Chat); a Session, Batch or Chat is for one goroutine at a
// time. The model's worker pool runs one matrix pass at a time, so goroutines that generate at
// once take turns pass by pass: they share the cores, not a speed-up (a Batch is the way to make
// several sequences cheaper). TestSessionsConcurrent checks this under the race detector in CI.
//
// It also has its own generation loop (generate.go) rather than chapter 09's Generate, for three
// reasons: its logits are float32 and owned by the session, its top-k shortcut hands chapter 09's
// sampler only the surviving candidates (same tokens, seed for seed, without a vocabulary-sized
// copy per step), and a chat turn continues a session whose cache already holds the shared prefix.
// Token choice itself is chapter 09's Sampler.
//
// Its logits match transformers' within 1e-4 (absolute) on the tiny reference model and chapter
// 07's float64 forward pass within 5e-6 of the largest logit (2e-3 when decoding block-quantized
// types, which round activations to int16), and its greedy tokens are transformers' generate()
// tokens.
package qwen3
