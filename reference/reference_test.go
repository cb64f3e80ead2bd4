package reference

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestManifest checks that every file listed in MANIFEST exists with the recorded size and sha256,
// and that every data file under reference/ is listed: a hand-edited golden file cannot go unnoticed.
func TestManifest(t *testing.T) {
	f, err := os.Open(filepath.Join(Dir(), "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if strings.HasPrefix(line, "#") || len(fields) != 3 || len(fields[0]) != 64 {
			continue
		}
		sum, size, rel := fields[0], fields[1], fields[2]
		listed[rel] = true
		path := filepath.Join(Dir(), filepath.FromSlash(rel))
		st, err := os.Stat(path)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if want, _ := strconv.ParseInt(size, 10, 64); st.Size() != want {
			t.Errorf("%s: %d bytes, MANIFEST says %d", rel, st.Size(), want)
			continue
		}
		if got := fileSHA256(t, path); got != sum {
			t.Errorf("%s: sha256 %s, MANIFEST says %s", rel, got, sum)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(listed) < 20 {
		t.Fatalf("MANIFEST lists only %d files", len(listed))
	}
	err = filepath.WalkDir(Dir(), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(Dir(), path)
		rel = filepath.ToSlash(rel)
		if rel == "MANIFEST" || rel == "README.md" || strings.HasSuffix(rel, ".go") {
			return nil
		}
		if !listed[rel] {
			t.Errorf("%s is in reference/ but not in MANIFEST (regenerate with scripts/make_reference.py)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestLoaders(t *testing.T) {
	x, err := LoadDense("03_rmsnorm", "x.npy")
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 8 || c != 64 {
		t.Fatalf("03_rmsnorm/x.npy is %dx%d, want 8x64", r, c)
	}
	ids, err := LoadInts("07_forward", "prompt0_ids.npy")
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2830, 1887, 368, 314} // "func main() {", as transformers' tokenizer gives it
	if len(ids) != len(want) {
		t.Fatalf("prompt0 ids %v, want %v", ids, want)
	}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("prompt0 ids %v, want %v", ids, want)
		}
	}
	layers, err := LoadArray("07_forward", "prompt0_layers.npy")
	if err != nil {
		t.Fatal(err)
	}
	if len(layers.Shape) != 3 || layers.Sub(1).Shape[0] != len(want) {
		t.Fatalf("prompt0_layers shape %v", layers.Shape)
	}
	var meta struct{ Eps float64 }
	if err := LoadJSON("03_rmsnorm", "meta", &meta); err != nil || meta.Eps != 1e-6 {
		t.Fatalf("03_rmsnorm meta: %+v, %v", meta, err)
	}
	if _, err := LoadArray("03_rmsnorm", "missing.npy"); err == nil {
		t.Fatal("loading a missing file gave no error")
	}
	for _, p := range []string{TinyGGUF(), filepath.Join(TinyHFDir(), "model.safetensors")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}
