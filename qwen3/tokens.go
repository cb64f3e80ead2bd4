package qwen3

import "github.com/qwen3go/qwen3go/qwen3/internal/kernels"

// The per-token steps of a prompt chunk, over all cores: the RMS norms before the attention and
// MLP blocks with the rounding of their outputs to int16 blocks, QK-norm, RoPE and the cache
// store after the QKV pass, the rounding of the attention output and of silu(gate)·up. Each token
// is independent in all of them, so the pool hands out runs of tokens (tokenGrain) and every
// token gets the operations, in the order, that one core gave it: the same bits. One core doing
// them while the other waited was about a tenth of a 512-token prompt's time (two cores).

// tokenGrain is the tokens per run handed out: several runs per worker for a 128-token chunk, and
// a whole block of the key cache (kernels.AttnLanes positions share its cache lines, one lane
// each), so that two workers seldom write the same lines.
const tokenGrain = 16

// normQuantize writes xb = rmsnorm(x, w) for every token of the chunk and rounds it into xbChunk.
func (e *engine) normQuantize(w []float32) {
	e.jobNorm = w
	if e.xbChunk != nil {
		e.xbChunk.MarkWritten() // filled through the workers' views below
	}
	e.m.pool.run(e.n, tokenGrain, e.normQuantBody)
}

func (e *engine) normQuantTokens(worker, lo, hi int) {
	H := e.c.Hidden
	for t := lo; t < hi; t++ {
		rmsnorm(e.xb[t*H:(t+1)*H], e.x[t*H:(t+1)*H], e.jobNorm, e.c.Eps)
	}
	e.quantizeRange(worker, e.xbChunk, e.xb, H, lo, hi)
}

// quantizeTokens rounds the chunk's inputs x (width values per token) into a, as quantizeChunk
// does, over all cores.
func (e *engine) quantizeTokens(a *kernels.Act, x []float32, width int) {
	if a == nil {
		return
	}
	e.jobAct, e.jobX, e.jobWidth = a, x, width
	a.MarkWritten() // filled through the workers' views below
	e.m.pool.run(e.n, tokenGrain, e.quantBody)
}

func (e *engine) quantTokens(worker, lo, hi int) {
	e.quantizeRange(worker, e.jobAct, e.jobX, e.jobWidth, lo, hi)
}

// quantizeRange rounds tokens [lo, hi) of x into their part of a, through the worker's view of
// it: an Act's blocks are a token's 32 consecutive values (width is whole blocks), so a run of
// tokens is a run of the Act.
func (e *engine) quantizeRange(worker int, a *kernels.Act, x []float32, width, lo, hi int) {
	if a == nil {
		return
	}
	nb := width / kernels.ActBlock
	v := &e.actViews[worker]
	v.Q, v.Scale, v.Sum = a.Q[lo*width:hi*width], a.Scale[lo*nb:hi*nb], a.Sum[lo*nb:hi*nb]
	v.Sum16 = a.Sum16[lo*2*nb : hi*2*nb]
	v.Quantize(x[lo*width : hi*width])
}

// rotateStoreTokens applies QK-norm and RoPE to tokens [lo, hi) and stores their keys and values.
func (e *engine) rotateStoreTokens(worker, lo, hi int) {
	e.normRotateTokens(lo, hi)
	e.storeKVTokens(lo, hi, e.khs[worker])
}

// A Batch's step of batchTileMin tokens or more (the matrices' inputs laid out for
// kernels.TileQN) runs its per-token steps over all cores too: the RMS norm and the rounding
// to int16 blocks by runs of tokens (stepGrain), then the layout by runs of blocks, each core
// writing its own words. On one core, with the other waiting, these steps took 0.2 s of the
// 2.84 s of 64 Q8_0 steps of 16 tokens (a CPU profile, AMD EPYC, 2026-11-27). Each token gets the
// operations one core gave it: the same bits.

// stepGrain is the tokens per run of a Batch step's per-token steps: 16 tokens are 4 runs.
const stepGrain = 4

// layOutGrain is the blocks per run of the layout: 1024 values (32 blocks) are 8 runs.
const layOutGrain = 4

// normQuantizeStep writes xb = rmsnorm(x, w) for every token of a decoding pass and rounds it
// into xbChunk (and lays it out in xbN when the step has it).
func (e *engine) normQuantizeStep(w []float32) {
	H := e.c.Hidden
	if e.xbN == nil || e.xbChunk == nil || e.m.pool.workers() == 1 {
		for t := 0; t < e.n; t++ {
			rmsnorm(e.xb[t*H:(t+1)*H], e.x[t*H:(t+1)*H], w, e.c.Eps)
		}
		e.quantizeChunk(e.xbChunk, e.xbN, e.xb, H)
		return
	}
	e.jobNorm = w
	e.xbChunk.MarkWritten() // filled through the workers' views
	e.m.pool.run(e.n, stepGrain, e.normQuantBody)
	e.layOut(e.xbChunk, e.xbN, H)
}

// quantizeTokensN rounds x (width values per token) into a over all cores and lays it out in xn.
func (e *engine) quantizeTokensN(a *kernels.Act, xn *kernels.ActN, x []float32, width int) {
	e.jobAct, e.jobX, e.jobWidth = a, x, width
	a.MarkWritten() // filled through the workers' views
	e.m.pool.run(e.n, stepGrain, e.quantBody)
	e.layOut(a, xn, width)
}

// layOut lays out the step's tokens of a (width values each) in xn, by runs of blocks.
func (e *engine) layOut(a *kernels.Act, xn *kernels.ActN, width int) {
	xn.Shape(a, e.n, width)
	e.jobAct, e.jobN = a, xn
	e.m.pool.run(width/kernels.ActBlock, layOutGrain, e.layOutBody)
}

func (e *engine) layOutBlocks(_, lo, hi int) { e.jobN.SetBlocks(e.jobAct, lo, hi) }
