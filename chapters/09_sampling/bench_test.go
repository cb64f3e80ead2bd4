package sampling

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkSample measures one sampled token over Qwen3's full vocabulary with the thinking
// settings (go test -run ^$ -bench Sample ./chapters/09_sampling/).
func BenchmarkSample(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	z := make([]float64, 151936)
	for i := range z {
		z[i] = 4 * rng.NormFloat64()
	}
	sm, err := NewSampler(QwenThinking(1))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := sm.Sample(z); err != nil {
			b.Fatal(err)
		}
	}
}
