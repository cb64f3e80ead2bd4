package forward

import (
	rmsnorm "github.com/qwen3go/qwen3go/chapters/03_rmsnorm"
	"gonum.org/v1/gonum/mat"
)

// The two wirings below are what came before Qwen3's pre-norm residual layer (Layer.Forward),
// kept to compare with it (the package doc's "Why a residual stream, and why the norm comes
// first"). Qwen3 uses neither. Both take the same weights and the same attention function as
// Layer.Forward, and RMSNorm where the original models had LayerNorm, so that only the wiring
// differs.

// PostNormForward is the layer of the original Transformer and BERT ("post-norm"): the residual
// sum is normalized after each block, so the stream leaves every layer with unit RMS:
//
//	h   = RMSNorm(x + attn(x), InputNorm)
//	out = RMSNorm(h + MLP(h), PostNorm)
//
// x (seq x hidden) is not modified.
func (l *Layer) PostNormForward(x *mat.Dense, eps float64, attn func(*mat.Dense) *mat.Dense) *mat.Dense {
	seq, hidden := x.Dims()
	h := mat.NewDense(seq, hidden, nil)
	h.Add(x, attn(x))
	h = rmsnorm.RMSNorm(h, l.InputNorm, eps)
	out := mat.NewDense(seq, hidden, nil)
	out.Add(h, l.MLP.Forward(h))
	return rmsnorm.RMSNorm(out, l.PostNorm, eps)
}

// NoResidualForward is the layer without its residual connections: each block's output replaces
// the stream instead of being added to it,
//
//	h   = attn(RMSNorm(x, InputNorm))
//	out = MLP(RMSNorm(h, PostNorm))
//
// a plain stack of blocks, as deep networks were before residual connections (ResNet, 2015).
// x (seq x hidden) is not modified.
func (l *Layer) NoResidualForward(x *mat.Dense, eps float64, attn func(*mat.Dense) *mat.Dense) *mat.Dense {
	h := attn(rmsnorm.RMSNorm(x, l.InputNorm, eps))
	return l.MLP.Forward(rmsnorm.RMSNorm(h, l.PostNorm, eps))
}
