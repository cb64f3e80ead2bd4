// Package reference locates the course's reference checkpoint and loads the golden arrays that
// scripts/make_reference.py exported from Hugging Face transformers.
//
// Everything under reference/ is produced by that one script (see reference/README.md); tests only
// read it, they never recompute it. Golden arrays live in reference/golden/<chapter>/ as NumPy .npy
// files (float32, float64, int32 or int64, C order) and JSON files.
package reference

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// Dir returns the absolute path of the reference/ directory of this module's source tree.
// It is found from this file's compile-time location, so it works from tests, commands run
// with `go run`, and GoNB notebooks that import the module from its checkout.
func Dir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("reference: cannot locate the source directory (runtime.Caller failed)")
	}
	return filepath.Dir(file)
}

// TinyHFDir returns the tiny reference checkpoint as a Hugging Face directory
// (config.json, generation_config.json, model.safetensors, tokenizer.json, tokenizer_config.json).
func TinyHFDir() string { return filepath.Join(Dir(), "tiny-qwen3") }

// TinySavedDir returns the second tiny checkpoint: a Hugging Face directory written only by
// transformers 5's and tokenizers' own save_pretrained (config.json with rope_parameters and dtype,
// chat_template.jinja), with an untied LM head, rope_theta 1e4, rms_norm_eps 1e-5, one KV head for
// four query heads, and Qwen's tokenizer cut to its first 2,048 tokens plus the 26 added tokens
// (ids 2048..2073, vocab_size 2112). Its golden data is in golden/tiny-qwen3-saved/.
func TinySavedDir() string { return filepath.Join(Dir(), "tiny-qwen3-saved") }

// SavedPrompt is one prompt of golden/tiny-qwen3-saved/prompts.json: its ids, and transformers'
// greedy continuation (12 tokens: ids and decoded text). prompt<N>_logits.npy holds
// the logits at every position (len(IDs) x vocab_size).
type SavedPrompt struct {
	Text    string `json:"text"`
	IDs     []int  `json:"ids"`
	NewIDs  []int  `json:"new_ids"`
	NewText string `json:"new_text"`
}

// SavedPrompts loads golden/tiny-qwen3-saved/prompts.json.
func SavedPrompts() ([]SavedPrompt, error) {
	var p []SavedPrompt
	return p, LoadJSON("tiny-qwen3-saved", "prompts", &p)
}

// TinyGGUF returns the tiny reference checkpoint as a GGUF file written with llama.cpp's qwen3
// tensor names and metadata keys; it has no output.weight, so the LM head is tied to token_embd.
func TinyGGUF() string { return filepath.Join(Dir(), "tiny-qwen3.gguf") }

// Golden returns the path of golden file name of chapter (for example "03_rmsnorm", "x.npy").
func Golden(chapter, name string) string { return filepath.Join(Dir(), "golden", chapter, name) }

// Array is an n-dimensional array read from a .npy file, converted to float64, in C (row-major) order.
type Array struct {
	Shape []int
	Data  []float64
}

// Size returns the number of elements, the product of Shape.
func (a *Array) Size() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Dense returns a 2-D array as a *mat.Dense sharing a's data. A 1-D array becomes a single row.
// It panics for any other rank.
func (a *Array) Dense() *mat.Dense {
	switch len(a.Shape) {
	case 1:
		return mat.NewDense(1, a.Shape[0], a.Data)
	case 2:
		return mat.NewDense(a.Shape[0], a.Shape[1], a.Data)
	}
	panic(fmt.Sprintf("reference: Dense of a %d-D array %v", len(a.Shape), a.Shape))
}

// Reshape2D views the array as rows x (Size/rows) and returns it as a *mat.Dense sharing a's data:
// for example a (seq, heads, head_dim) array becomes seq x (heads*head_dim).
func (a *Array) Reshape2D(rows int) *mat.Dense {
	n := a.Size()
	if rows <= 0 || n%rows != 0 {
		panic(fmt.Sprintf("reference: cannot reshape %v into %d rows", a.Shape, rows))
	}
	return mat.NewDense(rows, n/rows, a.Data)
}

// Sub returns the i-th sub-array along the first axis, sharing a's data:
// for a (L, seq, hidden) array, Sub(l) is the (seq, hidden) array of layer l.
func (a *Array) Sub(i int) *Array {
	if len(a.Shape) < 2 || i < 0 || i >= a.Shape[0] {
		panic(fmt.Sprintf("reference: Sub(%d) of shape %v", i, a.Shape))
	}
	inner := a.Size() / a.Shape[0]
	return &Array{Shape: append([]int(nil), a.Shape[1:]...), Data: a.Data[i*inner : (i+1)*inner]}
}

// ReadNPY reads any .npy file of float32, float64, int32 or int64 values.
func ReadNPY(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("reference: %s: %w", path, err)
	}
	if r.Header.Descr.Fortran {
		return nil, fmt.Errorf("reference: %s: Fortran-order arrays are not supported", path)
	}
	shape := append([]int(nil), r.Header.Descr.Shape...)
	a := &Array{Shape: shape}
	n := a.Size()
	switch r.Header.Descr.Type {
	case "<f4":
		var v []float32
		if err := r.Read(&v); err != nil {
			return nil, fmt.Errorf("reference: %s: %w", path, err)
		}
		a.Data = make([]float64, n)
		for i, x := range v {
			a.Data[i] = float64(x)
		}
	case "<f8":
		if err := r.Read(&a.Data); err != nil {
			return nil, fmt.Errorf("reference: %s: %w", path, err)
		}
	case "<i4":
		var v []int32
		if err := r.Read(&v); err != nil {
			return nil, fmt.Errorf("reference: %s: %w", path, err)
		}
		a.Data = make([]float64, n)
		for i, x := range v {
			a.Data[i] = float64(x)
		}
	case "<i8":
		var v []int64
		if err := r.Read(&v); err != nil {
			return nil, fmt.Errorf("reference: %s: %w", path, err)
		}
		a.Data = make([]float64, n)
		for i, x := range v {
			a.Data[i] = float64(x)
		}
	default:
		return nil, fmt.Errorf("reference: %s: unsupported dtype %q", path, r.Header.Descr.Type)
	}
	if len(a.Data) != n {
		return nil, fmt.Errorf("reference: %s: %d values for shape %v", path, len(a.Data), shape)
	}
	return a, nil
}

// LoadArray reads golden/<chapter>/<name> (a .npy file) as float64.
func LoadArray(chapter, name string) (*Array, error) { return ReadNPY(Golden(chapter, name)) }

// LoadDense reads a 1-D or 2-D golden .npy file as a *mat.Dense.
func LoadDense(chapter, name string) (*mat.Dense, error) {
	a, err := LoadArray(chapter, name)
	if err != nil {
		return nil, err
	}
	if len(a.Shape) > 2 {
		return nil, fmt.Errorf("reference: %s/%s has shape %v, want 1-D or 2-D", chapter, name, a.Shape)
	}
	return a.Dense(), nil
}

// LoadInts reads a golden integer .npy file (any shape) as a flat []int.
func LoadInts(chapter, name string) ([]int, error) {
	a, err := LoadArray(chapter, name)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(a.Data))
	for i, x := range a.Data {
		out[i] = int(x)
		if float64(out[i]) != x {
			return nil, fmt.Errorf("reference: %s/%s: value %v at %d is not an integer", chapter, name, x, i)
		}
	}
	return out, nil
}

// LoadJSON decodes golden/<chapter>/<name>.json into v.
func LoadJSON(chapter, name string, v any) error {
	b, err := os.ReadFile(Golden(chapter, name+".json"))
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("reference: %s/%s.json: %w", chapter, name, err)
	}
	return nil
}

// RelErr returns max|got-want| / max|want|: the error of a computed array against a golden one,
// relative to the golden array's largest magnitude (the course's measure for a chapter op against
// transformers). It is +Inf when a value is NaN, so that "error <= tolerance" fails, and when the
// lengths differ. An all-zero want gives the absolute error.
func RelErr(got, want []float64) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var diff, scale float64
	for i := range want {
		d := math.Abs(got[i] - want[i])
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		diff = math.Max(diff, d)
		scale = math.Max(scale, math.Abs(want[i]))
	}
	if scale == 0 {
		return diff
	}
	return diff / scale
}
