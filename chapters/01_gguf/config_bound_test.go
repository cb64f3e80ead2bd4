package gguf

import "testing"

// TestConfigRejectsHugeContext: a file declaring a context of 4 billion positions would make the
// next chapters allocate hundreds of GB for RoPE tables; Validate refuses it with a clear error.
func TestConfigRejectsHugeContext(t *testing.T) {
	c := Qwen3_0_6B()
	if err := c.Validate(); err != nil {
		t.Fatalf("Qwen3-0.6B: %v", err)
	}
	c.MaxPositionEmbeddings = 0xF0000000
	wantFormatErr(t, c.Validate(), "max_position_embeddings", -1, "4026531840 exceeds")
}
