package gguf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// TestTinyBothDoors reads the tiny reference checkpoint through GGUF and through safetensors and
// demands identical tensors under the name map. Tolerance 0: both files store the same BF16 bits
// (the 1-D norm weights are F32 in the GGUF file, holding BF16-exact values), and BF16 -> F32 is exact.
func TestTinyBothDoors(t *testing.T) {
	f, err := Open(reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hf, err := OpenCheckpoint(reference.TinyHFDir())
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	g := HFView(f)

	// Every GGUF tensor has an HF name; the HF side may additionally hold lm_head.weight.
	if len(g.TensorNames()) != len(f.Tensors) {
		t.Errorf("%d of %d GGUF tensors have an HF name", len(g.TensorNames()), len(f.Tensors))
	}
	hfNames := slices.DeleteFunc(hf.TensorNames(), func(s string) bool { return s == "lm_head.weight" })
	if !reflect.DeepEqual(g.TensorNames(), hfNames) {
		t.Fatalf("GGUF names %v\nHF names %v", g.TensorNames(), hfNames)
	}
	if want := 2 + 11*hf.Config.NumHiddenLayers; len(hfNames) != want {
		t.Errorf("%d tensors, want %d", len(hfNames), want)
	}
	for _, name := range hfNames {
		gs, err1 := g.TensorShape(name)
		hs, err2 := hf.TensorShape(name)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(gs, hs) {
			t.Errorf("%s: shapes %v %v (%v, %v)", name, gs, hs, err1, err2)
			continue
		}
		gn, _ := GGUFName(name)
		ti, _ := f.Tensor(gn)
		if len(ti.Dims) == 2 && (int(ti.Dims[0]) != hs[1] || int(ti.Dims[1]) != hs[0]) {
			t.Errorf("%s: GGUF dims %v are not the HF shape %v reversed", gn, ti.Dims, hs)
		}
		gv, err1 := g.TensorFloat32(name)
		hv, err2 := hf.TensorFloat32(name)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		if !slices.Equal(gv, hv) {
			t.Errorf("%s: values differ between GGUF (%v) and safetensors", name, ti.Type)
		}
	}
	// Spot check the orientation: q_proj is [heads*head_dim, hidden] in both.
	if s, _ := g.TensorShape("model.layers.0.self_attn.q_proj.weight"); !reflect.DeepEqual(s, []int{hf.Config.NumAttentionHeads * hf.Config.HeadDim, hf.Config.HiddenSize}) {
		t.Errorf("q_proj shape %v", s)
	}
}

// TestTinyConfigBothDoors: the GGUF metadata and config.json describe the same model.
func TestTinyConfigBothDoors(t *testing.T) {
	f, err := Open(reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fromGGUF, err := ConfigFromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	fromHF, err := ReadConfig(reference.TinyHFDir() + "/config.json")
	if err != nil {
		t.Fatal(err)
	}
	fromGGUF.DType = fromHF.DType // not recorded in GGUF
	fromGGUF.AttentionBias, fromGGUF.UseSlidingWindow = fromHF.AttentionBias, fromHF.UseSlidingWindow
	if !reflect.DeepEqual(fromGGUF, fromHF) {
		t.Errorf("config from GGUF\n%+v\nfrom config.json\n%+v", fromGGUF, fromHF)
	}
	src, cfg, closeFn, err := OpenModel(reference.TinyHFDir())
	if err != nil || cfg.HiddenSize != fromHF.HiddenSize || len(src.TensorNames()) == 0 {
		t.Errorf("OpenModel(dir): %v", err)
	} else {
		closeFn()
	}
	src, cfg, closeFn, err = OpenModel(reference.TinyGGUF(), WithoutMmap())
	if err != nil || cfg.NumHiddenLayers != fromHF.NumHiddenLayers || len(src.TensorNames()) == 0 {
		t.Errorf("OpenModel(gguf): %v", err)
	} else {
		closeFn()
	}
}

// TestTinyRawBothDoors: the stored bytes and types through TensorRaw, which the qwen3 engine reads.
// The GGUF file stores the matrices as BF16 like the safetensors file, so the bytes are identical;
// its 1-D norm weights are F32 (llama.cpp's choice), holding the same values.
func TestTinyRawBothDoors(t *testing.T) {
	g, _, closeG, err := OpenModel(reference.TinyGGUF())
	if err != nil {
		t.Fatal(err)
	}
	defer closeG()
	h, _, closeH, err := OpenModel(reference.TinyHFDir())
	if err != nil {
		t.Fatal(err)
	}
	defer closeH()
	for _, name := range []string{Layer(1).Q, Layer(2).Down, EmbedName, Layer(0).QNorm, NormName} {
		gr, err1 := g.TensorRaw(name)
		hr, err2 := h.TensorRaw(name)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		if !reflect.DeepEqual(gr.Shape, hr.Shape) || hr.Type != TypeBF16 || int64(len(hr.Data)) != 2*hr.NumElements() {
			t.Errorf("%s: GGUF %v %v, safetensors %v %v (%d bytes)", name, gr.Shape, gr.Type, hr.Shape, hr.Type, len(hr.Data))
		}
		switch len(gr.Shape) {
		case 2:
			if gr.Type != TypeBF16 || !slices.Equal(gr.Data, hr.Data) {
				t.Errorf("%s: GGUF %v bytes differ from the safetensors bytes", name, gr.Type)
			}
		case 1:
			gv, _ := gr.Float32()
			hv, _ := hr.Float32()
			if gr.Type != TypeF32 || !slices.Equal(gv, hv) {
				t.Errorf("%s: GGUF %v values differ", name, gr.Type)
			}
		}
	}
	if _, err := h.TensorRaw("model.nope.weight"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing tensor: %v", err)
	}
}

// TestDetectKind tells the three kinds apart, and OpenModel sends a lone safetensors file back
// to its directory.
func TestDetectKind(t *testing.T) {
	st := filepath.Join(reference.TinyHFDir(), "model.safetensors")
	for path, want := range map[string]Kind{reference.TinyGGUF(): KindGGUF, reference.TinyHFDir(): KindHFDir, st: KindSafetensors} {
		if got, err := DetectKind(path); got != want || err != nil {
			t.Errorf("DetectKind(%s) = %v, %v; want %v", path, got, err, want)
		}
	}
	_, _, _, err := OpenModel(st)
	if !errors.Is(err, ErrSafetensorsFile) || !strings.Contains(err.Error(), reference.TinyHFDir()) {
		t.Errorf("OpenModel(model.safetensors) = %v; want ErrSafetensorsFile naming the directory", err)
	}
	junk := filepath.Join(t.TempDir(), "junk.bin")
	if err := os.WriteFile(junk, []byte("PK\x03\x04 not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = DetectKind(junk)
	wantFormatErr(t, err, "header.magic", 0, "neither a GGUF file")
	_, _, _, err = OpenModel(junk)
	if fe := wantFormatErr(t, err, "header.magic", 0); fe.File != junk {
		t.Errorf("FormatError.File = %q", fe.File)
	}
}
