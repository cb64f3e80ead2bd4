package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
)

// inspect prints a GGUF file's header, metadata and tensor table, or an HF directory's config and tensors.
func inspect(path string, w io.Writer) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	if st.IsDir() {
		ck, err := gguf.OpenCheckpoint(path)
		if err != nil {
			return err
		}
		defer ck.Close()
		fmt.Fprintf(tw, "Hugging Face checkpoint %s\n%+v\n\nTENSOR\tDTYPE\tSHAPE\n", path, ck.Config)
		for _, name := range ck.TensorNames() {
			t, _ := ck.Tensor(name)
			fmt.Fprintf(tw, "%s\t%s\t%v\n", name, t.DType, t.Shape)
		}
		return nil
	}
	f, err := gguf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(tw, "GGUF v%d: %d metadata entries, %d tensors, alignment %d, data at byte %d\n\nKEY\tTYPE\tVALUE\n",
		f.Version, len(f.Metadata), len(f.Tensors), f.Alignment, f.DataOffset)
	for _, kv := range f.Metadata {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", kv.Key, kv.Value.TypeName(), oneLine(kv.Value.Format(6)))
	}
	fmt.Fprintf(tw, "\nTENSOR\tTYPE\tDIMS (ne0 first)\tOFFSET\tBYTES\n")
	var total int64
	for _, t := range f.Tensors {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%d\t%d\n", t.Name, t.Type, t.Dims, t.Offset, t.NumBytes())
		total += t.NumBytes()
	}
	fmt.Fprintf(tw, "\n%d tensors, %d bytes of data\n", len(f.Tensors), total)
	return nil
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return s
}
