package gguf

import (
	"strconv"
	"strings"
)

// The same Qwen3 weights go by two sets of names. Hugging Face names follow the PyTorch module
// tree (model.layers.3.self_attn.q_proj.weight); llama.cpp's GGUF names are short and flat
// (blk.3.attn_q.weight). The tables below are the whole map; tensors are never permuted in
// llama.cpp's qwen3 conversion, only renamed (and their dims listed in reverse order).

// The Hugging Face names of the tensors outside the layers.
const (
	EmbedName  = "model.embed_tokens.weight" // vocab x hidden
	NormName   = "model.norm.weight"         // the final RMSNorm, hidden
	LMHeadName = "lm_head.weight"            // vocab x hidden; absent or ignored when tied
)

// globalNames maps the tensors outside the layers, HF name first. (Functions returning arrays,
// not package variables, so nothing can change the map.)
func globalNames() [3][2]string {
	return [...][2]string{
		{EmbedName, "token_embd.weight"},
		{NormName, "output_norm.weight"},
		{LMHeadName, "output.weight"},
	}
}

// LayerNames are the Hugging Face names of one decoder layer's 11 tensors, in the order of
// layerNames.
type LayerNames struct {
	InputNorm, Q, K, V, O, QNorm, KNorm, PostNorm, Gate, Up, Down string
}

// Layer returns the names of layer i's tensors: Layer(3).Q is "model.layers.3.self_attn.q_proj.weight".
func Layer(i int) LayerNames {
	var n [11]string
	p := "model.layers." + strconv.Itoa(i) + "."
	for j, row := range layerNames() {
		n[j] = p + row[0]
	}
	return LayerNames{n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10]}
}

// LayerOf returns the layer number of a per-layer Hugging Face name ("model.layers.3.mlp.up_proj.weight"
// -> 3); ok is false for any other name.
func LayerOf(hf string) (layer int, ok bool) {
	rest, ok := strings.CutPrefix(hf, "model.layers.")
	if !ok {
		return 0, false
	}
	num, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || strconv.Itoa(n) != num {
		return 0, false
	}
	return n, true
}

// layerNames maps the per-layer suffixes: model.layers.N.<hf> <-> blk.N.<gguf>. The rows are in the
// order of LayerNames' fields.
func layerNames() [11][2]string {
	return [...][2]string{
		{"input_layernorm.weight", "attn_norm.weight"},
		{"self_attn.q_proj.weight", "attn_q.weight"},
		{"self_attn.k_proj.weight", "attn_k.weight"},
		{"self_attn.v_proj.weight", "attn_v.weight"},
		{"self_attn.o_proj.weight", "attn_output.weight"},
		{"self_attn.q_norm.weight", "attn_q_norm.weight"},
		{"self_attn.k_norm.weight", "attn_k_norm.weight"},
		{"post_attention_layernorm.weight", "ffn_norm.weight"},
		{"mlp.gate_proj.weight", "ffn_gate.weight"},
		{"mlp.up_proj.weight", "ffn_up.weight"},
		{"mlp.down_proj.weight", "ffn_down.weight"},
	}
}

// GGUFName translates a Hugging Face tensor name to llama.cpp's GGUF name:
// "model.layers.3.self_attn.q_proj.weight" -> "blk.3.attn_q.weight". ok is false for names
// outside the Qwen3 map.
func GGUFName(hf string) (name string, ok bool) {
	return translate(hf, "model.layers.", "blk.", 0)
}

// HFName translates a GGUF tensor name back to the Hugging Face name: "blk.3.attn_q.weight" ->
// "model.layers.3.self_attn.q_proj.weight".
func HFName(gguf string) (name string, ok bool) {
	return translate(gguf, "blk.", "model.layers.", 1)
}

// translate maps name using column from of the tables (0 = HF, 1 = GGUF) to the other column.
func translate(name, fromPrefix, toPrefix string, from int) (string, bool) {
	to := 1 - from
	for _, g := range globalNames() {
		if g[from] == name {
			return g[to], true
		}
	}
	rest, ok := strings.CutPrefix(name, fromPrefix)
	if !ok {
		return "", false
	}
	num, suffix, ok := strings.Cut(rest, ".")
	if !ok {
		return "", false
	}
	if n, err := strconv.Atoi(num); err != nil || n < 0 || strconv.Itoa(n) != num {
		return "", false // "01" or "-1" or "x" is not a layer number
	}
	for _, l := range layerNames() {
		if l[from] == suffix {
			return toPrefix + num + "." + l[to], true
		}
	}
	return "", false
}
