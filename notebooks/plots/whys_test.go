package plots

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestSaturation: the scaled scores keep the same statistics whatever headDim (their spread is
// 1), the raw ones saturate as headDim grows; and the Jacobian's norm is 0 for a one-hot p and
// sqrt(n-1)/n for a uniform one.
func TestSaturation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	raw16, sc16, err := Saturation(rng, 16, 16, 2000)
	if err != nil {
		t.Fatal(err)
	}
	raw512, sc512, err := Saturation(rng, 512, 16, 2000)
	if err != nil {
		t.Fatal(err)
	}
	// Measured: scaled max 0.25 at both sizes (chapter 05's Example_scale prints 0.25 too); raw
	// 0.69 at 16, above 0.95 at 512. 0.02 is the spread of a mean over 2000 trials, x 10.
	if math.Abs(sc16.MaxProb-sc512.MaxProb) > 0.02 || math.Abs(sc16.MaxProb-0.25) > 0.02 {
		t.Errorf("scaled max probability %.3f at 16, %.3f at 512: want both near 0.25", sc16.MaxProb, sc512.MaxProb)
	}
	if !(raw16.MaxProb > 0.6 && raw512.MaxProb > raw16.MaxProb && raw512.Grad < raw16.Grad && raw512.Grad < sc512.Grad/2) {
		t.Errorf("raw: max %.3f -> %.3f, grad %.3f -> %.3f (scaled %.3f): want saturation as headDim grows",
			raw16.MaxProb, raw512.MaxProb, raw16.Grad, raw512.Grad, sc512.Grad)
	}
	if g := jacobianNorm([]float64{0, 1, 0}); g != 0 {
		t.Errorf("one-hot Jacobian norm %g, want 0", g)
	}
	if g, want := jacobianNorm([]float64{0.25, 0.25, 0.25, 0.25}), math.Sqrt(3)/4; math.Abs(g-want) > 1e-15 {
		t.Errorf("uniform Jacobian norm %g, want %g", g, want)
	}
	if _, _, err := Saturation(rng, 16, 1, 10); err == nil {
		t.Error("one key: no error")
	}
}

// TestWirings: with chapter 07's seeds, the numbers of its Example_residual (and of its package
// doc's table).
func TestWirings(t *testing.T) {
	ws, err := Wirings(28, 8, 7, 8)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pre-norm (Qwen3)  1.42 3.34 4.84 0.565 0.216",
		"post-norm         1.00 1.00 1.00 1.000 0.056",
		"no residual       0.58 0.57 0.54 1.000 0.009",
	}
	for i, w := range ws {
		got := fmt.Sprintf("%-17s %.2f %.2f %.2f %.3f %.3f", w.Name, w.RMS[0], w.RMS[13], w.RMS[27], w.Alike, w.Kept)
		if got != want[i] {
			t.Errorf("got  %s\nwant %s", got, want[i])
		}
	}
	if _, err := Wirings(0, 8, 1, 2); err == nil {
		t.Error("0 layers: no error")
	}
}
