package kernels

// The operations that have assembly forms, each with its dispatch table (dispatch.go). The
// architectures fill archForms (dispatch_amd64.go, dispatch_arm64.go; dispatch_other.go leaves it
// empty); the portable files call the operations below. Each kernel type is the calling
// convention of the assembly (or of a few lines of Go calling it) for one operation.

type (
	dotRowsKernel[T float32 | uint16] func(w *T, stride, rows int, x *float32, n int, out *float32)
	dotQ8_0Kernel                     func(w *byte, x *float32, nb int, f16 *[65536]float32) float32
	axpyKernel                        func(y *float32, a float32, x *float32, n int)

	quantizeKernel func(a *Act, x []float32)
	// actRowsKernel: rows of nb blocks (a multiple of the form's cols) with a.
	actRowsKernel func(w *byte, stride, rows int, a *Act, nb int, out *float32)
	decodeKernel  func(dst *float32, src *byte, nb int, f16 *[65536]float32)

	// dotRowsNKernels: the batched float kernels for eight, four and two tokens.
	dotRowsNKernels[T float32 | uint16] [3]func(w *T, stride, rows int, x *float32, xstride, n int, out *float32, outStride int)
	// actRowsNKernel: tokens t..t+nt-1 of a (cols values each) with rows of nb blocks.
	actRowsNKernel func(w *byte, rowBytes, rows int, a *Act, nb, cols, t, nt int, out []float32, outStride int)

	tileKernel      func(pack, x []float32, xStride, k int, out *[TileTokens * TileRows]float32)
	blockRowsKernel func(y *float32, yStride int, x *float32, n int)
	tileQKernel     func(p *QPack, x []int16, k, nb int, xs, xsum []float32, out *[TileTokens * TileRows]float32)
	// tileQNKernel: TileQN's rows it can take (from the first), every token of x; returns them.
	tileQNKernel func(w *byte, rowBytes, rows int, x *ActN, out []float32, outStride int) int

	// packBF16Kernel packs the first n columns (a multiple of the form's step) of 32 rows of k.
	packBF16Kernel     func(pack []float32, w []uint16, k, n int)
	packQKernel        func(p *QPack, k int, raw []byte, rowBytes int)
	widenBytesKernel   func(dst *int16, src *byte, n int)
	widenNibblesKernel func(lo, hi *int16, src *byte, n, bias int)
	widenQ6Kernel      func(dst *int16, ql, qh *byte)

	transpose8Kernel func(dst *float32, dstStride int, src *float32, srcStride, k int)
	widenKernel      func(dst *float32, src *uint16, n int)

	attnKernel[T float32 | uint16]   func(pack *T, x *float32, xstride, k int, out *float32, packStride, outStride, acc int)
	attn32Kernel[T float32 | uint16] func(pack *T, second int, x *float32, xstride, k int, out *float32, packStride, outStride, acc int, pf *byte, pfStep int)
	narrowKernel                     func(dst *uint16, src *float32, n int)
	expSubKernel                     func(x *float32, n int, m float32) float32
	maxKernel                        func(x *float32, n int) float32
	scaleKernel                      func(dst, x *float32, a float32, n int)
	siluMulKernel                    func(dst, gate, u *float32, n int)

	prefetchKernel func(p *byte, n int)
)

// archForms holds every operation's table for one architecture. An operation's name is its
// exported function's, and after a slash the variant a table serves: TileQ/Q4_K is TileQ for
// packs with minimum terms, AttnTile/2 AttnTile for two rows, decodeQRow/bytes the widening of
// Q8_0's quants inside QPack.Pack's portable path. Arrays of four are indexed by
// actKind (Q8_0, Q4_0, Q4_K, Q6_K) or QKind; arrays of two by a variant: [0] 2 rows and [1] 6 rows
// for the attention tiles, [0] without and [1] with Q4_K's minimum terms for TileQ.
type archForms struct {
	dotF32Rows  rowForms[dotRowsKernel[float32]]
	dotBF16Rows rowForms[dotRowsKernel[uint16]]
	dotF16Rows  rowForms[dotRowsKernel[uint16]]
	dotQ8_0     kernelForms[dotQ8_0Kernel]
	axpy        laneForms[axpyKernel]

	quantize   kernelForms[quantizeKernel]
	dotActRows [4]rowForms[actRowsKernel]
	decode     [4]kernelForms[decodeKernel]

	dotF32RowsN  rowForms[dotRowsNKernels[float32]]
	dotBF16RowsN rowForms[dotRowsNKernels[uint16]]
	dotF16RowsN  rowForms[dotRowsNKernels[uint16]]
	dotActRowsN  [4]tokenForms[actRowsNKernel]

	tile     kernelForms[tileKernel]
	tile8    kernelForms[tileKernel]
	addRows  kernelForms[blockRowsKernel]
	copyRows kernelForms[blockRowsKernel]
	tileQ    [2]kernelForms[tileQKernel]
	tileQ8   [2]kernelForms[tileQKernel]
	tileQN   [4]kernelForms[tileQNKernel]

	packBF16     laneForms[packBF16Kernel]
	packQ        [4]kernelForms[packQKernel]
	widenBytes   kernelForms[widenBytesKernel]
	widenNibbles kernelForms[widenNibblesKernel]
	widenQ6      kernelForms[widenQ6Kernel]

	transpose8 laneForms[transpose8Kernel]
	widenBF16  laneForms[widenKernel]
	widenF16   laneForms[widenKernel]

	attnTile      [2]kernelForms[attnKernel[float32]]
	attnTileF16   [2]kernelForms[attnKernel[uint16]]
	attnTile32    [2]kernelForms[attn32Kernel[float32]]
	attnTile32F16 [2]kernelForms[attn32Kernel[uint16]]
	narrowF16     laneForms[narrowKernel]
	expSub        laneForms[expSubKernel]
	max           laneForms[maxKernel]
	scale         laneForms[scaleKernel]
	siluMul       laneForms[siluMulKernel]

	prefetch kernelForms[prefetchKernel]
}

var (
	dotF32RowsOp  = register(&rowOp[dotRowsKernel[float32]]{op: "DotF32Rows", forms: arch.dotF32Rows})
	dotBF16RowsOp = register(&rowOp[dotRowsKernel[uint16]]{op: "DotBF16Rows", forms: arch.dotBF16Rows})
	dotF16RowsOp  = register(&rowOp[dotRowsKernel[uint16]]{op: "DotF16Rows", forms: arch.dotF16Rows})
	dotQ8_0Op     = register(&kernelOp[dotQ8_0Kernel]{op: "DotQ8_0", forms: arch.dotQ8_0})
	axpyOp        = register(&laneOp[axpyKernel]{op: "Axpy", forms: arch.axpy})

	quantizeOp    = register(&kernelOp[quantizeKernel]{op: "Act.Quantize", forms: arch.quantize})
	dotActRowsOps = [...]*rowOp[actRowsKernel]{
		q8_0: register(&rowOp[actRowsKernel]{op: "DotQ8_0ActRows", forms: arch.dotActRows[q8_0]}),
		q4_0: register(&rowOp[actRowsKernel]{op: "DotQ4_0ActRows", forms: arch.dotActRows[q4_0]}),
		q4_K: register(&rowOp[actRowsKernel]{op: "DotQ4_KActRows", forms: arch.dotActRows[q4_K]}),
		q6_K: register(&rowOp[actRowsKernel]{op: "DotQ6_KActRows", forms: arch.dotActRows[q6_K]}),
	}
	decodeOps = [...]*kernelOp[decodeKernel]{
		q8_0: register(&kernelOp[decodeKernel]{op: "DecodeQ8_0", forms: arch.decode[q8_0]}),
		q4_0: register(&kernelOp[decodeKernel]{op: "DecodeQ4_0", forms: arch.decode[q4_0]}),
		q4_K: register(&kernelOp[decodeKernel]{op: "DecodeQ4_K", forms: arch.decode[q4_K]}),
		q6_K: register(&kernelOp[decodeKernel]{op: "DecodeQ6_K", forms: arch.decode[q6_K]}),
	}

	dotF32RowsNOp  = register(&rowOp[dotRowsNKernels[float32]]{op: "DotF32RowsN", forms: arch.dotF32RowsN, batched: true})
	dotBF16RowsNOp = register(&rowOp[dotRowsNKernels[uint16]]{op: "DotBF16RowsN", forms: arch.dotBF16RowsN, batched: true})
	dotF16RowsNOp  = register(&rowOp[dotRowsNKernels[uint16]]{op: "DotF16RowsN", forms: arch.dotF16RowsN, batched: true})
	dotActRowsNOps = [...]*tokenOp[actRowsNKernel]{
		q8_0: register(&tokenOp[actRowsNKernel]{op: actRowsNNames[q8_0], forms: arch.dotActRowsN[q8_0]}),
		q4_0: register(&tokenOp[actRowsNKernel]{op: actRowsNNames[q4_0], forms: arch.dotActRowsN[q4_0]}),
		q4_K: register(&tokenOp[actRowsNKernel]{op: actRowsNNames[q4_K], forms: arch.dotActRowsN[q4_K]}),
		q6_K: register(&tokenOp[actRowsNKernel]{op: actRowsNNames[q6_K], forms: arch.dotActRowsN[q6_K]}),
	}

	tileOp     = register(&kernelOp[tileKernel]{op: "Tile", forms: arch.tile})
	tile8Op    = register(&kernelOp[tileKernel]{op: "TilePart/8", forms: arch.tile8})
	addRowsOp  = register(&kernelOp[blockRowsKernel]{op: "AddRows", forms: arch.addRows})
	copyRowsOp = register(&kernelOp[blockRowsKernel]{op: "CopyRows", forms: arch.copyRows})
	tileQOps   = [2]*kernelOp[tileQKernel]{
		register(&kernelOp[tileQKernel]{op: "TileQ", forms: arch.tileQ[0]}),
		register(&kernelOp[tileQKernel]{op: "TileQ/Q4_K", forms: arch.tileQ[1]}),
	}
	tileQ8Ops = [2]*kernelOp[tileQKernel]{
		register(&kernelOp[tileQKernel]{op: "TileQPart/8", forms: arch.tileQ8[0]}),
		register(&kernelOp[tileQKernel]{op: "TileQPart/8/Q4_K", forms: arch.tileQ8[1]}),
	}

	tileQNOps = [...]*kernelOp[tileQNKernel]{
		QQ8_0: register(&kernelOp[tileQNKernel]{op: "TileQN/Q8_0", forms: arch.tileQN[QQ8_0]}),
		QQ4_0: register(&kernelOp[tileQNKernel]{op: "TileQN/Q4_0", forms: arch.tileQN[QQ4_0]}),
		QQ4_K: register(&kernelOp[tileQNKernel]{op: "TileQN/Q4_K", forms: arch.tileQN[QQ4_K]}),
		QQ6_K: register(&kernelOp[tileQNKernel]{op: "TileQN/Q6_K", forms: arch.tileQN[QQ6_K]}),
	}

	packBF16Op = register(&laneOp[packBF16Kernel]{op: "PackBF16", forms: arch.packBF16})
	packQOps   = [...]*kernelOp[packQKernel]{
		QQ8_0: register(&kernelOp[packQKernel]{op: "QPack.Pack/Q8_0", forms: arch.packQ[QQ8_0]}),
		QQ4_0: register(&kernelOp[packQKernel]{op: "QPack.Pack/Q4_0", forms: arch.packQ[QQ4_0]}),
		QQ4_K: register(&kernelOp[packQKernel]{op: "QPack.Pack/Q4_K", forms: arch.packQ[QQ4_K]}),
		QQ6_K: register(&kernelOp[packQKernel]{op: "QPack.Pack/Q6_K", forms: arch.packQ[QQ6_K]}),
	}
	widenBytesOp   = register(&kernelOp[widenBytesKernel]{op: "decodeQRow/bytes", forms: arch.widenBytes})
	widenNibblesOp = register(&kernelOp[widenNibblesKernel]{op: "decodeQRow/nibbles", forms: arch.widenNibbles})
	widenQ6Op      = register(&kernelOp[widenQ6Kernel]{op: "decodeQRow/Q6_K", forms: arch.widenQ6})

	transpose8Op = register(&laneOp[transpose8Kernel]{op: "Transpose8", forms: arch.transpose8})
	widenBF16Op  = register(&laneOp[widenKernel]{op: "WidenBF16", forms: arch.widenBF16})
	widenF16Op   = register(&laneOp[widenKernel]{op: "WidenF16", forms: arch.widenF16})

	attnTileOps = [2]*kernelOp[attnKernel[float32]]{
		register(&kernelOp[attnKernel[float32]]{op: "AttnTile/2", forms: arch.attnTile[0]}),
		register(&kernelOp[attnKernel[float32]]{op: "AttnTile/6", forms: arch.attnTile[1]}),
	}
	attnTileF16Ops = [2]*kernelOp[attnKernel[uint16]]{
		register(&kernelOp[attnKernel[uint16]]{op: "AttnTileF16/2", forms: arch.attnTileF16[0]}),
		register(&kernelOp[attnKernel[uint16]]{op: "AttnTileF16/6", forms: arch.attnTileF16[1]}),
	}
	attnTile32Ops = [2]*kernelOp[attn32Kernel[float32]]{
		register(&kernelOp[attn32Kernel[float32]]{op: "AttnTile32/2", forms: arch.attnTile32[0]}),
		register(&kernelOp[attn32Kernel[float32]]{op: "AttnTile32/6", forms: arch.attnTile32[1]}),
	}
	attnTile32F16Ops = [2]*kernelOp[attn32Kernel[uint16]]{
		register(&kernelOp[attn32Kernel[uint16]]{op: "AttnTile32F16/2", forms: arch.attnTile32F16[0]}),
		register(&kernelOp[attn32Kernel[uint16]]{op: "AttnTile32F16/6", forms: arch.attnTile32F16[1]}),
	}
	narrowF16Op = register(&laneOp[narrowKernel]{op: "NarrowF16", forms: arch.narrowF16})
	expSubOp    = register(&laneOp[expSubKernel]{op: "ExpSub", forms: arch.expSub})
	maxOp       = register(&laneOp[maxKernel]{op: "Max", forms: arch.max})
	scaleOp     = register(&laneOp[scaleKernel]{op: "Scale", forms: arch.scale})
	siluMulOp   = register(&laneOp[siluMulKernel]{op: "SiLUMul", forms: arch.siluMul})

	prefetchOp = register(&kernelOp[prefetchKernel]{op: "Prefetch", forms: arch.prefetch})
)

// attnVariant is the index of a row count (2 or 6) in the attention tiles' tables.
func attnVariant(rows int) int { return rows / AttnRows }
