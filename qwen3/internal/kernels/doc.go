// Package kernels holds the inner loops of the qwen3 engine: for each operation a plain Go form,
// the specification, and assembly forms for the instruction-set levels of amd64 (avx2, avx512,
// avx512vnni) and arm64 (neon, dotprod), which give its results (bit for bit where the operation
// says so, else within float32 rounding of a float64 reference).
//
// # Where everything is
//
// One row per operation and level that has a kernel of its own. A level runs the form of the
// highest level at or below it that has one (avx512vnni runs the avx512 forms of the float
// kernels, avx512 the avx2 forms of the quantized ones), and Generic, like a level below every
// form, the plain Go reference. After a slash, the variant of the operation a table serves
// (AttnTile/2: two query rows). The batched operations' reference is the one-token operation for
// each token, which they equal bit for bit. The tests named hold every level's form to the
// reference; TestDispatch runs every operation at every level the machine has, through every
// branch of its table, with buffers that catch a kernel reading or writing past them; and
// TestDocTable holds this table to the dispatch tables and the files.
//
//	operation           level       kernel file                plain Go reference           tests
//	DotF32Rows          avx2        dot_avx2_amd64.s           dot.go dotF32Generic         TestDotRows
//	                    neon        dot_neon_arm64.s
//	DotBF16Rows         avx2        dot_avx2_amd64.s           dot.go dotBF16Generic        TestDotRows TestDotFloatAVX512MatchesAVX2
//	                    avx512      dot_avx512_amd64.s
//	                    neon        dot_neon_arm64.s
//	DotF16Rows          avx2        dot_avx2_amd64.s           dot.go dotF16Generic         TestDotRows
//	                    neon        dot_neon_arm64.s
//	DotQ8_0             avx2        dot_avx2_amd64.s           dot.go dotQ8_0Generic        TestDotQ8_0
//	                    avx512      dot_avx512_amd64.s
//	Axpy                avx2        dot_avx2_amd64.s           dot.go Axpy                  TestAxpy
//	Act.Quantize        avx2        quant_avx2_amd64.s         quant.go quantizeActGeneric  TestQuantizeAct TestActPlanesVNNI
//	                    avx512vnni  quant_avx512vnni_amd64.s
//	                    neon        quant_neon_arm64.s
//	                    dotprod     quant_dotprod_arm64.s
//	DotQ8_0ActRows      avx2        quant_avx2_amd64.s         quant.go dotQ8_0ActGeneric   TestDotActRows TestDotActVNNIMatchesAVX2
//	                    avx512vnni  quant_avx512vnni_amd64.s
//	                    neon        quant_neon_arm64.s
//	                    dotprod     quant_dotprod_arm64.s
//	DotQ4_0ActRows      avx2        quant_avx2_amd64.s         quant.go dotQ4_0ActGeneric   TestDotActRows TestDotActVNNIMatchesAVX2
//	                    avx512vnni  quant_avx512vnni_amd64.s
//	                    neon        quant_neon_arm64.s
//	                    dotprod     quant_dotprod_arm64.s
//	DotQ4_KActRows      avx2        quant_avx2_amd64.s         quant.go dotQ4_KActGeneric   TestDotActRows TestDotActVNNIMatchesAVX2
//	                    avx512vnni  quant_avx512vnni_amd64.s
//	                    neon        quant_neon_arm64.s
//	                    dotprod     quant_dotprod_arm64.s
//	DotQ6_KActRows      avx2        quant_avx2_amd64.s         quant.go dotQ6_KActGeneric   TestDotActRows TestDotActVNNIMatchesAVX2
//	                    avx512vnni  quant_avx512vnni_amd64.s
//	                    neon        quant_neon_arm64.s
//	                    dotprod     quant_dotprod_arm64.s
//	DecodeQ8_0          avx2        quant_avx2_amd64.s         quant.go DecodeQ8_0          TestDecodeQuant
//	DecodeQ4_0          avx2        quant_avx2_amd64.s         quant.go DecodeQ4_0          TestDecodeQuant
//	DecodeQ4_K          avx2        quant_avx2_amd64.s         quant.go DecodeQ4_K          TestDecodeQuant
//	DecodeQ6_K          avx2        quant_avx2_amd64.s         quant.go DecodeQ6_K          TestDecodeQuant
//	DotF32RowsN         avx2        multi_avx2_amd64.s         dot.go DotF32Rows            TestDotFloatRowsN
//	                    avx512      multi_avx512_amd64.s
//	DotBF16RowsN        avx2        multi_avx2_amd64.s         dot.go DotBF16Rows           TestDotFloatRowsN
//	                    avx512      multi_avx512_amd64.s
//	DotF16RowsN         avx2        multi_avx2_amd64.s         dot.go DotF16Rows            TestDotFloatRowsN
//	                    avx512      multi_avx512_amd64.s
//	DotQ8_0ActRowsN     avx2        multi_avx2_amd64.s         quant.go DotQ8_0ActRows      TestDotActRowsN TestDotActNVNNIMatchesAVX2
//	                    avx512vnni  multi_avx512vnni_amd64.s
//	DotQ4_0ActRowsN     avx2        multi_avx2_amd64.s         quant.go DotQ4_0ActRows      TestDotActRowsN TestDotActNVNNIMatchesAVX2
//	                    avx512vnni  multi_avx512vnni_amd64.s
//	DotQ4_KActRowsN     avx2        multi_avx2_amd64.s         quant.go DotQ4_KActRows      TestDotActRowsN TestDotActNVNNIMatchesAVX2
//	                    avx512vnni  multi_avx512vnni_amd64.s
//	DotQ6_KActRowsN     avx2        multi_avx2_amd64.s         quant.go DotQ6_KActRows      TestDotActRowsN TestDotActNVNNIMatchesAVX2
//	                    avx512vnni  multi_avx512vnni_amd64.s
//	Tile                avx2        tile_avx2_amd64.s          tile.go tileGeneric          TestTile
//	                    avx512      tile_avx512_amd64.s
//	                    neon        tile_neon_arm64.s
//	TilePart/8          avx512      tile_avx512_amd64.s        tile.go Tile                 TestTilePart
//	AddRows             avx2        tile_avx2_amd64.s          tile.go AddRows              TestAddRows
//	CopyRows            avx2        tile_avx2_amd64.s          tile.go CopyRows             TestAddRows
//	TileQ               avx2        tileq_avx2_amd64.s         tileq.go tileQGeneric        TestTileQ TestTileQVNNIMatchesAVX2
//	                    avx512vnni  tileq_avx512vnni_amd64.s
//	                    neon        tileq_neon_arm64.s
//	TileQ/Q4_K          avx2        tileq_avx2_amd64.s         tileq.go tileQGeneric        TestTileQ TestTileQVNNIMatchesAVX2
//	                    avx512vnni  tileq_avx512vnni_amd64.s
//	                    neon        tileq_neon_arm64.s
//	TileQPart/8         avx512vnni  tileq_avx512vnni_amd64.s   tileq.go TileQ               TestTileQPart
//	TileQPart/8/Q4_K    avx512vnni  tileq_avx512vnni_amd64.s   tileq.go TileQ               TestTileQPart
//	TileQN/Q8_0         avx512vnni  tileqn_avx512vnni_amd64.s  tileqn.go tileQNGeneric      TestTileQN TestTileQNMatchesTileQ
//	TileQN/Q4_0         avx512vnni  tileqn_avx512vnni_amd64.s  tileqn.go tileQNGeneric      TestTileQN TestTileQNMatchesTileQ
//	TileQN/Q4_K         avx512vnni  tileqn_avx512vnni_amd64.s  tileqn.go tileQNGeneric      TestTileQN TestTileQNMatchesTileQ
//	TileQN/Q6_K         avx512vnni  tileqn_avx512vnni_amd64.s  tileqn.go tileQNGeneric      TestTileQN TestTileQNMatchesTileQ
//	PackBF16            avx512      pack_avx512_amd64.s        pack.go PackBF16             TestPackBF16AVX512MatchesAVX2
//	QPack.Pack/Q8_0     avx512      pack_avx512_amd64.s        pack.go decodeQRow           TestQPackAVX512MatchesGeneric
//	QPack.Pack/Q4_0     avx512      pack_avx512_amd64.s        pack.go decodeQRow           TestQPackAVX512MatchesGeneric
//	QPack.Pack/Q4_K     avx512      pack_avx512_amd64.s        pack.go decodeQRow           TestQPackAVX512MatchesGeneric
//	QPack.Pack/Q6_K     avx512      pack_avx512_amd64.s        pack.go decodeQRow           TestQPackAVX512MatchesGeneric
//	decodeQRow/bytes    avx2        pack_avx2_amd64.s          pack.go decodeQRow           TestTileQ
//	                    neon        pack_neon_arm64.s
//	decodeQRow/nibbles  avx2        pack_avx2_amd64.s          pack.go decodeQRow           TestTileQ
//	                    neon        pack_neon_arm64.s
//	decodeQRow/Q6_K     avx2        pack_avx2_amd64.s          pack.go decodeQRow           TestTileQ
//	                    neon        pack_neon_arm64.s
//	Transpose8          avx2        convert_avx2_amd64.s       convert.go Transpose8        TestTranspose8
//	                    neon        convert_neon_arm64.s
//	WidenBF16           avx2        convert_avx2_amd64.s       convert.go WidenBF16         TestWidenAndDecode
//	                    neon        convert_neon_arm64.s
//	WidenF16            avx2        convert_avx2_amd64.s       convert.go WidenF16          TestWidenAndDecode
//	                    neon        convert_neon_arm64.s
//	AttnTile/2          avx2        attn_avx2_amd64.s          attn.go attnTileGeneric      TestAttnTile TestAttnTileAVX512MatchesAVX2
//	                    avx512      attn_avx512_amd64.s
//	                    neon        tile_neon_arm64.s
//	AttnTile/6          avx2        tile_avx2_amd64.s          attn.go attnTileGeneric      TestAttnTile TestAttnTileAVX512MatchesAVX2
//	                    avx512      attn_avx512_amd64.s
//	                    neon        tile_neon_arm64.s
//	AttnTileF16/2       avx2        attn_avx2_amd64.s          attn.go AttnTileF16          TestAttnTileF16 TestAttnTileAVX512MatchesAVX2
//	                    avx512      attn_avx512_amd64.s
//	AttnTileF16/6       avx2        attn_avx2_amd64.s          attn.go AttnTileF16          TestAttnTileF16 TestAttnTileAVX512MatchesAVX2
//	                    avx512      attn_avx512_amd64.s
//	AttnTile32/2        avx512      attn_avx512_amd64.s        attn.go AttnTile             TestAttnTile32
//	AttnTile32/6        avx512      attn_avx512_amd64.s        attn.go AttnTile             TestAttnTile32
//	AttnTile32F16/2     avx512      attn_avx512_amd64.s        attn.go AttnTileF16          TestAttnTile32
//	AttnTile32F16/6     avx512      attn_avx512_amd64.s        attn.go AttnTileF16          TestAttnTile32
//	NarrowF16           avx2        attn_avx2_amd64.s          attn.go NarrowF16            TestNarrowF16
//	ExpSub              avx2        attn_avx2_amd64.s          attn.go ExpSub               TestExpSub
//	                    neon        attn_neon_arm64.s
//	Max                 avx2        attn_avx2_amd64.s          attn.go Max                  TestMaxScale
//	                    neon        attn_neon_arm64.s
//	Scale               avx2        attn_avx2_amd64.s          attn.go Scale                TestMaxScale
//	                    neon        attn_neon_arm64.s
//	SiLUMul             avx2        attn_avx2_amd64.s          attn.go SiLUMul              TestSiLUMul
//	                    neon        attn_neon_arm64.s
//	Prefetch            avx2        prefetch_avx2_amd64.s      prefetch.go Prefetch         TestPrefetch
//
// The rule behind the names: <op>.go holds an operation's API, its argument checks and its plain
// Go form; <op>_<isa>_<arch>.s its kernels for one level (isa: the level's name), with their
// prototypes, and the few lines of Go that call them as a table wants, in <op>_<isa>_<arch>.go
// beside it; <op>_<arch>.h macros that the one-token and the batched kernels share, so that both
// do the same operations in the same order (quant_amd64.h, dot_amd64.h). ops.go lists the
// operations and their kernels' calling conventions, dispatch.go the four shapes of table and
// their executors, dispatch_<arch>.go each architecture's tables (dispatch_other.go: all empty),
// cpu_<arch>.go its levels and how the CPU's are detected. Tests that must reach one level's
// assembly directly live in <op>_<isa>_<arch>_test.go; the portable tests run every level through
// Limit. Measurements below are from the AMD EPYC (AVX-512 with VNNI) of 2026-11-27.
//
// # What the kernels do
//
// Decoding one token multiplies every weight row, stored in the file's precision, with the same
// input vector:
//
//	DotF32Rows, DotBF16Rows, DotF16Rows      Σ w[i]·x[i], float32 inputs x
//	DotQ8_0ActRows, DotQ4_0ActRows,           Σ_b d_b·s_b·Σ_j q_bj·a_bj, the inputs rounded once per
//	DotQ4_KActRows, DotQ6_KActRows            matrix pass to int16 blocks (Act, quant.go)
//
// The weights are never widened into a float32 copy: decoding them inside the loop keeps the bytes
// streamed from memory per token at the file's size (BF16 half of F32, Q8_0 about a quarter,
// Q4_K under a sixth), and decode speed on a CPU is bounded by exactly that stream. The
// quantized types multiply integers (VPMADDWD) instead of widening each weight to float; the int16
// inputs are 32767/127, about 258 times, finer than llama.cpp's int8 ones (its step is amax/127:
// quantize_row_q8_0_ref in ggml/src/ggml-quants.c; ours amax/32767, actMax in quant.go), and the
// engine's tests give these types their own tolerance against chapter 07.
//
// Decoding several sequences together (qwen3.Batch) multiplies the same rows with several inputs:
//
//	DotF32RowsN, ..., DotQ6_KActRowsN     out[t*outStride+r] = row r · input t   (multi.go)
//
// They decode each block of weights once, into registers, for eight, four or two tokens, instead
// of once per token: for the 4- and 6-bit types decoding is half the work of a dot product. Each
// result is bit for bit the one-token kernel's on that token's input: integer sums are exact in
// any order, and the float operations of every lane are the same ones in the same order (the
// one-token and batched assembly share their macros, quant_amd64.h and dot_amd64.h). Where the CPU
// has AVX-512 VNNI the quantized ones run in 512-bit registers, two tokens to a register
// (multi_avx512vnni_amd64.s): each call copies its tokens' activations once into the order the kernel
// reads them, Q6_K's weights are reordered per row so that no sum across lanes is left per token,
// and rows whose copy would not stay in L1 are done in passes over pieces of their columns; every
// lane still does the AVX2 kernel's operations in order, so the same bits. Eight tokens, AVX2
// against 512-bit, multiply-adds per ns of one core on the AVX-512 EPYC of 2026-11-27, in cache
// and then streaming 1024-value rows from memory: Q8_0 64 against 121 and 63 against 108, Q4_0 61
// against 104 and 60 against 101, Q4_K 63 against 112 and 62 against 105, Q6_K 41 against 122 and
// 41 against 106. The float ones (F32, BF16, F16) have an AVX-512 form too (multi_avx512_amd64.s,
// no VNNI needed): two rows to a register as in the one-token BF16 kernel, four rows and eight
// tokens at a time, each row's chunks widened once for all the tokens. BF16, eight tokens, in
// cache: 55.6 multiply-adds per ns against 95.0; in the engine (2026-11-27, 2 threads, alternated)
// BF16 batches of 2, 8 and 16 went from 55, 133 and 132 to 93, 207 and 208 tok/s, F32's of 8 and
// 16 from 102 and 111 to 133-143 and 134-157.
//
// Sixteen tokens and more (a Batch step of batchTileMin caches or more in qwen3) take TileQN
// (tileqn.go) instead: the batched dots keep the one-token kernels' eight float lanes per block so
// that a batch gives Step's bits, and converting and scaling those lanes is one instruction for
// every two products, which binds once the weights are shared by enough tokens. TileQN is TileQ
// turned around, the tokens in the lanes (16 to a register, the inputs laid out once per matrix
// pass in an ActN) and each row's weight pair broadcast to them; the rows need widening only,
// block by block (a block ahead, into a second buffer, for Q8_0 and Q4_0; a super-block at a time
// for Q4_K and Q6_K), no packing, and a block's sum is flushed once per row and token, as TileQ
// flushes it: the same bits as TileQ in a prompt (TestTileQNMatchesTileQ), within float32
// rounding of the dots. Multiply-adds per ns of one core's CPU time, in cache (64 rows of 1024
// values, the AVX-512 EPYC, 2026-11-27, a busy machine), 16 and 32 tokens against the 8-token
// dot's: Q8_0 182 and 211 against 117, Q4_0 190 and 213 against 103, Q4_K 176 and 195 against 108,
// Q6_K 165 and 176 against 117.
//
// Prompts are arithmetic-bound: Tile multiplies 32 packed weight rows (decoded to float32 by
// Transpose8, WidenBF16, WidenF16, or PackBF16 for a block of BF16 rows) with 12 tokens, and
// AttnTile does the same for attention's scores and value sums (AttnTile32: two side by side),
// with ExpSub (e^x) for the online softmax; AttnTileF16 reads a float16 KV cache (written by
// NarrowF16), widening each key or value as it loads it. The block-quantized types take TileQ
// instead (tileq.go): their rows decoded once per chunk to int16 with float scales (QPack), the
// chunk's inputs rounded to int16 blocks like decoding's, integer multiply-adds in the tile
// (about 1.7 times the float tile's multiply-adds per ns on this machine: 223-231 against 132-134
// in notebooks/data/kernels_bench.txt; 1.4 times with the AVX2 kernels); so prompts of these
// types, too, see inputs rounded to int16. Prefetch asks for the next block of rows while a block
// is multiplied, so that packing does not wait on memory; TilePart and TileQPart do a chunk's
// last, short tile (8 tokens where an AVX-512 form has them); AddRows and CopyRows put a block's
// results into the residual stream and the outputs.
//
// Each function has a plain Go version (the specification) and, on amd64 with AVX2, FMA and F16C,
// an assembly version; a few also have an AVX-512 one: the float Tile (32 rows x 12 tokens in
// 16-lane registers), the attention tiles (attn_avx512_amd64.s: the AVX2 tiles' bits, and
// AttnTile32's twelve sums per k step), the packing of prompts' weights (pack_avx512_amd64.s:
// QPack.Pack and PackBF16 decode 16 rows into registers and transpose them there, no staging, the
// portable path's bits) and, where the CPU has AVX-512 VNNI (Intel since Cascade Lake and Ice Lake,
// whose GCC -march targets enable AVX512VNNI; AMD since Zen 4, as AMD's AOCL user guide lists it),
// TileQ (tileq_avx512vnni_amd64.s: VPDPWSSD, 32 int16 products and their sum in one instruction; the same
// integer sums and float flushes as the AVX2 kernel, so the same bits, and 2.3 times its
// multiply-adds per ns in cache on the AVX-512 AMD EPYC of 2026-11-27: 226 against 99, where the
// multiplies alone would give 266; the flushes take the rest); and the one-token dots of decoding
// for Q8_0, Q4_0, Q4_K, Q6_K (quant_avx512vnni_amd64.s, with VNNI) and BF16 (dot_avx512_amd64.s), two
// rows to a 512-bit register, every lane doing what the AVX2 kernel's lane does in the same order,
// so again the same bits (and the batched kernels' bits). On that machine, in cache and then
// streamed from memory on one core: Q4_K 59 against 43 multiply-adds per ns and 31 against 22.6
// GB/s, Q6_K 51 against 23.5 and 37 against 19.3 GB/s, Q4_0 55 against 39 and 29.4 against 21.1
// GB/s, BF16 33 against 30 GB/s, Q8_0 55 against 32 and 36-46 against 31 GB/s. Q8_0's decoding
// gained less than its kernel, and not at every moment: in 51 engine runs alternated with the AVX2
// kernel it decoded faster in 32, by a median of 6.5% and a mean of 4%, mostly 8-15% while this
// host's memory was fast, and lost (by 3-13%) mostly in its slow stretches (four rows read side by
// side where the AVX2 kernel reads one). The Q6_K and BF16 dots prefetch with one pointer that walks the
// rows ahead in order (as the Q4_K and Q4_0 kernels' PFLIN9 does), not one per row: this machine's
// hardware prefetchers add little (Q6_K rows stream at 8 GB/s on one core without software
// prefetching), and one ordered stream of requests took Q6_K from 24 to 37 GB/s on one core and
// two cores of BF16 from 42 to 50 GB/s. Q6_K's dot reads the Act's byte planes (each int16 a = 256·hi +
// lo, hi signed, lo unsigned, as arm64's DotProd kernels do), so its quants stay bytes and
// VPDPBUSD multiplies 64 of them per instruction: two byte dots give the same exact int32 group
// sums as the int16 products (36 multiply-adds per ns with those).
//
// # Levels
//
// Supported is the best level this CPU has; QWEN3_KERNELS (a level's name) lowers it when the
// program starts, and EnvError says when its value named no level (the package prints nothing);
// Limit lowers it in tests, so that they run every path a machine has. The tests and fuzz
// targets check every path against chapter 01's dequantizers, in float64.
package kernels
