package sampling_test

import (
	"context"
	"fmt"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

func ExampleSoftmax() {
	p := sampling.Softmax([]float64{2, 1, 0})
	fmt.Printf("%.4f\n", p)
	// Output:
	// [0.6652 0.2447 0.0900]
}

func ExampleTemperature() {
	z := []float64{2, 1, 0}
	for _, t := range []float64{0.5, 1, 2} {
		fmt.Printf("T=%.1f: %.4f\n", t, sampling.Softmax(sampling.Temperature(z, t)))
	}
	// Output:
	// T=0.5: [0.8668 0.1173 0.0159]
	// T=1.0: [0.6652 0.2447 0.0900]
	// T=2.0: [0.5065 0.3072 0.1863]
}

func ExampleTopP() {
	// probabilities 0.6364 0.2341 0.0861 0.0317 0.0117 for ids 4 0 2 1 3
	z := []float64{2, 0, 1, -1, 3}
	fmt.Println(sampling.TopP(z, 0.8))
	fmt.Println(sampling.TopP(z, 0.9))
	// Output:
	// [2 -Inf -Inf -Inf 3]
	// [2 -Inf 1 -Inf 3]
}

func ExampleWarp() {
	z := []float64{2, 0, 1, -1, 3}
	s := sampling.QwenThinking(1) // T=0.6, top_k=20, top_p=0.95
	fmt.Printf("%.4f\n", sampling.Distribution(z, s))
	// After T=0.6 the top token has 0.8113 and the next 0.1532: together 0.9646 >= 0.95, so the
	// nucleus is these two.

	// Output:
	// [0.1589 0.0000 0.0000 0.0000 0.8411]
}

func ExampleSampler() {
	z := []float64{2, 0, 1, -1, 3}
	sm, err := sampling.NewSampler(sampling.Settings{Temperature: 1, TopP: 1, Seed: 42})
	if err != nil {
		fmt.Println(err)
		return
	}
	var ids []int
	for range 20 {
		id, _ := sm.Sample(z)
		ids = append(ids, id)
	}
	fmt.Println(ids)
	_, err = sampling.NewSampler(sampling.Settings{Temperature: 1, TopP: 1.5})
	fmt.Println(err)
	// Output:
	// [4 4 2 4 4 4 4 4 4 4 4 4 4 0 4 4 1 2 4 0]
	// sampling: invalid sampling settings: top_p 1.5 must be in (0, 1] (1 = off)
}

// loop predicts token (last+1) mod 5, as if it had learned to count.
type loop struct{ last int }

func (m *loop) logits() []float64 {
	z := make([]float64, 151936)
	z[(m.last+1)%5] = 5
	return z
}
func (m *loop) Prefill(ids []int) ([]float64, error) {
	m.last = ids[len(ids)-1]
	return m.logits(), nil
}
func (m *loop) Step(id int) ([]float64, error) { m.last = id; return m.logits(), nil }

func ExampleGenerate() {
	opts := sampling.GenerateOptions{Settings: sampling.Greedy(), MaxNewTokens: 6}
	ids, err := sampling.Generate(context.Background(), &loop{}, []int{0, 1}, opts, func(id int) error {
		fmt.Println("got", id)
		return nil
	})
	fmt.Println(ids, err)
	// Output:
	// got 2
	// got 3
	// got 4
	// got 0
	// got 1
	// got 2
	// [2 3 4 0 1 2] <nil>
}
