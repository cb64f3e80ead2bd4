package gguf

// ParamCounts splits a Qwen3 model's parameters into the groups that explain where the bytes go.
type ParamCounts struct {
	Embedding int64 // vocab x hidden; the LM head shares it when embeddings are tied
	Attention int64 // q, k, v, o projections of all layers
	MLP       int64 // gate, up, down projections of all layers
	Norms     int64 // input and post-attention RMSNorms, q_norm and k_norm of all layers, the final norm
	LMHead    int64 // vocab x hidden when not tied, else 0
}

// Total is the sum of the groups, counting a tied embedding once.
func (p ParamCounts) Total() int64 { return p.Embedding + p.Attention + p.MLP + p.Norms + p.LMHead }

// Matrices is the number of parameters stored in 2-D weight matrices (everything but the norms).
// These are the ones a quantized file stores in the quantized type.
func (p ParamCounts) Matrices() int64 { return p.Embedding + p.Attention + p.MLP + p.LMHead }

// CountParams counts the parameters of a Qwen3 model from its configuration. Per layer, with
// d = hidden, q = heads*head_dim, kv = kv_heads*head_dim, f = intermediate:
//
//	attention  d*q (q_proj) + 2*d*kv (k_proj, v_proj) + q*d (o_proj)
//	MLP        3*d*f (gate_proj, up_proj, down_proj)
//	norms      2*d (input, post-attention) + 2*head_dim (q_norm, k_norm)
//
// For Qwen3-0.6B that is 6,291,456 + 9,437,184 + 2,304 per layer; with 28 layers, the
// 151,936 x 1,024 embedding and the final norm: 596,049,920.
func CountParams(c Config) ParamCounts {
	d, hd := int64(c.HiddenSize), int64(c.HeadDim)
	q, kv := int64(c.NumAttentionHeads)*hd, int64(c.NumKeyValueHeads)*hd
	f, l := int64(c.IntermediateSize), int64(c.NumHiddenLayers)
	p := ParamCounts{
		Embedding: int64(c.VocabSize) * d,
		Attention: l * (d*q + 2*d*kv + q*d),
		MLP:       l * 3 * d * f,
		Norms:     l*(2*d+2*hd) + d,
	}
	if !c.TieWordEmbeddings {
		p.LMHead = p.Embedding
	}
	return p
}

// WeightBytes is the size of the tensor data of a Qwen3 model stored with its matrices in type t and
// its norms in F32 (as llama.cpp does), ignoring alignment padding and the metadata region.
func WeightBytes(c Config, t GGMLType) int64 {
	p := CountParams(c)
	return p.Matrices()/t.BlockSize()*t.TypeSize() + p.Norms*4
}
