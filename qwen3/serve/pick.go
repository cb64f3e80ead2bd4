package serve

import (
	"fmt"
	"math"

	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
)

// tokenPicker chooses a token from float32 logits with chapter 09's Sampler, the way the engine's
// own generation loop does (qwen3/generate.go, picker): greedy settings take the argmax; with
// top-k only the candidates that survive top-k (ties at the k-th value included, in id order)
// are handed to the sampler, which draws the same token, seed for seed, as on the whole
// vocabulary, at a fraction of the work; otherwise the sampler gets every logit.
//
// It is a copy: package qwen3 keeps its picker unexported, and a server must choose tokens for
// many replies at once outside the engine's loop. When the engine exports a picker over float32
// logits (asked for in issue 35's rework), this file goes and modelEngine.picker returns that.
type tokenPicker struct {
	sampler *sampling.Sampler
	greedy  bool
	k       int
	heap    []float32 // the k largest values seen, a min-heap
	ids     []int
	sub     []float64
}

func newTokenPicker(vocab int, s sampling.Settings) (*tokenPicker, error) {
	sm, err := sampling.NewSampler(s)
	if err != nil {
		return nil, err
	}
	p := &tokenPicker{sampler: sm, greedy: s.IsGreedy()}
	switch {
	case p.greedy:
	case s.TopK > 0 && s.TopK < vocab:
		p.k = s.TopK
		p.heap = make([]float32, 0, p.k)
		p.ids, p.sub = make([]int, 0, 4*p.k), make([]float64, 0, 4*p.k)
	default:
		p.sub = make([]float64, vocab)
	}
	return p, nil
}

func (p *tokenPicker) pick(logits []float32) (int, error) {
	if p.greedy {
		best := -1
		for i, v := range logits {
			if v != v || v > math.MaxFloat32 {
				return 0, fmt.Errorf("sampling: logit %d of %d is %v", i, len(logits), v)
			}
			if best < 0 || v > logits[best] {
				best = i
			}
		}
		if best < 0 || logits[best] < -math.MaxFloat32 {
			return 0, fmt.Errorf("sampling: none of the %d logits is a finite number", len(logits))
		}
		return best, nil
	}
	if p.k == 0 {
		p.sub = p.sub[:len(logits)]
		for i, v := range logits {
			p.sub[i] = float64(v)
		}
		return p.sampler.Sample(p.sub)
	}
	// The k-th largest value, with a min-heap of the k largest so far.
	h := p.heap[:0]
	for _, v := range logits {
		switch {
		case len(h) < p.k:
			h = append(h, v)
			for i := len(h) - 1; i > 0; { // sift up
				parent := (i - 1) / 2
				if !(h[i] < h[parent]) {
					break
				}
				h[i], h[parent] = h[parent], h[i]
				i = parent
			}
		case v > h[0]:
			h[0] = v
			for i := 0; ; { // sift down
				l, small := 2*i+1, i
				if l < len(h) && h[l] < h[small] {
					small = l
				}
				if l+1 < len(h) && h[l+1] < h[small] {
					small = l + 1
				}
				if small == i {
					break
				}
				h[i], h[small] = h[small], h[i]
				i = small
			}
		}
	}
	p.heap = h
	threshold := h[0]
	p.ids, p.sub = p.ids[:0], p.sub[:0]
	for i, v := range logits {
		if v >= threshold || v != v { // a NaN goes to the sampler, which refuses it
			p.ids = append(p.ids, i)
			p.sub = append(p.sub, float64(v))
		}
	}
	j, err := p.sampler.Sample(p.sub)
	if err != nil {
		return 0, err
	}
	return p.ids[j], nil
}
