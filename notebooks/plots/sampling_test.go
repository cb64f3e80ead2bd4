package plots

import (
	"math"
	"testing"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"gonum.org/v1/plot/vg"
)

// TestWarped: chapter 09's worked example, logits [2 1 0 -1 -3] (raw p = [0.6411 0.2359 0.0868
// 0.0319 0.0043]), with top-k 2 and with nothing.
func TestWarped(t *testing.T) {
	z := []float64{2, 1, 0, -1, -3}
	w, err := Warped(z, sampling.Settings{Temperature: 1, TopK: 2, TopP: 1})
	if err != nil {
		t.Fatal(err)
	}
	if w.Kept != 2 || math.Abs(w.RawMass-0.87703) > 1e-4 || math.Abs(w.First-0.7311) > 1e-4 || w.Tail != 0 {
		t.Errorf("top-k 2: %+v, want 2 kept, raw mass 0.8770, first 0.7311, tail 0", w)
	}
	// No token is below TailProb here: a vocabulary of 5000 with one leader has a tail.
	long := make([]float64, 5000)
	long[0] = 10
	w, err = Warped(long, sampling.Neutral(0))
	if err != nil {
		t.Fatal(err)
	}
	e := math.Exp(10)
	if w.Kept != 5000 || math.Abs(w.RawMass-1) > 1e-12 || math.Abs(w.First-e/(e+4999)) > 1e-12 || math.Abs(w.Tail-4999/(e+4999)) > 1e-12 {
		t.Errorf("no filter: %+v", w)
	}
	// A raw tail token that a filter keeps: after top-k 2, token 1 (raw p 2e-4) is drawn 1/(e^3+1) of the time.
	long[0] = 3
	for i := 1; i < len(long); i++ {
		long[i] = -1e-6 * float64(i)
	}
	w, err = Warped(long, sampling.Settings{Temperature: 1, TopK: 2, TopP: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 / (math.Exp(3) + math.Exp(-1e-6)) * math.Exp(-1e-6); w.Kept != 2 || math.Abs(w.Tail-want) > 1e-12 {
		t.Errorf("top-k 2 over a long tail: %+v, want 2 kept and a tail share of %.6f", w, want)
	}
	if _, err := Warped(z, sampling.Settings{}); err == nil {
		t.Error("zero Settings (top_p 0): no error")
	}
}

func TestLensHeat(t *testing.T) {
	tok := ByHandTokenizer()
	ids := tok.Encode("low lower")
	lens := make([][][]forward.TokenProb, 3)
	for d := range lens {
		for range ids {
			lens[d] = append(lens[d], []forward.TokenProb{{ID: ids[0], Prob: 0.3 * float64(d)}})
		}
	}
	h, err := LensHeat("t", lens, tok, ids)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := h.Data.Dims(); r != 3 || c != len(ids) || h.Data.At(2, 0) != 0.6 {
		t.Errorf("data %dx%d, (2,0) = %g", r, c, h.Data.At(2, 0))
	}
	if h.YNames[0] != "embeddings" || h.YNames[2] != "after layer 1" || h.Text[1][0] != TokenLabels(tok, ids[:1])[0] {
		t.Errorf("rows %q, text %q", h.YNames, h.Text[1][0])
	}
	if _, err := h.Figure("p").PNG(4*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
	if _, err := LensHeat("t", lens, tok, ids[:1]); err == nil {
		t.Error("positions that do not match the inputs: no error")
	}
}
