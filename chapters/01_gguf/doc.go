// Package gguf reads model files: GGUF (llama.cpp's format) and Hugging Face safetensors
// directories, so that every later chapter gets Qwen3's weights by name, whichever file they came in.
//
// # The problem
//
// A model file is a few hundred megabytes of numbers plus everything needed to use them: the
// architecture's sizes, the tokenizer, and for every tensor its name, shape, element type and place
// in the file. A reader must find all of that without trusting the file: a truncated download or a
// hostile file must give an error that says what is wrong and where, never a panic, a hang or an
// attempt to allocate 2^63 bytes.
//
// # Reading order
//
// First pass, the GGUF path from bytes to a tensor (each file is short):
//
//  1. header.go: the 24-byte header, and how counts are checked before anything is allocated.
//  2. decoder.go: the little-endian cursor every field is read with; why a hostile length cannot
//     make it allocate.
//  3. metadata.go: the 13 value types and arrays; file.go: Parse, the four regions in order.
//  4. tensors.go: the tensor table (dims ne0 first, Shape reverses them) and the layout checks.
//  5. dtypes.go, then dequant.go down to DequantizeQ8_0: what a stored value costs and how it
//     becomes a float32 (BF16ToF32, F16ToF32, Q8_0).
//  6. names.go: one Qwen3 weight, two names; source.go: TensorSource and RawTensor, the door every
//     later chapter and the qwen3 engine use; config.go: Config, the one description of a model.
//
// Skip on a first pass, and come back when you need them: safetensors.go and checkpoint.go (the
// Hugging Face door: same ideas, JSON header), config_json.go and config_gguf.go (where each
// Config field is found, in both config.json forms and in GGUF keys), errors.go (FormatError: read
// it when a test names one), accessors.go and format.go (typed getters, printing), view.go and
// mmap_*.go (zero-copy tricks), params.go (parameter counting), and the K-quant dequantizers at the
// end of dequant.go (Q4_K and Q6_K bit packing is a puzzle of its own).
//
// # The four regions of a GGUF file
//
// All integers are little-endian. A string is a u64 byte length followed by the bytes (no NUL).
//
//	(1) header (24 bytes)   "GGUF", u32 version (2 or 3), u64 tensor_count, u64 metadata_kv_count
//	(2) metadata            kv_count entries: string key, u32 value type, value
//	(3) tensor infos        tensor_count entries: string name, u32 n_dims (<= 4),
//	                        u64 dims[n_dims] (ne0 FIRST), u32 ggml type, u64 offset
//	(4) data                starts at the end of region 3 rounded up to general.alignment
//	                        (default 32); each tensor's bytes at data start + its offset
//
// Metadata values have 13 types: UINT8 0, INT8 1, UINT16 2, INT16 3, UINT32 4, INT32 5, FLOAT32 6,
// BOOL 7, STRING 8, ARRAY 9, UINT64 10, INT64 11, FLOAT64 12. An array is a u32 element type, a u64
// count and the elements; arrays may hold arrays. [Value] holds one as a Go value, and typed
// accessors ([File.String], [File.Uint32], [File.Float32], [File.Strings], [File.Int] ...) fetch a
// key and fail with the key, its byte offset and both types when the type is not the expected one.
//
// For Qwen3 the metadata is large: tokenizer.ggml.tokens (151,936 strings) and tokenizer.ggml.merges
// (151,387 strings) make region 2 5.9 MB (Example_metadata measures it in the tiny reference
// checkpoint, which carries the same tokenizer). There the data section starts only after those
// megabytes; notebook 01 draws the four regions to scale.
//
// # Dims are reversed
//
// ggml lists dimensions fastest-varying first: ne0 is the length of a row. Hugging Face, PyTorch and
// numpy list them slowest first. So q_proj of Qwen3-0.6B, a [2048, 1024] matrix in safetensors
// (2048 rows of 1024), is blk.N.attn_q.weight with dims [1024, 2048] in GGUF. The bytes are the same
// row-major bytes; only the list is reversed. [TensorInfo.Shape] gives the numpy order, and every
// [TensorSource] speaks numpy order.
//
// # Why alignment
//
// Each tensor starts at a multiple of the alignment (32 bytes unless general.alignment says
// otherwise). Memory-mapping keeps that alignment in memory, because a mapping starts on a page
// boundary, so a tensor's first float sits at an address that SIMD loads (AVX's 32-byte vectors)
// can read directly, and a float32 tensor can be used in place as a []float32 without copying
// ([File.Float32View]).
// The reader checks that every offset is aligned, inside the file, and not overlapping another tensor.
//
// # mmap versus read
//
// [Open] maps the file read-only (syscall.Mmap on Linux, macOS and FreeBSD). Mapping costs nothing
// up front: the kernel reads a page from disk the first time it is touched, keeps it in the page
// cache shared by every process that maps the file, and can drop it under memory pressure because
// it can read it again. Opening a 2.4 GB file reads only the pages its header and tables sit on,
// and the resident memory grows only with the tensors actually read. [File.TensorData] returns a slice of the mapping, no copy. The
// [WithoutMmap] option (and other systems) read the whole file into memory instead: simpler,
// slower to open, and the whole file counts against the process's memory. [File.Close] unmaps; slices
// from File.TensorData must not be used afterwards.
//
// # Why names beat pointer walks
//
// llama2.c's run.c reads its checkpoint by walking a pointer through one flat float array in a fixed
// order: token embedding, then every layer's attention weights, and so on, with sizes computed from a
// small header. Ported to a GGUF file, that idea hard-codes the byte count of the metadata to skip
// before the weights. That works for exactly one file: a tokenizer with one more token, a different writer
// version, another alignment or one tensor stored in another type, and the walk silently reads the
// wrong bytes as weights. Here, tensors are found by name in the tensor table, their types and shapes
// are checked, and a missing or misshapen tensor is an error.
//
// # The same weights through either door
//
// Hugging Face stores the model as a directory: config.json and model.safetensors (or shards listed
// in model.safetensors.index.json). A safetensors file is a u64 header length N (at most 100 MB),
// N bytes of JSON mapping each name to {"dtype", "shape", "data_offsets": [begin, end)}, then the data
// buffer, row-major, packed without holes or overlaps. [OpenCheckpoint] reads it; [HFView] shows a
// GGUF file under the Hugging Face names, through the map in [GGUFName] and [HFName]:
//
//	model.embed_tokens.weight                        token_embd.weight
//	model.layers.N.input_layernorm.weight            blk.N.attn_norm.weight
//	model.layers.N.self_attn.{q,k,v}_proj.weight     blk.N.attn_{q,k,v}.weight
//	model.layers.N.self_attn.o_proj.weight           blk.N.attn_output.weight
//	model.layers.N.self_attn.{q,k}_norm.weight       blk.N.attn_{q,k}_norm.weight
//	model.layers.N.post_attention_layernorm.weight   blk.N.ffn_norm.weight
//	model.layers.N.mlp.{gate,up,down}_proj.weight    blk.N.ffn_{gate,up,down}.weight
//	model.norm.weight                                output_norm.weight
//	lm_head.weight                                   output.weight (usually absent: tied to token_embd)
//
// Both implement [TensorSource], and the tests check that the tiny checkpoint gives bit-identical
// tensors through both. [OpenModel] picks the door from the path ([DetectKind]); a lone
// .safetensors file is refused with [ErrSafetensorsFile], since it has neither the configuration
// nor the tokenizer: pass its directory. [TensorSource.TensorRaw] hands out a tensor as stored
// ([RawTensor]: shape, type, bytes, no copy), under ggml's type names for both doors (a safetensors
// "BF16" is [TypeBF16], see [SafetensorsType]); the fast engine keeps BF16 and Q8_0 weights that
// way, while chapters take the decoded values (TensorFloat64).
//
// # One description of a model: Config
//
// [Config] holds what a Qwen3 checkpoint is: sizes, rope_theta, rms_norm_eps, the tied head. Chapter
// 07 and the qwen3 engine both take it as it is. It lives here because this is where it is read,
// from either door: [ReadConfig] reads config.json, [ConfigFromGGUF] the qwen3.* metadata. config.json
// comes in two forms. The hub's Qwen3-0.6B (written by transformers 4.51) has
//
//	"rope_theta": 1000000, "rope_scaling": null, "torch_dtype": "bfloat16"
//
// and a checkpoint saved by transformers 5 (any fine-tune saved today) has instead
//
//	"rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}, "dtype": "bfloat16",
//	"layer_types": ["full_attention", ...], "pad_token_id": null
//
// Both read to the same Config. What the course does not implement is refused with the key and its
// value, never run as if it were the default: a RoPE type such as "yarn" (Qwen's advice for contexts
// beyond 32K), "linear", "dynamic" or "llama3"; a sliding window; attention biases.
//
// # Errors a program can inspect
//
// Every problem found in a file is a [*FormatError], as debug/elf's: the format, the file, the
// field (header.version, tensor "blk.3.attn_q.weight" type, rope_parameters.rope_type) and the
// byte offset where it is written. errors.As finds it under any wrapping; errors.Is finds
// [ErrTruncated] inside it when the file simply ends too soon.
//
// # What each type costs
//
// Weights are stored as plain floats or in blocks: a float16 scale plus small integers. Bytes per
// weight (TypeSize/BlockSize):
//
//	F32   4          32-bit float
//	F16   2          IEEE half: 5-bit exponent, 10-bit mantissa
//	BF16  2          the top half of a float32: 8-bit exponent, 7-bit mantissa; widening is a shift
//	Q8_0  34/32      f16 d + 32 int8 q:                 y = d*q
//	Q4_0  18/32      f16 d + 32 4-bit q:                y = d*(q-8)
//	Q6_K  210/256    256 6-bit q, 16 int8 scales, f16 d: y = d*scale*(q-32)
//	Q4_K  144/256    256 4-bit q, 8 6-bit scales and mins, f16 d and dmin: y = d*sc*q - dmin*m
//
// (the block layouts of ggml/src/ggml-common.h, block_q8_0 .. block_q6_K).
//
// [Dequantize] follows ggml's reference code in float32 (ggml/src/ggml-quants.c, dequantize_row_q8_0,
// _q4_0, _q4_K, _q6_K), so its results are bit-identical to ggml's and gguf-py's (the golden test
// demands equality, not closeness).
//
// # Which weights are quantized, and which stay in float
//
// A quantized file quantizes the matrices only. llama.cpp's quantizer (src/llama-quant.cpp,
// tensor_allows_quantization) quantizes tensors of two or more dimensions whose name does not end
// in "_norm.weight": every RMSNorm weight, q_norm and k_norm stays F32. They are too few to matter
// for size and too central to risk: one norm weight scales one feature of every token that passes
// the norm, where one matrix weight is one product among a thousand summed. And the mixes are not
// uniform either: llama.cpp's Q4_K_M (llama_tensor_get_type_impl) gives the output matrix (for
// Qwen3 the tied token_embd) and, in half the layers, attn_v and ffn_down the finer Q6_K, its
// heuristics for the tensors whose errors hurt most. Example_keptInFloat counts it for Qwen3-0.6B:
//
//	norm weights kept in F32: 65536 of 596049920 parameters (0.011%), 262144 bytes
//	quantized to Q8_0 they would save 192512 bytes, 0.030% of the Q8_0 file
//	q_norm and k_norm hold 128 values: half a Q4_K block of 256
//	Q4_K_M: attn_v and ffn_down in Q6_K in 14 of 28 layers [0 1 2 5 8 11 14 17 20 23 24 25 26 27]
//	weights: 390753280 bytes as Q4_K_M, 335503360 as Q4_K everywhere (+16%)
//
// Notebook 01 shows what each type loses on real weights.
//
// # Why bfloat16, and not float16
//
// Qwen3 is trained and published in bfloat16 (config.json: "torch_dtype": "bfloat16"). Both
// formats are 16 bits; they spend them differently. float16 keeps 10 mantissa bits (about 3
// decimal digits) and 5 exponent bits, so its normal numbers run from 6.1e-5 to 65504 (subnormals
// reach down to 6e-8 with ever fewer digits). bfloat16 keeps float32's 8 exponent bits, so its
// normal numbers run from 1.2e-38 to 3.4e38, and it pays with 7 mantissa bits (2 digits).
// Example_bfloat16Range rounds three numbers with this chapter's [F32ToF16] and [F32ToBF16]:
//
//	70000      -> f16 +Inf       bf16 70144            (too large for float16)
//	1e-08      -> f16 0          bf16 1.0011718e-08    (too small for float16)
//	1.0039062  -> f16 1.0039062  bf16 1                (too fine for bfloat16)
//
// A network can live with the third error (each weight and activation a little noisy) but not
// with the first two: one Inf in an activation turns every later sum into Inf or NaN, and a
// gradient flushed to 0 stops learning. Before bfloat16, large models were trained in float32, or
// in "mixed precision" float16 with loss scaling (Micikevicius et al., 2018, "Mixed Precision
// Training", section 3.2), which multiplies the loss by a large factor so that small gradients
// stay above float16's floor and divides it out afterwards, skipping the steps that overflow.
// bfloat16 made that bookkeeping unnecessary: it keeps float32's range, so anything a float32 can
// hold, a bfloat16 can hold roughly, and widening it is a shift ([BF16ToF32]). Kalamkar et al.
// (2019, "A Study of BFLOAT16 for Deep Learning Training", abstract) trained across domains in
// bfloat16 to float32's results "with no changes to hyper-parameters", where float16 "requires
// hyper-parameter tuning" (its loss scale). That is why the checkpoint is bfloat16 and why a
// conversion of it to float16 can overflow where the original did not.
//
// float16 still has its place inside the quantized blocks: a Q8_0 scale d = max|x|/127 of a block
// of weights is small but far from tiny (notebook 01 measures the scales of the tiny checkpoint's
// embedding, all inside float16's normal range), so the format takes float16's three digits over
// bfloat16's two.
//
// # Qwen3-0.6B by the numbers
//
//	embedding  151,936 x 1,024                                           155,582,464
//	attention  28 x (q 2048x1024 + k 1024x1024 + v 1024x1024 + o 1024x2048) 176,160,768
//	MLP        28 x 3 x 3,072 x 1,024                                    264,241,152
//	norms      28 x (2 x 1,024 + 2 x 128) + 1,024                             65,536
//	total      (the tied LM head counted once)                           596,049,920
//
// Note head_dim is 128, not hidden/heads = 64: Q is 2048 wide and K, V are 1024 wide. With the
// matrices in one type and the norms in F32 the weights take 2.38 GB as F32, 1.19 GB as BF16,
// 633 MB as Q8_0 and 336 MB as Q4_K ([WeightBytes], printed by ExampleCountParams); [CountParams]
// and its test check the sum.
//
// # A worked example by hand
//
// Example_byHand (byhand_test.go) prints each step. A header is 24 bytes; the smallest file is a
// header that announces nothing:
//
//	47 47 55 46  03 00 00 00  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00
//	"G G U F"    version 3    0 tensors                0 metadata entries
//
// Little-endian means the lowest byte comes first: 03 00 00 00 is 3 + 0·256 + 0·256² + 0·256³ = 3.
// Written the other way round, 00 00 00 03 reads as 3·256³ = 50,331,648, and Parse says the file
// looks big-endian. Then one number, 3.140625 = 2¹ x 1.5703125 = 2¹ x (1 + 73/128):
//
//	bfloat16  0x4049 = 0 | 10000000 | 1001001       exponent 128-127 = 1, mantissa 73/128
//	float16   0x4248 = 0 | 10000 | 1001001000       exponent 16-15 = 1,   mantissa 584/1024
//
// BF16ToF32 puts 0x4049 in the top half of a float32, 0x40490000, which is 3.140625 exactly. And
// one Q8_0 block: the scale d = 0.25 (float16 0x3400), then the bytes 04 f8 01 00 7f 81 ..., read
// as signed: q = 4, -8, 1, 0, 127, -127, so y = d·q = 1, -2, 0.25, 0, 31.75, -31.75. (Read as
// unsigned, f8 would be 248 and y = 62: the exercise's classic mistake.)
//
// # Gotchas
//
//   - A GGUF file for a tied model has no output.weight; use token_embd.weight as the LM head.
//   - FLOAT32 metadata such as the RMSNorm eps is 1e-6 rounded to float32; [File.Decimal] widens it
//     through its shortest decimal so it compares equal to config.json's 1e-6.
//   - Some writers store the same key with another integer width; [File.Int] accepts any of them.
//   - Counts and lengths come from the file: each is checked against the bytes that remain before any
//     slice is made, so a 2^40-byte string in a 100-byte file is an error, not an allocation.
//
// # Exercises
//
// `go run ./scripts/exercise 01` copies this chapter to workspace/01_gguf with five functions
// stubbed. Write them in this order:
//
//  1. readHeader (header.go; medium, 20 min): the 24-byte header: magic, version, then the two
//     u64 counts, each checked against the bytes left before anything is allocated.
//  2. File.dataOffset (file.go; easy, 10 min): where the tensor data starts: the end of the
//     tensor table rounded up to general.alignment.
//  3. [BF16ToF32] (dequant.go; easy, 5 min): a bfloat16 is the top half of a float32.
//  4. [DequantizeQ8_0] (dequant.go; easy, 15 min): the float16 scale, then 32 signed bytes times
//     it.
//  5. [File.Uint32] (accessors.go; easy, 10 min): look the key up, check its type, return the value
//     or an error that says what and where.
//
// Then `go test ./workspace/01_gguf/` runs every exercise's tests in one go: a stub that still
// panics fails only the tests that reach it. The tool prints each exercise's own go test command,
// and `go run ./scripts/exercise status` shows which are done. The failures name the likely mistake
// (counts read as u32, an offset not rounded up, the low half instead of the top one, unsigned
// bytes, a missing type check ...); `go run ./scripts/exercise hint 01` gives hints, one at a time.
//
// # Check your understanding
//
//  1. A Q8_0 block stores its scale as float16, while the checkpoint's weights are bfloat16. Why
//     is float16 the better choice for the scale?
//  2. Qwen3-0.6B has 596,049,920 parameters. About how many bytes do they take as BF16, and as
//     Q8_0 (34 bytes per 32 weights)?
//  3. A GGUF tensor has dims [1024, 151936]. How long is one of its rows, what is its shape in
//     PyTorch's order, and which Qwen3 tensor is it?
//  4. A 6 MB file claims 2^40 metadata entries. What does this reader do, and what must it not do?
//  5. A header's version bytes read 00 00 00 03. What number does a little-endian reader see, and
//     what happened to the file?
//  6. You converted the BF16 checkpoint to F16 and a layer's output is now Inf. Why could that not
//     happen in BF16, and which number would you look for?
//
// Answers.
//
//  1. The scale is max|x|/127 of a block of weights: inside float16's normal range (6.1e-5 to
//     65504; notebook 01 measures the scales of a real embedding), so the extra exponent bits of
//     bfloat16 would buy nothing, while float16's 10 mantissa bits make the scale 8 times finer
//     than bfloat16's 7.
//  2. 2 bytes each: 1.19 GB. Q8_0: 596,049,920 / 32 x 34 = 633 MB, a little more than a byte per
//     weight ([WeightBytes], which keeps the norms in F32, says 633,495,552 bytes).
//  3. ne0 comes first, so a row is 1024 values and the shape is [151936, 1024]: 151,936 rows of
//     1,024, the token embedding token_embd.weight (model.embed_tokens.weight).
//  4. It refuses with a [*FormatError] naming header.metadata_kv_count and byte 16: 2^40 entries of
//     at least 13 bytes (a key length, a type, a byte of value) cannot fit in what is left. It must
//     not allocate room for 2^40 entries first: a crash, or a machine out of memory, from 24 bytes.
//  5. 0x03000000 = 50,331,648. The file was written big-endian (or the bytes are not a GGUF file);
//     the reader says "looks like a big-endian file".
//  6. bfloat16 has float32's exponent range (up to 3.4e38); float16 stops at 65504. Look for an
//     activation above 65504 in magnitude: in float16 it became +Inf, and every sum after it too.
package gguf
