package plots

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
)

// Training is notebooks/data/tiny_training.json, written by scripts/train_tiny.py while it trained
// the course's tiny Qwen3 on Go source: the loss curve and what the run measured.
type Training struct {
	About    string          `json:"about"`
	Training map[string]any  `json:"training"` // steps, batch, seq, lr, seconds, cpu, ...
	Result   map[string]any  `json:"result"`   // train_loss, heldout_loss_*, outside_mass_*
	Points   []TrainingPoint `json:"points"`
}

// TrainingPoint is one evaluation during training. Train is the mean training loss (nats per
// token) over the steps since the previous point, nil at step 0 (nothing trained yet); HeldOut is
// the loss on held-out Go files that the model never trains on.
type TrainingPoint struct {
	Step    int      `json:"step"`
	Tokens  int64    `json:"tokens"`
	Seconds float64  `json:"seconds"`
	Train   *float64 `json:"train"`
	HeldOut float64  `json:"heldout"`
}

// LoadTraining reads and checks a tiny_training.json file: at least two points, steps, tokens
// and seconds that never go back, and positive losses.
func LoadTraining(path string) (*Training, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	var t Training
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("plots: %s: %w", path, err)
	}
	if len(t.Points) < 2 {
		return nil, fmt.Errorf("plots: %s: %d points, want a curve of at least 2", path, len(t.Points))
	}
	for i, p := range t.Points {
		if !(p.HeldOut > 0) || (p.Train != nil && !(*p.Train > 0)) {
			return nil, fmt.Errorf("plots: %s: point %d (step %d): losses must be positive", path, i, p.Step)
		}
		if i > 0 {
			q := t.Points[i-1]
			if p.Step <= q.Step || p.Tokens < q.Tokens || p.Seconds < q.Seconds {
				return nil, fmt.Errorf("plots: %s: point %d (step %d) goes back from step %d", path, i, p.Step, q.Step)
			}
		}
	}
	return &t, nil
}

// Number returns a numeric field of a JSON object such as Training.Result, and whether it is
// there.
func Number(fields map[string]any, key string) (float64, bool) {
	v, ok := fields[key].(float64)
	return v, ok
}

// LossTicks is the ticker for a loss axis on a log scale that spans less than a decade (nats per
// token, from about 4 to 12): a labelled tick at each of 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9,
// 10, 12, 15 and 20 inside the axis range, so that a value such as 4.3 can be read between 4 and
// 4.5, where LogTicks would label only the integers.
type LossTicks struct{}

// Ticks implements plot.Ticker.
func (LossTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for _, v := range []float64{2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 12, 15, 20} {
		if v >= min*(1-1e-9) && v <= max*(1+1e-9) {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return out
}

// ResultNumber returns the numeric field key of Result, or an error naming the key when the file
// lacks it.
func (t *Training) ResultNumber(key string) (float64, error) {
	v, ok := Number(t.Result, key)
	if !ok {
		return 0, fmt.Errorf("plots: the training file's result has no number %q", key)
	}
	return v, nil
}

// TrainingNumber returns the numeric field key of Training (the run's settings and totals, such
// as "epochs"), or an error naming the key when the file lacks it.
func (t *Training) TrainingNumber(key string) (float64, error) {
	v, ok := Number(t.Training, key)
	if !ok {
		return 0, fmt.Errorf("plots: the training file's training section has no number %q", key)
	}
	return v, nil
}

// SharedRow finds the row of m that the most rows repeat exactly and returns the index of its
// first copy and how many rows equal it (1 when no two rows are equal; 0, 0 for an empty matrix).
// On the tiny model's embedding it counts the ids outside the vocabulary it trained with:
// scripts/train_tiny.py gives every one of them the same shared row.
func SharedRow(m *mat.Dense) (first, count int) {
	if m.IsEmpty() {
		return 0, 0
	}
	rows, _ := m.Dims()
	order := make([]int, rows)
	for i := range order {
		order[i] = i
	}
	// Sorted rows put the copies of a row next to each other, in index order (a stable sort).
	slices.SortStableFunc(order, func(a, b int) int { return slices.Compare(m.RawRowView(a), m.RawRowView(b)) })
	for start := 0; start < rows; {
		end := start + 1
		for end < rows && slices.Equal(m.RawRowView(order[end]), m.RawRowView(order[start])) {
			end++
		}
		if end-start > count {
			first, count = order[start], end-start
		}
		start = end
	}
	return first, count
}
