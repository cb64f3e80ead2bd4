package kernels

import "unsafe"

// The dispatch tables of amd64 (see dispatch.go and ops.go): for each operation, the form each
// level runs. A level without a form of its own runs the next lower one's: AVX512VNNI runs the
// AVX512 forms of the float kernels, AVX512 the AVX2 forms of the quantized ones. Names are the
// assembly kernels' (TEXT symbols); the files are <op>_<isa>_amd64.s.

// hide returns p (dispatch_GOARCH.s); see noEscape.
//
//go:noescape
func hide(p unsafe.Pointer) unsafe.Pointer

// hide3 returns a, b, c (dispatch_GOARCH.s): hide for three pointers in one call.
//
//go:noescape
func hide3(a, b, c unsafe.Pointer) (unsafe.Pointer, unsafe.Pointer, unsafe.Pointer)

var arch = archForms{
	// dot.go: dot_avx2_amd64.s, dot_avx512_amd64.s
	dotF32Rows: rowForms[dotRowsKernel[float32]]{
		AVX2: {{name: "dotF32AVX2", k: dotF32AVX2, rows: 1, cols: 8}},
	},
	dotBF16Rows: rowForms[dotRowsKernel[uint16]]{
		AVX2: {{name: "dotBF16AVX2", k: dotBF16AVX2, rows: 1, cols: 8}},
		AVX512: {
			{name: "dotBF16AVX512", k: dotBF16AVX512, rows: 8, cols: 32, whole: true},
			{name: "dotBF16AVX2", k: dotBF16AVX2, rows: 1, cols: 8},
		},
	},
	dotF16Rows: rowForms[dotRowsKernel[uint16]]{
		AVX2: {{name: "dotF16AVX2", k: dotF16AVX2, rows: 1, cols: 8}},
	},
	dotQ8_0: kernelForms[dotQ8_0Kernel]{
		AVX2:   {name: "dotQ8_0AVX2", k: dotQ8_0AVX2},
		AVX512: {name: "dotQ8_0AVX512", k: dotQ8_0AVX512},
	},
	axpy: laneForms[axpyKernel]{AVX2: {name: "axpyAVX2", k: axpyAVX2, step: 8}},

	// quant.go: quant_avx2_amd64.s, quant_avx512vnni_amd64.s
	quantize: kernelForms[quantizeKernel]{
		AVX2:       {name: "quantizeActAVX2", k: quantizeAVX2},
		AVX512VNNI: {name: "quantizeActAVX2+splitActVNNI", k: quantizeVNNI},
	},
	dotActRows: [4]rowForms[actRowsKernel]{
		q8_0: {
			AVX2: {{name: "dotQ8_0ActAVX2", k: dotQ8_0ActRowsAVX2, rows: 1, cols: 8}},
			AVX512VNNI: {
				{name: "dotQ8_0ActVNNI", k: dotQ8_0ActRowsVNNI, rows: 4, cols: 8},
				{name: "dotQ8_0ActAVX2", k: dotQ8_0ActRowsAVX2, rows: 1, cols: 8},
			},
		},
		q4_0: {
			AVX2: {{name: "dotQ4_0ActAVX2", k: dotQ4_0ActRowsAVX2, rows: 1, cols: 8}},
			AVX512VNNI: {
				{name: "dotQ4_0ActVNNI", k: dotQ4_0ActRowsVNNI, rows: 4, cols: 8},
				{name: "dotQ4_0ActAVX2", k: dotQ4_0ActRowsAVX2, rows: 1, cols: 8},
			},
		},
		q4_K: {
			AVX2: {{name: "dotQ4_KActAVX2", k: dotQ4_KActRowsAVX2, rows: 1, cols: 1}},
			AVX512VNNI: {
				{name: "dotQ4_KActVNNI", k: dotQ4_KActRowsVNNI, rows: 4, cols: 1},
				{name: "dotQ4_KActAVX2", k: dotQ4_KActRowsAVX2, rows: 1, cols: 1},
			},
		},
		q6_K: {
			AVX2: {{name: "dotQ6_KActAVX2", k: dotQ6_KActRowsAVX2, rows: 1, cols: 1}},
			AVX512VNNI: {
				{name: "dotQ6_KActVNNI", k: dotQ6_KActRowsVNNI, rows: 2, cols: 1, planes: true},
				{name: "dotQ6_KActAVX2", k: dotQ6_KActRowsAVX2, rows: 1, cols: 1},
			},
		},
	},
	decode: [4]kernelForms[decodeKernel]{
		q8_0: {AVX2: {name: "decodeQ8_0AVX2", k: decodeQ8_0AVX2}},
		q4_0: {AVX2: {name: "decodeQ4_0AVX2", k: decodeQ4_0AVX2}},
		q4_K: {AVX2: {name: "decodeQ4_KAVX2", k: decodeQ4_KAVX2}},
		q6_K: {AVX2: {name: "decodeQ6_KAVX2", k: decodeQ6_KAVX2}},
	},

	// multi.go: multi_avx2_amd64.s, multi_avx512_amd64.s, multi_avx512vnni_amd64.s
	dotF32RowsN: rowForms[dotRowsNKernels[float32]]{
		AVX2: {dotF32RowsNAVX2},
		AVX512: {
			{name: "dotF32N{8,4,2}AVX512", k: dotRowsNKernels[float32]{dotF32N8AVX512, dotF32N4AVX512, dotF32N2AVX512}, rows: 4, cols: 16, whole: true},
			dotF32RowsNAVX2,
		},
	},
	dotBF16RowsN: rowForms[dotRowsNKernels[uint16]]{
		AVX2: {dotBF16RowsNAVX2},
		AVX512: {
			{name: "dotBF16N{8,4,2}AVX512", k: dotRowsNKernels[uint16]{dotBF16N8AVX512, dotBF16N4AVX512, dotBF16N2AVX512}, rows: 4, cols: 16, whole: true},
			dotBF16RowsNAVX2,
		},
	},
	dotF16RowsN: rowForms[dotRowsNKernels[uint16]]{
		AVX2: {dotF16RowsNAVX2},
		AVX512: {
			{name: "dotF16N{8,4,2}AVX512", k: dotRowsNKernels[uint16]{dotF16N8AVX512, dotF16N4AVX512, dotF16N2AVX512}, rows: 4, cols: 16, whole: true},
			dotF16RowsNAVX2,
		},
	},
	dotActRowsN: [4]tokenForms[actRowsNKernel]{
		q8_0: {
			AVX2:       {name: "dotQ8_0ActN{8,4,2}AVX2", k: dotQ8_0ActRowsNAVX2, cols: 8},
			AVX512VNNI: {name: "dotQ8_0ActN{8,4,2}VNNI", k: dotQ8_0ActRowsNVNNI, cols: 8, sub: []string{vnniOnePass, vnniPasses}},
		},
		q4_0: {
			AVX2:       {name: "dotQ4_0ActN{8,4,2}AVX2", k: dotQ4_0ActRowsNAVX2, cols: 8},
			AVX512VNNI: {name: "dotQ4_0ActN{8,4,2}VNNI", k: dotQ4_0ActRowsNVNNI, cols: 8, sub: []string{vnniOnePass, vnniPasses}},
		},
		q4_K: {
			AVX2:       {name: "dotQ4_KActN{8,4,2}AVX2", k: dotQ4_KActRowsNAVX2, cols: 1},
			AVX512VNNI: {name: "dotQ4_KActN{8,4,2}VNNI", k: dotQ4_KActRowsNVNNI, cols: 1, sub: []string{vnniOnePass, vnniPasses}},
		},
		q6_K: {
			AVX2:       {name: "dotQ6_KActNAVX2", k: dotQ6_KActRowsNAVX2, cols: 1, any: true},
			AVX512VNNI: {name: "dotQ6_KActN{8,4,2}VNNI", k: dotQ6_KActRowsNVNNI, cols: 1, sub: []string{vnniOnePass, vnniPasses}},
		},
	},

	// tile.go: tile_avx2_amd64.s, tile_avx512_amd64.s
	tile: kernelForms[tileKernel]{
		AVX2:   {name: "tile16x6AVX2 x4", k: tileAVX2},
		AVX512: {name: "tile32x12AVX512", k: tileAVX512},
	},
	tile8:    kernelForms[tileKernel]{AVX512: {name: "tile32x8AVX512", k: tile8AVX512}},
	addRows:  kernelForms[blockRowsKernel]{AVX2: {name: "addRowsAVX2", k: addRowsAVX2}},
	copyRows: kernelForms[blockRowsKernel]{AVX2: {name: "copyRowsAVX2", k: copyRowsAVX2}},

	// tileq.go: tileq_avx2_amd64.s, tileq_avx512vnni_amd64.s
	tileQ: [2]kernelForms[tileQKernel]{
		{
			AVX2:       {name: "tileQ16x6NoMinAVX2 x4", k: tileQNoMinAVX2},
			AVX512VNNI: {name: "tileQ32x12NoMinVNNI", k: tileQNoMinVNNI},
		},
		{
			AVX2:       {name: "tileQ16x6AVX2 x4", k: tileQMinAVX2},
			AVX512VNNI: {name: "tileQ32x12VNNI", k: tileQMinVNNI},
		},
	},
	tileQ8: [2]kernelForms[tileQKernel]{
		{AVX512VNNI: {name: "tileQ32x8NoMinVNNI", k: tileQ8NoMinVNNI}},
		{AVX512VNNI: {name: "tileQ32x8VNNI", k: tileQ8MinVNNI}},
	},

	// tileqn.go: tileqn_avx512vnni_amd64.s
	tileQN: [4]kernelForms[tileQNKernel]{
		QQ8_0: {AVX512VNNI: {name: "tileQN{16,32}Q8_0VNNI", k: tileQNQ8_0VNNI, sub: []string{tileQN16, tileQN32}}},
		QQ4_0: {AVX512VNNI: {name: "tileQN{16,32}Q4_0VNNI", k: tileQNQ4_0VNNI, sub: []string{tileQN16, tileQN32}}},
		QQ4_K: {AVX512VNNI: {name: "tileQN{16,32}Q4_KVNNI", k: tileQNQ4_KVNNI, sub: []string{tileQN16, tileQN32}}},
		QQ6_K: {AVX512VNNI: {name: "tileQN{16,32}Q6_KVNNI", k: tileQNQ6_KVNNI, sub: []string{tileQN16, tileQN32}}},
	},

	// pack.go: pack_avx2_amd64.s, pack_avx512_amd64.s
	packBF16: laneForms[packBF16Kernel]{AVX512: {name: "packBF16AVX512 x2", k: packBF16AVX512x2, step: 16}},
	packQ: [4]kernelForms[packQKernel]{
		QQ8_0: {AVX512: {name: "packQ8_0AVX512 x2", k: packQAVX512(packQ8_0AVX512)}},
		QQ4_0: {AVX512: {name: "packQ4_0AVX512 x2", k: packQAVX512(packQ4_0AVX512)}},
		QQ4_K: {AVX512: {name: "packQ4_KAVX512 x2", k: packQAVX512(packQ4_KAVX512)}},
		QQ6_K: {AVX512: {name: "packQ6_KAVX512 x2", k: packQAVX512(packQ6_KAVX512)}},
	},
	widenBytes:   kernelForms[widenBytesKernel]{AVX2: {name: "widenBytesAVX2", k: widenBytesAVX2}},
	widenNibbles: kernelForms[widenNibblesKernel]{AVX2: {name: "widenNibblesAVX2", k: widenNibblesAVX2}},
	widenQ6:      kernelForms[widenQ6Kernel]{AVX2: {name: "widenQ6AVX2", k: widenQ6AVX2}},

	// convert.go: convert_avx2_amd64.s
	transpose8: laneForms[transpose8Kernel]{AVX2: {name: "transpose8AVX2", k: transpose8AVX2, step: 8}},
	widenBF16:  laneForms[widenKernel]{AVX2: {name: "widenBF16AVX2", k: widenBF16AVX2, step: 8}},
	widenF16:   laneForms[widenKernel]{AVX2: {name: "widenF16AVX2", k: widenF16AVX2, step: 8}},

	// attn.go: attn_avx2_amd64.s (and tile16x6AVX2 of tile_avx2_amd64.s), attn_avx512_amd64.s
	attnTile: [2]kernelForms[attnKernel[float32]]{
		{AVX2: {name: "tile16x2AVX2", k: tile16x2AVX2}, AVX512: {name: "tile16x2AVX512", k: tile16x2AVX512}},
		{AVX2: {name: "tile16x6AVX2", k: tile16x6AVX2}, AVX512: {name: "tile16x6AVX512", k: tile16x6AVX512}},
	},
	attnTileF16: [2]kernelForms[attnKernel[uint16]]{
		{AVX2: {name: "tile16x2F16AVX2", k: tile16x2F16AVX2}, AVX512: {name: "tile16x2F16AVX512", k: tile16x2F16AVX512}},
		{AVX2: {name: "tile16x6F16AVX2", k: tile16x6F16AVX2}, AVX512: {name: "tile16x6F16AVX512", k: tile16x6F16AVX512}},
	},
	attnTile32: [2]kernelForms[attn32Kernel[float32]]{
		{AVX512: {name: "tile32x2AVX512", k: tile32x2AVX512}},
		{AVX512: {name: "tile32x6AVX512", k: tile32x6AVX512}},
	},
	attnTile32F16: [2]kernelForms[attn32Kernel[uint16]]{
		{AVX512: {name: "tile32x2F16AVX512", k: tile32x2F16AVX512}},
		{AVX512: {name: "tile32x6F16AVX512", k: tile32x6F16AVX512}},
	},
	narrowF16: laneForms[narrowKernel]{AVX2: {name: "narrowF16AVX2", k: narrowF16AVX2, step: 8}},
	expSub:    laneForms[expSubKernel]{AVX2: {name: "expSubAVX2", k: expSubAVX2, step: 8}},
	max:       laneForms[maxKernel]{AVX2: {name: "maxAVX2", k: maxAVX2, step: 8}},
	scale:     laneForms[scaleKernel]{AVX2: {name: "scaleAVX2", k: scaleAVX2, step: 8}},
	siluMul:   laneForms[siluMulKernel]{AVX2: {name: "siluMulAVX2", k: siluMulAVX2, step: 8}},

	// prefetch.go: prefetch_avx2_amd64.s (plain x86-64: every level from AVX2 on)
	prefetch: kernelForms[prefetchKernel]{AVX2: {name: "prefetchL2", k: prefetchL2}},
}

// The AVX2 batched float chains' last form.
var (
	dotF32RowsNAVX2  = rowForm[dotRowsNKernels[float32]]{name: "dotF32N{8,4,2}AVX2", k: dotRowsNKernels[float32]{dotF32N8AVX2, dotF32N4AVX2, dotF32N2AVX2}, rows: 1, cols: 8, whole: true}
	dotBF16RowsNAVX2 = rowForm[dotRowsNKernels[uint16]]{name: "dotBF16N{8,4,2}AVX2", k: dotRowsNKernels[uint16]{dotBF16N8AVX2, dotBF16N4AVX2, dotBF16N2AVX2}, rows: 1, cols: 8, whole: true}
	dotF16RowsNAVX2  = rowForm[dotRowsNKernels[uint16]]{name: "dotF16N{8,4,2}AVX2", k: dotRowsNKernels[uint16]{dotF16N8AVX2, dotF16N4AVX2, dotF16N2AVX2}, rows: 1, cols: 8, whole: true}
)
