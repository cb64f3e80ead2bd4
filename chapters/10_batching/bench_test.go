package batching

import (
	"fmt"
	"testing"

	kvcache "github.com/qwen3go/qwen3go/chapters/08_kvcache"
	"github.com/qwen3go/qwen3go/reference/tinymodel"
)

// BenchmarkStep measures one decode step for B sequences of the tiny model (8-token prompts):
// "batched" is one Cache.Step for all B, "alone" is B separate chapter 08 cache steps. It reports
// the time per generated token (ns/token). In float64 the tiny model's cost is its LM head (151,936
// x 64, 78 MB), which the batched step reads once for all B rows. Run with
//
//	go test ./chapters/10_batching/ -run '^$' -bench Step -benchtime 64x -count 3 | tee notebooks/data/batching_bench.txt
//
// (notebooks/10_batching.ipynb draws that file). On the 2-core AMD EPYC build machine on
// 2026-11-23, shared (load average 2 to 3), the medians per token were 6.9 ms batched and 7.1 ms alone at B=1, 3.1 against
// 6.2 at B=4 and 2.9 against 7.0 at B=8: 2.4 times the throughput at B=8 (under a load average of 11
// an earlier run measured 1.5 to 2.5 times). Here float64 arithmetic costs as much as reading the
// weights, so batching gains less than the B-fold saving in reads.
func BenchmarkStep(b *testing.B) {
	m := tinymodel.Model(b)
	const promptLen, window = 8, 32 // a fresh prefill every window steps keeps the context bounded
	for _, batchSize := range []int{1, 2, 4, 8} {
		prompts := make([][]int, batchSize)
		for i := range prompts {
			for t := 0; t < promptLen; t++ {
				prompts[i] = append(prompts[i], 1000+100*i+t)
			}
		}
		feed := make([]int, batchSize)
		for i := range feed {
			feed[i] = 500 + i
		}
		b.Run(fmt.Sprintf("batched/B=%d", batchSize), func(b *testing.B) {
			var c *Cache
			for i := 0; i < b.N; i++ {
				if i%window == 0 {
					b.StopTimer()
					c, _ = New(m, promptLen+window)
					batch, _ := Pad(prompts, PadToken, Left)
					if _, err := c.Prefill(batch); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if _, err := c.Step(feed); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchSize), "ns/token")
		})
		b.Run(fmt.Sprintf("alone/B=%d", batchSize), func(b *testing.B) {
			caches := make([]*kvcache.Cache, batchSize)
			for i := 0; i < b.N; i++ {
				if i%window == 0 {
					b.StopTimer()
					for j := range caches {
						caches[j], _ = kvcache.New(m, promptLen+window)
						if _, err := caches[j].Prefill(prompts[j]); err != nil {
							b.Fatal(err)
						}
					}
					b.StartTimer()
				}
				for j, c := range caches {
					if _, err := c.Step(feed[j]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchSize), "ns/token")
		})
	}
}
