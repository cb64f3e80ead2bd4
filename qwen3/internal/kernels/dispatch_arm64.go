package kernels

import "unsafe"

// The dispatch tables of arm64 (see dispatch.go and ops.go): NEON forms, and at DotProd the
// block-quantized decoding dots in their SDOT/UDOT forms (the NEON ones where the Act's byte
// planes are stale). Names are the assembly kernels' (TEXT symbols); the files are
// <op>_<isa>_arm64.s. Operations without an arm64 form (the batched dots, the float16 KV cache's
// kernels, the 8-token and 32-lane tiles, packing in one step, the row decoders, DotQ8_0 and
// Axpy, which the engine does not call on its decoding path, AddRows, CopyRows, Prefetch) run
// their plain Go forms (the batched ones: the one-token kernels for each token).

// hide returns p (dispatch_GOARCH.s); see noEscape.
//
//go:noescape
func hide(p unsafe.Pointer) unsafe.Pointer

// hide3 returns a, b, c (dispatch_GOARCH.s): hide for three pointers in one call.
//
//go:noescape
func hide3(a, b, c unsafe.Pointer) (unsafe.Pointer, unsafe.Pointer, unsafe.Pointer)

var arch = archForms{
	// dot.go: dot_neon_arm64.s
	dotF32Rows:  rowForms[dotRowsKernel[float32]]{NEON: {{name: "dotF32NEON", k: dotF32NEON, rows: 1, cols: 16}}},
	dotBF16Rows: rowForms[dotRowsKernel[uint16]]{NEON: {{name: "dotBF16NEON", k: dotBF16NEON, rows: 1, cols: 16}}},
	dotF16Rows:  rowForms[dotRowsKernel[uint16]]{NEON: {{name: "dotF16NEON", k: dotF16NEON, rows: 1, cols: 16}}},

	// quant.go: quant_neon_arm64.s, quant_dotprod_arm64.s
	quantize: kernelForms[quantizeKernel]{
		NEON:    {name: "quantizeActNEON", k: quantizeNEON},
		DotProd: {name: "quantizeActDot", k: quantizeDot},
	},
	dotActRows: [4]rowForms[actRowsKernel]{
		q8_0: {
			NEON: {{name: "dotQ8_0ActNEON", k: dotQ8_0ActRowsNEON, rows: 1, cols: 4}},
			DotProd: {
				{name: "dotQ8_0ActDot", k: dotQ8_0ActRowsDot, rows: 1, cols: 4, planes: true},
				{name: "dotQ8_0ActNEON", k: dotQ8_0ActRowsNEON, rows: 1, cols: 4},
			},
		},
		q4_0: {
			NEON: {{name: "dotQ4_0ActNEON", k: dotQ4_0ActRowsNEON, rows: 1, cols: 4}},
			DotProd: {
				{name: "dotQ4_0ActDot", k: dotQ4_0ActRowsDot, rows: 1, cols: 4, planes: true},
				{name: "dotQ4_0ActNEON", k: dotQ4_0ActRowsNEON, rows: 1, cols: 4},
			},
		},
		q4_K: {
			NEON: {{name: "dotQ4_KActNEON", k: dotQ4_KActRowsNEON, rows: 1, cols: 1}},
			DotProd: {
				{name: "dotQ4_KActDot", k: dotQ4_KActRowsDot, rows: 1, cols: 1, planes: true},
				{name: "dotQ4_KActNEON", k: dotQ4_KActRowsNEON, rows: 1, cols: 1},
			},
		},
		q6_K: {
			NEON: {{name: "dotQ6_KActNEON", k: dotQ6_KActRowsNEON, rows: 1, cols: 1}},
			DotProd: {
				{name: "dotQ6_KActDot", k: dotQ6_KActRowsDot, rows: 1, cols: 1, planes: true},
				{name: "dotQ6_KActNEON", k: dotQ6_KActRowsNEON, rows: 1, cols: 1},
			},
		},
	},

	// tile.go: tile_neon_arm64.s
	tile: kernelForms[tileKernel]{NEON: {name: "tile16x6NEON x4", k: tileNEON}},

	// tileq.go: tileq_neon_arm64.s
	tileQ: [2]kernelForms[tileQKernel]{
		{NEON: {name: "tileQ8x6NEON x8", k: tileQNEON}},
		{NEON: {name: "tileQ8x6NEON x8", k: tileQNEON}},
	},

	// pack.go: pack_neon_arm64.s
	widenBytes:   kernelForms[widenBytesKernel]{NEON: {name: "widenBytesNEON", k: widenBytesNEON}},
	widenNibbles: kernelForms[widenNibblesKernel]{NEON: {name: "widenNibblesNEON", k: widenNibblesNEON}},
	widenQ6:      kernelForms[widenQ6Kernel]{NEON: {name: "widenQ6NEON", k: widenQ6NEON}},

	// convert.go: convert_neon_arm64.s
	transpose8: laneForms[transpose8Kernel]{NEON: {name: "transpose8NEON", k: transpose8NEON, step: 4}},
	widenBF16:  laneForms[widenKernel]{NEON: {name: "widenBF16NEON", k: widenBF16NEON, step: 8}},
	widenF16:   laneForms[widenKernel]{NEON: {name: "widenF16NEON", k: widenF16NEON, step: 8}},

	// attn.go: attn_neon_arm64.s (and the tiles of tile_neon_arm64.s)
	attnTile: [2]kernelForms[attnKernel[float32]]{
		{NEON: {name: "tile16x2NEON", k: tile16x2NEON}},
		{NEON: {name: "tile16x6NEON", k: tile16x6NEON}},
	},
	expSub:  laneForms[expSubKernel]{NEON: {name: "expSubNEON", k: expSubNEON, step: 4}},
	max:     laneForms[maxKernel]{NEON: {name: "maxNEON", k: maxNEON, step: 4}},
	scale:   laneForms[scaleKernel]{NEON: {name: "scaleNEON", k: scaleNEON, step: 4}},
	siluMul: laneForms[siluMulKernel]{NEON: {name: "siluMulNEON", k: siluMulNEON, step: 4}},
}
