package reference

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteTinyHFWithHead writes a copy of the tiny HF checkpoint into dir whose model.safetensors
// also stores an lm_head.weight, as the real Qwen3-0.6B's does, but a decoy one: the embedding
// negated. config.json says tie_word_embeddings = tied. A loader that honours the tie must
// ignore the stored head (and give the golden logits); one that does not, or an untied config,
// gives the negated logits. Tests of the tied LM head use it.
func WriteTinyHFWithHead(dir string, tied bool) error {
	src := TinyHFDir()
	for _, f := range []string{"generation_config.json", "tokenizer.json", "tokenizer_config.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	cfg, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return err
	}
	want := fmt.Sprintf(`"tie_word_embeddings": %v`, tied)
	cfg = []byte(strings.Replace(string(cfg), `"tie_word_embeddings": true`, want, 1))
	if !strings.Contains(string(cfg), want) {
		return fmt.Errorf("reference: config.json has no tie_word_embeddings to set")
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		return err
	}
	st, err := os.ReadFile(filepath.Join(src, "model.safetensors"))
	if err != nil {
		return err
	}
	n := binary.LittleEndian.Uint64(st)
	var header map[string]json.RawMessage
	if err := json.Unmarshal(st[8:8+n], &header); err != nil {
		return fmt.Errorf("reference: tiny safetensors header: %w", err)
	}
	data := st[8+n:]
	var embed struct {
		DType   string   `json:"dtype"`
		Shape   []int    `json:"shape"`
		Offsets [2]int64 `json:"data_offsets"`
	}
	if err := json.Unmarshal(header["model.embed_tokens.weight"], &embed); err != nil {
		return fmt.Errorf("reference: embed_tokens entry: %w", err)
	}
	head := append([]byte(nil), data[embed.Offsets[0]:embed.Offsets[1]]...)
	for i := 1; i < len(head); i += 2 {
		head[i] ^= 0x80 // flip the sign bit of every BF16 value (little-endian: the high byte)
	}
	embed.Offsets = [2]int64{int64(len(data)), int64(len(data) + len(head))}
	if header["lm_head.weight"], err = json.Marshal(embed); err != nil {
		return err
	}
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
	out = append(append(append(out, h...), data...), head...)
	return os.WriteFile(filepath.Join(dir, "model.safetensors"), out, 0o644)
}
