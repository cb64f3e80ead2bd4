package plots

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestLoadTraining(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "t.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `{"about": "x", "result": {"heldout_loss_full_bf16": 1.5}, "points": [
		{"step": 0, "tokens": 0, "seconds": 0, "heldout": 11.9, "train": null},
		{"step": 100, "tokens": 204800, "seconds": 60, "heldout": 4.1, "train": 5.2}]}`
	tr, err := LoadTraining(write(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Points) != 2 || tr.Points[0].Train != nil || *tr.Points[1].Train != 5.2 || tr.Points[1].HeldOut != 4.1 {
		t.Errorf("points %+v", tr.Points)
	}
	if v, ok := Number(tr.Result, "heldout_loss_full_bf16"); !ok || v != 1.5 {
		t.Errorf("Number = %v, %v; want 1.5, true", v, ok)
	}
	if _, ok := Number(tr.Result, "missing"); ok {
		t.Error("Number of a missing key: ok")
	}
	for _, tc := range []struct{ json, want string }{
		{`{"points": [{"step": 0, "heldout": 1}]}`, "1 points"},
		{`{"points": [{"step": 0, "heldout": 1}, {"step": 0, "heldout": 1}]}`, "goes back"},
		{`{"points": [{"step": 0, "heldout": 1}, {"step": 5, "heldout": 0}]}`, "positive"},
		{`{"points": [{"step": 0, "heldout": 1}, {"step": 5, "heldout": 1, "train": -2}]}`, "positive"},
		{`{"points": [`, "unexpected"},
	} {
		if _, err := LoadTraining(write(tc.json)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.json, err, tc.want)
		}
	}
	if _, err := LoadTraining(filepath.Join(dir, "none.json")); err == nil {
		t.Error("a missing file: no error")
	}
}

// TestLossTicks: every tick inside the range, labelled, with 4 and 4.5 around a final loss of 4.3.
func TestLossTicks(t *testing.T) {
	ticks := LossTicks{}.Ticks(4, 12.5)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "4 4.5 5 6 7 8 9 10 12" {
		t.Errorf("ticks %q, want 4 4.5 5 6 7 8 9 10 12", got)
	}
}

// TestResultNumber: a number of the result, and an error naming a missing key.
func TestResultNumber(t *testing.T) {
	tr := &Training{Result: map[string]any{"loss": 4.5, "name": "x"}}
	if v, err := tr.ResultNumber("loss"); err != nil || v != 4.5 {
		t.Errorf("ResultNumber(loss) = %v, %v", v, err)
	}
	for _, k := range []string{"name", "missing"} {
		if _, err := tr.ResultNumber(k); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("ResultNumber(%s): error %v, want one naming the key", k, err)
		}
	}
}

// TestTrainingNumber: a number of the run's settings, and an error naming a missing key.
func TestTrainingNumber(t *testing.T) {
	tr := &Training{Training: map[string]any{"epochs": 2.656, "cpu": "x"}, Result: map[string]any{"steps": 1.0}}
	if v, err := tr.TrainingNumber("epochs"); err != nil || v != 2.656 {
		t.Errorf("TrainingNumber(epochs) = %v, %v", v, err)
	}
	for _, k := range []string{"cpu", "steps"} { // not a number; a key of the result, not of training
		if _, err := tr.TrainingNumber(k); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("TrainingNumber(%s): error %v, want one naming the key", k, err)
		}
	}
}

// TestSharedRow: the row that most rows repeat, its first index and its count.
func TestSharedRow(t *testing.T) {
	m := mat.NewDense(6, 2, []float64{1, 2, 3, 4, 3, 4, 1, 2, 3, 4, 5, 6})
	if first, count := SharedRow(m); first != 1 || count != 3 {
		t.Errorf("SharedRow = row %d x %d, want row 1 x 3", first, count)
	}
	if first, count := SharedRow(mat.NewDense(2, 1, []float64{7, 8})); first != 0 || count != 1 {
		t.Errorf("no repeated row: row %d x %d, want row 0 x 1", first, count)
	}
	if first, count := SharedRow(&mat.Dense{}); first != 0 || count != 0 {
		t.Errorf("empty matrix: row %d x %d, want 0 x 0", first, count)
	}
}
