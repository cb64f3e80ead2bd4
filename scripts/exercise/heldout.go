package main

// slip writes a held-out mistake of one hunk: the solution lines old replaced by the lines new.
func slip(desc, says string, old []string, new ...string) mistake {
	return mistake{Desc: desc, Says: says, Hunks: []hunk{{Old: old, New: new}}}
}

// lines is a list of solution lines, for slip.
func lines(l ...string) []string { return l }

// heldOut holds, for each exercise, mistakes that its fence does not list: the check injects them
// as it does the listed ones, to see how well the tests catch what their authors did not think
// of. Each is one of three classic slips (a wrong constant, a transposed operand, an off-by-one),
// written here rather than in the chapters so that the tests were not written with them in view.
// Says is what a failure that names the slip would say; the check counts how many do, and fails
// when one is not caught at all.
var heldOut = map[string][]mistake{
	// 01_gguf
	"gguf.readHeader": {
		slip("only version 3 accepted", "good version 2 header", lines("case v == 2 || v == 3:"), "case v == 3:"),
		slip("the tensor count bounded by the size of a metadata entry", "3 tensor infos take at least 72 bytes",
			lines("if tc > left/minTensorInfoSize {"), "if tc > left/minKVSize {"),
	},
	"gguf.File.dataOffset": {
		slip("a whole alignment added, even to an aligned end", "one alignment too far",
			lines("return (tableEnd + a - 1) / a * a"), "return (tableEnd + a) / a * a"),
		slip("a - 2 added instead of a - 1", "rounded down", lines("return (tableEnd + a - 1) / a * a"), "return (tableEnd + a - 2) / a * a"),
	},
	"gguf.BF16ToF32": {
		slip("shifted by 15", "top 16 bits", lines("return math.Float32frombits(uint32(h) << 16)"), "return math.Float32frombits(uint32(h) << 15)"),
		slip("shifted the wrong way", "top 16 bits", lines("return math.Float32frombits(uint32(h) << 16)"), "return math.Float32frombits(uint32(h) >> 16)"),
	},
	"gguf.DequantizeQ8_0": {
		slip("the quants read from byte 1", "read from byte 1", lines("y[j] = float32(int8(block[2+j])) * d"), "y[j] = float32(int8(block[1+j])) * d"),
		slip("the scale read big-endian", "big-endian", lines("d := F16ToF32(binary.LittleEndian.Uint16(block))"), "d := F16ToF32(binary.BigEndian.Uint16(block))"),
	},
	"gguf.File.Uint32": {
		slip("looked up as INT32", "want 28", lines("kv, err := f.lookup(key, TypeUint32)"), "kv, err := f.lookup(key, TypeInt32)"),
		slip("the error test inverted", "want 28", lines("if err != nil {"), "if err == nil {"),
	},

	// 02_tokenizer
	"tokenizer.ByteToRune": {
		slip("the code points from 255 up", "256, 257", lines("next := rune(256)"), "next := rune(255)"),
		slip("'~' left out of the printable bytes", "map to themselves",
			lines("printable := (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)"),
			"printable := (b >= '!' && b < '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF)"),
	},
	"tokenizer.MergeStep": {
		slip("the pair's right id kept after the merge", "the new sequence is wrong", lines("out = append(out, ids[best+2:]...)"), "out = append(out, ids[best+1:]...)"),
		slip("the last pair never looked at", "the last pair", lines("for i := 0; i+1 < len(ids); i++ {"), "for i := 0; i+2 < len(ids); i++ {"),
	},

	// 03_rmsnorm
	"rmsnorm.normRow": {
		slip("the sum of squares divided by n+1", "n+1", lines("inv := 1 / math.Sqrt(ss/float64(len(src))+eps)"),
			"inv := 1 / math.Sqrt(ss/float64(len(src)+1)+eps)"),
		slip("multiplied by the root instead of divided", "multiplied by", lines("inv := 1 / math.Sqrt(ss/float64(len(src))+eps)"),
			"inv := math.Sqrt(ss/float64(len(src)) + eps)"),
	},
	"rmsnorm.NormHeads": {
		slip("the last head skipped", "the last head", lines("for off := 0; off < width; off += headDim {"), "for off := 0; off < width-headDim; off += headDim {"),
		slip("dst and src swapped", "write y[i] into dst", lines("normRow(dst[off:off+headDim], src[off:off+headDim], weight, eps)"),
			"normRow(src[off:off+headDim], dst[off:off+headDim], weight, eps)"),
	},

	// 04_rope
	"rope.InvFreq": {
		slip("the exponent over d/2", "not d/2", lines("exp := float32(2*i) / float32(headDim)"), "exp := float32(2*i) / float32(headDim/2)"),
		slip("pair i+1's frequency in slot i", "i starts at 0", lines("exp := float32(2*i) / float32(headDim)"), "exp := float32(2*(i+1)) / float32(headDim)"),
	},
	"rope.RotateHead": {
		slip("cos and sin swapped", "cos and sin", lines("v[i] = a*cos[i] - b*sin[i]", "v[i+half] = b*cos[i] + a*sin[i]"),
			"v[i] = a*sin[i] - b*cos[i]", "v[i+half] = b*sin[i] + a*cos[i]"),
		slip("the angle of position pos+1", "position pos+1", lines("cos, sin := t.cos[pos*half:(pos+1)*half], t.sin[pos*half:(pos+1)*half]"),
			"cos, sin := t.cos[(pos+1)*half:(pos+2)*half], t.sin[(pos+1)*half:(pos+2)*half]"),
	},

	// 05_attention
	"attention.Mask": {
		slip("keys past+r+2 on hidden: one future key visible", "a future key is visible", lines("for j := past + r + 1; j < nk; j++ {"), "for j := past + r + 2; j < nk; j++ {"),
		slip("nq and nk swapped in the bound", "nk", lines("for j := past + r + 1; j < nk; j++ {"), "for j := past + r + 1; j < nq; j++ {"),
	},
	"attention.Softmax": {
		slip("divided by the sum plus one", "divide each exp(s_j - max) by the sum", lines("row[j] /= sum"), "row[j] /= math.Exp(0)*sum + 1"),
		slip("the minimum subtracted instead of the maximum", "subtract the row's maximum", lines("m = math.Max(m, s)"), "m = math.Min(m, s)"),
	},
	"attention.KVHead": {
		slip("the group size off by one", "group size", lines("return h / (heads / kvHeads)"), "return h / (heads/kvHeads + 1)"),
		slip("heads and kvHeads swapped", "kvHeads/heads", lines("return h / (heads / kvHeads)"), "return h / max(1, kvHeads/heads)"),
	},
	"attention.AttendMask": {
		slip("multiplied by sqrt(head_dim)", "want 1/sqrt(head_dim)", lines("p.Scale(scale, p)"), "p.Scale(1/scale, p)"),
		slip("the last query row left without its softmax", "every row", lines("for r := 0; r < nq; r++ {", "Softmax(p.RawRowView(r))"),
			"for r := 0; r < nq-1; r++ {", "\tSoftmax(p.RawRowView(r))"),
	},
	"attention.ProjectAt": {
		slip("k normalized with q's weight", "k_norm", lines("k = rot.RotatePositions(c.qkNorm(k, w.KNorm), positions)"),
			"k = rot.RotatePositions(c.qkNorm(k, w.QNorm), positions)"),
		slip("x multiplied by K for the values", "V^T", lines("v.Mul(x, w.V.T())"), "v.Mul(x, w.K.T())"),
	},

	// 06_mlp
	"mlp.SiLU": {
		slip("the sigmoid of 2z", "sigmoid(2z)", lines("return z * Sigmoid(z)"), "return z * Sigmoid(2*z)"),
		slip("z added to the sigmoid", "z + sigmoid(z)", lines("return z * Sigmoid(z)"), "return z + Sigmoid(z)"),
	},
	"mlp.Forward": {
		slip("up projected with the gate's weights", "gate's weights", lines("u.Mul(x, up.T())"), "u.Mul(x, gate.T())"),
		slip("SiLU of the up projection on both sides", "silu(u)", lines("h.Apply(func(i, j int, g float64) float64 { return SiLU(g) * u.At(i, j) }, h)"),
			"h.Apply(func(i, j int, g float64) float64 { return SiLU(u.At(i, j)) * u.At(i, j) }, h)"),
	},

	// 07_forward
	"forward.Model.Embed": {
		slip("row ids[t]+1, the next token's", "ids[t]+1", lines("x.SetRow(t, m.Embedding.RawRowView(id))"), "x.SetRow(t, m.Embedding.RawRowView(min(id+1, vocab-1)))"),
		slip("every row from the first token", "row ids[t]", lines("x.SetRow(t, m.Embedding.RawRowView(id))"), "x.SetRow(t, m.Embedding.RawRowView(ids[0]+0*id))"),
	},
	"forward.Layer.Forward": {
		slip("the attention branch normalized with the post-attention weight", "PostNorm", lines("h.Add(x, attn(rmsnorm.RMSNorm(x, l.InputNorm, eps)))"),
			"h.Add(x, attn(rmsnorm.RMSNorm(x, l.PostNorm, eps)))"),
		slip("the MLP added to x, not h", "x + MLP", lines("out.Add(h, l.MLP.Forward(rmsnorm.RMSNorm(h, l.PostNorm, eps)))"),
			"out.Add(x, l.MLP.Forward(rmsnorm.RMSNorm(h, l.PostNorm, eps)))"),
	},
	"forward.Model.Logits": {
		slip("the final norm with eps 1e-5", "the model's own eps", lines("normed = rmsnorm.RMSNorm(h, m.Norm, m.Config.RMSNormEps)"), "normed = rmsnorm.RMSNorm(h, m.Norm, 1e-5)"),
		slip("the logits doubled", "twice", lines("logits.Mul(normed, m.LMHead.T())"),
			"logits.Mul(normed, m.LMHead.T())", "logits.Scale(2, logits)"),
	},

	// 08_kvcache
	"kvcache.Cache.attend": {
		slip("the keys stored as the values too", "values", lines("c.v[l] = c.appendRows(c.v[l], v)"), "c.v[l] = c.appendRows(c.v[l], k)", "_ = v"),
		slip("past one short", "past = Len()", lines("ctx, _ = attention.Attend(ac, q, keys, values, c.n)"), "ctx, _ = attention.Attend(ac, q, keys, values, max(0, c.n-1))"),
	},
	"kvcache.Cache.run": {
		slip("Len() advanced one too far", "counts each token once", lines("c.n += len(ids)"), "c.n += len(ids) + 1"),
		slip("the layers run from the second one", "layer 0", lines("for l := range c.m.Layers {"), "for l := 1; l < len(c.m.Layers); l++ {"),
	},
	"kvcache.Bytes": {
		slip("bytes per value left out", "bytes per value", lines("perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim) * int64(bytesPerValue)"),
			"perToken := int64(cfg.NumHiddenLayers) * 2 * int64(cfg.NumKeyValueHeads) * int64(cfg.HeadDim)"),
		slip("one token fewer", "times tokens", lines("return perToken * int64(tokens)"), "return perToken * int64(tokens-1)"),
	},

	// 09_sampling
	"sampling.Softmax": {
		slip("the sum starts at 1", "divide each exp(z_i - max) by their sum", lines("sum := 0.0"), "sum := 1.0"),
		slip("the minimum for the maximum", "subtract the maximum", lines("m = max(m, v)"), "m = min(m, v)"),
	},
	"sampling.TopP": {
		slip("the cut at p instead of 1-p", "1-p", lines("if cum <= 1-p {"), "if cum <= p {"),
		slip("the second most likely token always kept too", "", lines("for r, id := range order[:len(order)-1] { // the most likely token is always kept"),
			"for r, id := range order[:max(0, len(order)-2)] {"),
	},
	"sampling.MinP": {
		slip("the floor halved", "max(probs)", lines("top := slices.Max(probs)"), "top := slices.Max(probs) * 0.5"),
		slip("the floor compared with the logits", "probabilities", lines("if pr < minP*top {"), "if _ = pr; z[i] < minP*top {"),
	},
	"sampling.Warp": {
		slip("top-p skipped when it is 0.9 or more", "", lines("if s.TopP < 1 {"), "if s.TopP < 0.9 {"),
		slip("top-k and top-p swapped", "top-k, then top-p", lines("if s.TopK > 0 {", "out = TopK(out, s.TopK)", "}", "if s.TopP < 1 {", "out = TopP(out, s.TopP)", "}"),
			"if s.TopP < 1 {", "\tout = TopP(out, s.TopP)", "}", "if s.TopK > 0 {", "\tout = TopK(out, s.TopK)", "}"),
	},
	"sampling.Draw": {
		slip("the sum starts at the first probability", "", lines("cum := 0.0"), "cum := probs[0]"),
		slip("last never updated", "positive probability", lines("last = i"), "_ = last"),
	},

	// 10_batching
	"batching.Pad": {
		slip("the prompt one column too far left", "one column", lines("start = width - len(p)"), "start = max(0, width-len(p)-1)"),
		slip("the last column of the prompt not marked real", "last column", lines("for t := start; t < start+len(p); t++ {"), "for t := start; t < start+len(p)-1; t++ {"),
	},
	"batching.Positions": {
		slip("positions counted from 1 on the first token only", "position 1", lines("pos[t] = seen - 1"), "pos[t] = max(seen-1, min(t, 1))"),
		slip("the first column never counted", "first column", lines("if r {"), "if r && t > 0 {"),
	},
	"batching.Mask": {
		slip("a query's own column hidden", "its own key", lines("if j <= past+r && real[j] {"), "if j < past+r && real[j] {"),
		slip("the fallback column one too far", "its own key", lines("row[past+r] = 0"), "row[min(past+r+1, nk-1)] = 0"),
	},
	"batching.Cache.Step": {
		slip("the position one past the next", "position", lines("pos[i] = s.next"), "pos[i] = s.next + 1"),
		slip("the new column marked real for the first sequence only", "marked real", lines("s.real = append(s.real, true)"), "s.real = append(s.real, i == 0)"),
	},
	"batching.generation.pick": {
		slip("the budget one token short", "budget", lines("if len(g.out[b]) == g.budget {"), "if len(g.out[b]) == g.budget-1 {"),
		slip("every sequence sampled from the first row of logits", "own row", lines("id, err := g.samplers[b].Sample(logits[i])"), "id, err := g.samplers[b].Sample(logits[0])"),
	},
}
