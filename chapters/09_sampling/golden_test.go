package sampling

import (
	"fmt"
	"math"
	"testing"

	"github.com/qwen3go/qwen3go/reference"
)

const chapter = "09_sampling"

// goldenTol is the course-wide tolerance for a chapter op against transformers, relative to the
// largest finite magnitude of the row. The reference ran in float32 (about 6e-8 relative
// rounding per operation) and we run in float64; dividing by a temperature is one rounding, so
// 1e-5 leaves a wide margin. The -Inf positions (which tokens are filtered) must match exactly.
const goldenTol = 1e-5

// goldenSetting is one entry of settings.json; absent keys leave the filter off.
type goldenSetting struct {
	Name        string   `json:"name"`
	File        string   `json:"file"`
	Temperature *float64 `json:"temperature"`
	TopK        *int     `json:"top_k"`
	TopP        *float64 `json:"top_p"`
	MinP        *float64 `json:"min_p"`
}

func (g goldenSetting) settings() Settings {
	s := Neutral(0)
	if g.Temperature != nil {
		s.Temperature = *g.Temperature
	}
	if g.TopK != nil {
		s.TopK = *g.TopK
	}
	if g.TopP != nil {
		s.TopP = *g.TopP
	}
	if g.MinP != nil {
		s.MinP = *g.MinP
	}
	return s
}

func loadGoldenLogits(t *testing.T) (*reference.Array, []goldenSetting) {
	t.Helper()
	logits, err := reference.LoadArray(chapter, "logits.npy")
	if err != nil {
		t.Fatal(err)
	}
	if len(logits.Shape) != 2 {
		t.Fatalf("logits.npy has shape %v, want 2-D", logits.Shape)
	}
	var settings []goldenSetting
	if err := reference.LoadJSON(chapter, "settings", &settings); err != nil {
		t.Fatal(err)
	}
	if len(settings) < 11 {
		t.Fatalf("settings.json has %d entries, want at least 11", len(settings))
	}
	return logits, settings
}

func row(a *reference.Array, i int) []float64 {
	n := a.Shape[1]
	return a.Data[i*n : (i+1)*n]
}

// compareWarped checks got against want: -Inf exactly where want has -Inf, and finite values
// within goldenTol of the row's largest finite magnitude. It returns the relative error.
func compareWarped(got, want []float64) (float64, error) {
	if len(got) != len(want) {
		return 0, fmt.Errorf("length %d, want %d", len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		if !math.IsInf(w, 0) {
			scale = max(scale, math.Abs(w))
		}
	}
	worst := 0.0
	for j := range want {
		gInf, wInf := math.IsInf(got[j], -1), math.IsInf(want[j], -1)
		if gInf != wInf {
			return 0, fmt.Errorf("token %d: got %v, want %v (filtered positions differ)", j, got[j], want[j])
		}
		if wInf {
			continue
		}
		e := math.Abs(got[j]-want[j]) / scale
		if !(e <= goldenTol) {
			return 0, fmt.Errorf("token %d: got %v, want %v (relative error %.3g > %g)", j, got[j], want[j], e, goldenTol)
		}
		worst = max(worst, e)
	}
	return worst, nil
}

func TestWarpGolden(t *testing.T) {
	checkWarp(t) // a wrong order is named here rather than seen as wrong positions below
	logits, settings := loadGoldenLogits(t)
	for _, g := range settings {
		t.Run(g.Name, func(t *testing.T) {
			s := g.settings()
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			want, err := reference.LoadArray(chapter, g.File)
			if err != nil {
				t.Fatal(err)
			}
			worst, kept := 0.0, []int{}
			for i := range logits.Shape[0] {
				got := Warp(row(logits, i), s)
				e, err := compareWarped(got, row(want, i))
				if err != nil {
					t.Fatalf("row %d: %v", i, err)
				}
				worst = max(worst, e)
				n := 0
				for _, v := range got {
					if !math.IsInf(v, -1) {
						n++
					}
				}
				kept = append(kept, n)
			}
			t.Logf("%s: kept %v tokens per row, max relative error %.3g (tolerance %g)", g.Name, kept, worst, goldenTol)
		})
	}
}

// TestDistributionGolden checks the probabilities too: softmax of the warped golden logits,
// within 1e-5 absolute (probabilities are at most 1; the reference's float32 logits differ from
// ours by ~1e-7 relative, which moves a probability by far less).
func TestDistributionGolden(t *testing.T) {
	checkWarp(t)
	logits, settings := loadGoldenLogits(t)
	for _, g := range settings {
		want, err := reference.LoadArray(chapter, g.File)
		if err != nil {
			t.Fatal(err)
		}
		for i := range logits.Shape[0] {
			got := Distribution(row(logits, i), g.settings())
			wantP := Softmax(row(want, i))
			sum := 0.0
			for j := range got {
				sum += got[j]
				if d := math.Abs(got[j] - wantP[j]); !(d <= 1e-5) {
					t.Fatalf("%s row %d token %d: p = %v, want %v", g.Name, i, j, got[j], wantP[j])
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("%s row %d: probabilities sum to %v", g.Name, i, sum)
			}
		}
	}
}
