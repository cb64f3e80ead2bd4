package gguf

import "testing"

func TestNameMap(t *testing.T) {
	pairs := map[string]string{
		"model.embed_tokens.weight":                       "token_embd.weight",
		"model.norm.weight":                               "output_norm.weight",
		"lm_head.weight":                                  "output.weight",
		"model.layers.0.input_layernorm.weight":           "blk.0.attn_norm.weight",
		"model.layers.3.self_attn.q_proj.weight":          "blk.3.attn_q.weight",
		"model.layers.27.self_attn.k_proj.weight":         "blk.27.attn_k.weight",
		"model.layers.1.self_attn.v_proj.weight":          "blk.1.attn_v.weight",
		"model.layers.1.self_attn.o_proj.weight":          "blk.1.attn_output.weight",
		"model.layers.1.self_attn.q_norm.weight":          "blk.1.attn_q_norm.weight",
		"model.layers.1.self_attn.k_norm.weight":          "blk.1.attn_k_norm.weight",
		"model.layers.10.post_attention_layernorm.weight": "blk.10.ffn_norm.weight",
		"model.layers.2.mlp.gate_proj.weight":             "blk.2.ffn_gate.weight",
		"model.layers.2.mlp.up_proj.weight":               "blk.2.ffn_up.weight",
		"model.layers.2.mlp.down_proj.weight":             "blk.2.ffn_down.weight",
	}
	for hf, g := range pairs {
		if got, ok := GGUFName(hf); !ok || got != g {
			t.Errorf("GGUFName(%q) = %q, %v; want %q", hf, got, ok, g)
		}
		if got, ok := HFName(g); !ok || got != hf {
			t.Errorf("HFName(%q) = %q, %v; want %q", g, got, ok, hf)
		}
	}
	for _, bad := range []string{"", "blk.x.attn_q.weight", "blk.01.attn_q.weight", "blk.-1.attn_q.weight", "blk.0.attn_z.weight", "blk.0", "model.layers.0.mlp.weight", "rope_freqs.weight"} {
		if got, ok := HFName(bad); ok {
			t.Errorf("HFName(%q) = %q, want no mapping", bad, got)
		}
		if got, ok := GGUFName(bad); ok {
			t.Errorf("GGUFName(%q) = %q, want no mapping", bad, got)
		}
	}
}

// TestLayerNames: Layer spells every per-layer name as transformers' module tree does, in field order.
func TestLayerNames(t *testing.T) {
	want := LayerNames{
		InputNorm: "model.layers.7.input_layernorm.weight",
		Q:         "model.layers.7.self_attn.q_proj.weight", K: "model.layers.7.self_attn.k_proj.weight",
		V: "model.layers.7.self_attn.v_proj.weight", O: "model.layers.7.self_attn.o_proj.weight",
		QNorm: "model.layers.7.self_attn.q_norm.weight", KNorm: "model.layers.7.self_attn.k_norm.weight",
		PostNorm: "model.layers.7.post_attention_layernorm.weight",
		Gate:     "model.layers.7.mlp.gate_proj.weight", Up: "model.layers.7.mlp.up_proj.weight", Down: "model.layers.7.mlp.down_proj.weight",
	}
	if got := Layer(7); got != want {
		t.Errorf("Layer(7) =\n%+v\nwant\n%+v", got, want)
	}
	for name, want := range map[string]int{want.Down: 7, "model.layers.0.input_layernorm.weight": 0, "model.layers.31.x": 31} {
		if got, ok := LayerOf(name); !ok || got != want {
			t.Errorf("LayerOf(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
	for _, bad := range []string{EmbedName, "model.layers.x.q", "model.layers.01.q", "model.layers.-1.q"} {
		if _, ok := LayerOf(bad); ok {
			t.Errorf("LayerOf(%q) is a layer", bad)
		}
	}
}
