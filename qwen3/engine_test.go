package qwen3

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

// tinyModels caches the loaded tiny checkpoints for the whole test binary: building the
// 151,936-token tokenizer dominates loading, and models are read-only once loaded.
var tinyModels = struct {
	sync.Mutex
	m map[string]*Model
}{m: map[string]*Model{}}

// loadTiny opens the tiny reference checkpoint through either door.
func loadTiny(t testing.TB, path string) *Model {
	t.Helper()
	tinyModels.Lock()
	defer tinyModels.Unlock()
	if m, ok := tinyModels.m[path]; ok {
		return m
	}
	m, err := Load(t.Context(), path, WithThreads(2))
	if err != nil {
		t.Fatal(err)
	}
	tinyModels.m[path] = m
	return m
}

func tinyPaths() map[string]string {
	return map[string]string{"gguf": reference.TinyGGUF(), "hf": reference.TinyHFDir()}
}

// TestLogitsGolden compares the engine's logits with transformers' for the three golden prompts:
// all positions at the sampled columns and, for prompt 0, the whole vocabulary at the last position.
// Tolerance 1e-4 absolute (DESIGN.md: tiny-model logits): float32 against float32, different order.
func TestLogitsGolden(t *testing.T) {
	const tol = 1e-4
	cols, err := reference.LoadInts("07_forward", "cols.npy")
	if err != nil {
		t.Fatal(err)
	}
	for kind, path := range tinyPaths() {
		m := loadTiny(t, path)
		for n := 0; n < 3; n++ {
			name := func(s string) string { return "prompt" + string(rune('0'+n)) + "_" + s }
			ids, err := reference.LoadInts("07_forward", name("ids.npy"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := reference.LoadArray("07_forward", name("logits_cols.npy"))
			if err != nil {
				t.Fatal(err)
			}
			// One token at a time through the cache, so every position's logits are seen.
			s, err := m.NewCache(64)
			if err != nil {
				t.Fatal(err)
			}
			var worst float64
			for i, id := range ids {
				logits, err := s.Step(id)
				if err != nil {
					t.Fatal(err)
				}
				for j, c := range cols {
					worst = math.Max(worst, math.Abs(float64(logits[c])-want.Data[i*len(cols)+j]))
				}
				if n == 0 && i == len(ids)-1 {
					full, err := reference.LoadArray("07_forward", "prompt0_logits_last.npy")
					if err != nil {
						t.Fatal(err)
					}
					for c, w := range full.Data {
						worst = math.Max(worst, math.Abs(float64(logits[c])-w))
					}
				}
			}
			if worst > tol {
				t.Errorf("%s prompt %d: logits differ from transformers by %.3g (tolerance %g)", kind, n, worst, tol)
			} else {
				t.Logf("%s prompt %d: max |Δlogit| = %.3g", kind, n, worst)
			}
			// The same prompt as one prefill chunk gives the same last-position logits.
			s.Reset()
			logits, err := s.Prefill(context.Background(), ids)
			if err != nil {
				t.Fatal(err)
			}
			last := len(ids) - 1
			for j, c := range cols {
				if d := math.Abs(float64(logits[c]) - want.Data[last*len(cols)+j]); d > tol {
					t.Fatalf("%s prompt %d prefill: logit %d differs by %.3g", kind, n, c, d)
				}
			}
		}
	}
}

// TestPrefillChunksMatchSteps: a 150-token prompt prefilled at once (chunks of 128 and 22
// tokens through the tile kernels) gives the logits of feeding it one token at a time (dot
// products), within float32 rounding.
func TestPrefillChunksMatchSteps(t *testing.T) {
	m := loadTiny(t, reference.TinyGGUF())
	ids := make([]int, 150)
	for i := range ids {
		ids[i] = (i*7919 + 13) % 151000
	}
	a, _ := m.NewCache(200)
	b, _ := m.NewCache(200)
	got, err := a.Prefill(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	var want []float32
	for _, id := range ids {
		if want, err = b.Step(id); err != nil {
			t.Fatal(err)
		}
	}
	var worst, scale float64
	for i := range want {
		worst = math.Max(worst, math.Abs(float64(got[i]-want[i])))
		scale = math.Max(scale, math.Abs(float64(want[i])))
	}
	// Two float32 paths that sum in different orders: on the model of 2026-11-27 they differ by
	// 1.8e-5 of the largest logit at the last position (each is within 1.7e-5 of chapter 07's
	// float64 at every position; transformers in float32 is up to 3.1e-5 of a row's largest from
	// float64 on these ids). 1e-4 is 5.6 times the measured difference.
	if worst > 1e-4*scale {
		t.Errorf("prefill and steps differ by %.3g (largest logit %.3g, tolerance 1e-4 relative)", worst, scale)
	} else {
		t.Logf("prefill and steps: max |Δ| %.3g, %.2g relative", worst, worst/scale)
	}
	if a.Len() != 150 || b.Len() != 150 {
		t.Errorf("cache lengths %d and %d", a.Len(), b.Len())
	}
}

// TestPackRows: packing rows for the tile kernel equals decoding them one by one, for every type.
func TestPackRows(t *testing.T) {
	base := loadTiny(t, reference.TinyGGUF())
	for _, dt := range engineTypes {
		w := convert(t, base, dt).layers[0].gate // 96 x 32: three 32-row blocks
		const R = 32
		pack, staging := make([]float32, w.Cols*R), make([]float32, w.Cols*R)
		row := make([]float32, w.Cols)
		for _, rows := range []int{R, 5} {
			w.packRows(R, rows, pack, staging)
			for i := 0; i < R; i++ {
				if i < rows {
					w.Row(R+i, row)
				} else {
					clear(row)
				}
				for j, v := range row {
					if pack[j*R+i] != v {
						t.Fatalf("%v rows=%d: pack[%d*%d+%d] = %v, row %d col %d is %v", dt, rows, j, R, i, pack[j*R+i], R+i, j, v)
					}
				}
			}
		}
	}
}
