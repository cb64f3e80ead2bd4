package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
)

// inspect prints what a model path holds, whichever of the three kinds it is:
//   - a GGUF file: header, the configuration its metadata gives, every metadata entry, the tensor table;
//   - a safetensors file: header, metadata, every tensor's dtype, shape and byte range;
//   - a Hugging Face directory: config.json as a table, the tensors of every shard, a summary of
//     tokenizer.json, and generation_config.json's sampling defaults.
func inspect(path string, w io.Writer) error {
	kind, err := gguf.DetectKind(path)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	switch kind {
	case gguf.KindGGUF:
		return inspectGGUF(path, tw)
	case gguf.KindSafetensors:
		return inspectSafetensors(path, tw)
	}
	return inspectHF(path, tw)
}

func inspectGGUF(path string, w io.Writer) error {
	f, err := gguf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(w, "GGUF v%d file %s: %d bytes, %d metadata entries, %d tensors, alignment %d, data at byte %d\n",
		f.Version, path, f.Size, len(f.Metadata), len(f.Tensors), f.Alignment, f.DataOffset)
	if cfg, err := gguf.ConfigFromGGUF(f); err != nil {
		fmt.Fprintf(w, "\nthe metadata does not describe a model this course runs:\n%v\n", err)
	} else {
		fmt.Fprintf(w, "\nCONFIG (from the %s.* metadata; tie_word_embeddings when there is no output.weight)\n", cfg.ModelType)
		configTable(w, cfg)
	}
	fmt.Fprintf(w, "\nKEY\tTYPE\tVALUE\n")
	for _, kv := range f.Metadata {
		fmt.Fprintf(w, "%s\t%s\t%s\n", kv.Key, kv.Value.TypeName(), oneLine(kv.Value.Format(6)))
	}
	fmt.Fprintf(w, "\nTENSOR\tTYPE\tDIMS (ne0 first)\tOFFSET\tBYTES\n")
	var total int64
	byType := map[string]int64{}
	for _, t := range f.Tensors {
		fmt.Fprintf(w, "%s\t%v\t%v\t%d\t%d\n", t.Name, t.Type, t.Dims, t.Offset, t.NumBytes())
		total += t.NumBytes()
		byType[t.Type.String()] += t.NumBytes()
	}
	fmt.Fprintf(w, "\n%d tensors, %d bytes of data (%s)\n", len(f.Tensors), total, perType(byType))
	return nil
}

func inspectSafetensors(path string, w io.Writer) error {
	s, err := gguf.OpenSafetensors(path)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(w, "safetensors file %s: %d bytes; JSON header at bytes 8..%d; data buffer from byte %d; %d tensors\n",
		path, s.Size, s.DataOffset, s.DataOffset, len(s.Tensors))
	for _, k := range slices.Sorted(maps.Keys(s.Metadata)) {
		fmt.Fprintf(w, "__metadata__ %s = %q\n", k, s.Metadata[k])
	}
	byType := map[string]int64{}
	tensorTable(w, s.Tensors, s.DataOffset, byType)
	fmt.Fprintf(w, "\n%d tensors, %d bytes of data (%s)\n", len(s.Tensors), s.Size-s.DataOffset, perType(byType))
	dir := filepath.Dir(path)
	fmt.Fprintf(w, "\nA safetensors file holds only weights: `qwen3 run` and `qwen3 chat` need the directory with config.json and tokenizer.json")
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err == nil {
		fmt.Fprintf(w, ": -model %s (inspect it too)", dir)
	}
	fmt.Fprintln(w)
	return nil
}

func inspectHF(dir string, w io.Writer) error {
	ck, err := gguf.OpenCheckpoint(dir)
	if err != nil {
		return err
	}
	defer ck.Close()
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return err
	}
	form := "the hub's form: top-level rope_theta"
	if bytes.Contains(raw, []byte(`"rope_parameters"`)) {
		form = "transformers 5's form: rope_parameters"
	}
	fmt.Fprintf(w, "Hugging Face directory %s\n\nCONFIG (config.json, %s)\n", dir, form)
	configTable(w, ck.Config)

	fmt.Fprintf(w, "\nTENSOR\tDTYPE\tSHAPE\tBYTES\n")
	byType := map[string]int64{}
	var total int64
	for _, name := range ck.TensorNames() {
		t, _ := ck.Tensor(name)
		fmt.Fprintf(w, "%s\t%s\t%v\t%d\n", name, t.DType, t.Shape, t.End-t.Begin)
		byType[t.DType] += t.End - t.Begin
		total += t.End - t.Begin
	}
	fmt.Fprintf(w, "\n%d tensors, %d bytes (%s)", len(ck.TensorNames()), total, perType(byType))
	if _, ok := ck.Tensor(gguf.LMHeadName); ok && ck.Config.TieWordEmbeddings {
		fmt.Fprintf(w, "; lm_head.weight is stored but tied to the embedding, so it is not used")
	}
	fmt.Fprintln(w)

	fmt.Fprintf(w, "\nTOKENIZER (tokenizer.json)\n")
	tokenizerSummary(w, dir, ck.Config)
	fmt.Fprintf(w, "\nGENERATION DEFAULTS (generation_config.json)\n")
	return generationTable(w, filepath.Join(dir, "generation_config.json"))
}

// configTable prints a configuration under config.json's keys, and what follows from it.
func configTable(w io.Writer, c gguf.Config) {
	p := gguf.CountParams(c)
	rows := [][2]any{
		{"architectures", strings.Join(c.Architectures, " ")}, {"model_type", c.ModelType},
		{"hidden_size", c.HiddenSize}, {"intermediate_size", c.IntermediateSize}, {"num_hidden_layers", c.NumHiddenLayers},
		{"num_attention_heads", c.NumAttentionHeads}, {"num_key_value_heads", c.NumKeyValueHeads},
		{"head_dim", fmt.Sprintf("%d (queries %d wide, keys and values %d)", c.HeadDim, c.NumAttentionHeads*c.HeadDim, c.NumKeyValueHeads*c.HeadDim)},
		{"vocab_size", c.VocabSize}, {"max_position_embeddings", c.MaxPositionEmbeddings},
		{"rope_theta", c.RopeTheta}, {"rope_type", c.RopeType}, {"rms_norm_eps", c.RMSNormEps},
		{"tie_word_embeddings", c.TieWordEmbeddings}, {"bos_token_id", tokenID(c.BOSTokenID)}, {"eos_token_id", tokenID(c.EOSTokenID)},
		{"dtype", orNone(c.DType)},
		{"parameters", fmt.Sprintf("%d (embedding %d, attention %d, MLP %d, norms %d, untied head %d)",
			p.Total(), p.Embedding, p.Attention, p.MLP, p.Norms, p.LMHead)},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %s\t%v\n", r[0], r[1])
	}
}

func tokenID(id int) string {
	if id < 0 {
		return "none"
	}
	return fmt.Sprint(id)
}

func orNone(s string) string {
	if s == "" {
		return "none given"
	}
	return s
}

// tensorTable prints safetensors header entries with their byte ranges in the file.
func tensorTable(w io.Writer, ts []gguf.STTensor, dataOffset int64, byType map[string]int64) {
	fmt.Fprintf(w, "\nTENSOR\tDTYPE\tSHAPE\tBYTES OF THE FILE\tSIZE\n")
	for _, t := range ts {
		fmt.Fprintf(w, "%s\t%s\t%v\t%d..%d\t%d\n", t.Name, t.DType, t.Shape, dataOffset+t.Begin, dataOffset+t.End, t.End-t.Begin)
		byType[t.DType] += t.End - t.Begin
	}
}

// tokenizerSummary loads tokenizer.json with chapter 02 (so a summary means the engine can use it).
func tokenizerSummary(w io.Writer, dir string, c gguf.Config) {
	tok, err := tokenizer.FromTokenizerJSON(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		fmt.Fprintf(w, "  cannot be used: %v\n", err)
		return
	}
	var used int
	var special []string
	for id := range tok.VocabSize() {
		s, ok := tok.Token(id)
		if !ok {
			continue
		}
		used++
		if tok.IsSpecial(id) {
			special = append(special, fmt.Sprintf("%s %d", s, id))
		}
	}
	fmt.Fprintf(w, "  tokens\t%d (ids 0..%d); config.json's vocab_size %d", used, tok.VocabSize()-1, c.VocabSize)
	if c.VocabSize > tok.VocabSize() {
		fmt.Fprintf(w, " (ids %d..%d are padding)", tok.VocabSize(), c.VocabSize-1)
	}
	fmt.Fprintln(w)
	shown := special[:min(len(special), 4)]
	fmt.Fprintf(w, "  special tokens\t%d: %s", len(special), strings.Join(shown, ", "))
	if len(special) > len(shown) {
		fmt.Fprint(w, ", ...")
	}
	fmt.Fprintln(w)
	for _, name := range []string{"<think>", "</think>"} {
		if id, ok := tok.TokenID(name); ok {
			fmt.Fprintf(w, "  %s\t%d (not special: kept when special tokens are skipped)\n", name, id)
		}
	}
	example := "Hello, world!"
	fmt.Fprintf(w, "  %q\t%v\n", example, tok.Encode(example))
	template := "none"
	if st, err := os.Stat(filepath.Join(dir, "chat_template.jinja")); err == nil {
		template = fmt.Sprintf("chat_template.jinja (%d bytes)", st.Size())
	} else if b, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json")); err == nil {
		var tc struct {
			ChatTemplate string `json:"chat_template"`
		}
		if json.Unmarshal(b, &tc) == nil && tc.ChatTemplate != "" {
			template = fmt.Sprintf("tokenizer_config.json's chat_template (%d bytes)", len(tc.ChatTemplate))
		}
	}
	fmt.Fprintf(w, "  chat template\t%s; qwen3 renders Qwen3's in Go (chapter 02)\n", template)
}

// generationTable prints generation_config.json's keys: the sampling defaults qwen3 run and chat use.
func generationTable(w io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		fmt.Fprintf(w, "  none: qwen3 samples with its own defaults unless flags say otherwise\n")
		return nil
	}
	if err != nil {
		return err
	}
	var g map[string]any
	if err := json.Unmarshal(b, &g); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, k := range slices.Sorted(maps.Keys(g)) {
		v, _ := json.Marshal(g[k])
		fmt.Fprintf(w, "  %s\t%s\n", k, v)
	}
	return nil
}

// perType lists byte counts per storage type, largest first: "BF16 9820160 bytes, F32 1088 bytes".
func perType(m map[string]int64) string {
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b)) // larger first
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d bytes", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}
