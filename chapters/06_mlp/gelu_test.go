package mlp_test

import (
	"fmt"
	"log"
	"math"

	mlp "github.com/qwen3go/qwen3go/chapters/06_mlp"
	"github.com/qwen3go/qwen3go/reference"
	"gonum.org/v1/gonum/mat"
)

// Example_geluInstead measures what the package doc's gotcha says: SiLU's minimum, and how far
// the golden layer's gated values silu(x Gᵀ) ⊙ (x Uᵀ) move when GELU takes SiLU's place, relative
// to their largest value.
func Example_geluInstead() {
	minZ, minV := 0.0, 0.0
	for z := -3.0; z <= 0; z += 1e-4 {
		if v := mlp.SiLU(z); v < minV {
			minZ, minV = z, v
		}
	}
	fmt.Printf("minimum of SiLU: %.3f at z = %.3f\n", minV, minZ)
	load := func(name string) *mat.Dense {
		m, err := reference.LoadDense("06_mlp", name)
		if err != nil {
			log.Fatal(err)
		}
		return m
	}
	x := load("x.npy")
	var g, u mat.Dense
	g.Mul(x, load("gate_proj.npy").T())
	u.Mul(x, load("up_proj.npy").T())
	gd, ud := g.RawMatrix().Data, u.RawMatrix().Data
	var largest, moved float64
	for i := range gd {
		largest = math.Max(largest, math.Abs(mlp.SiLU(gd[i])*ud[i]))
		moved = math.Max(moved, math.Abs((mlp.GELU(gd[i])-mlp.SiLU(gd[i]))*ud[i]))
	}
	fmt.Printf("GELU for SiLU moves the golden layer's gated values by up to %.0f%% of their largest\n", 100*moved/largest)
	// Output:
	// minimum of SiLU: -0.278 at z = -1.278
	// GELU for SiLU moves the golden layer's gated values by up to 6% of their largest
}
