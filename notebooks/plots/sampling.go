package plots

import (
	"fmt"

	forward "github.com/qwen3go/qwen3go/chapters/07_forward"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"gonum.org/v1/gonum/mat"
)

// TailProb is where chapter 09's Example_whichWarper draws the tail: tokens whose raw probability
// (softmax of the logits, before any warper) is below it.
const TailProb = 1e-3

// WarpStat is what one setting of the warpers does to one next-token distribution.
type WarpStat struct {
	Kept    int     // tokens left with a probability above 0
	RawMass float64 // the share of the raw distribution those tokens held (what the filters keep)
	First   float64 // the probability of the raw distribution's most likely token, after the warpers
	Tail    float64 // the share of the draws that goes to tail tokens (raw probability < TailProb)
}

// Warped measures settings s on logits (chapter 09's sampling.Distribution), against the raw
// distribution softmax(logits). Invalid settings are an error.
func Warped(logits []float64, s sampling.Settings) (WarpStat, error) {
	if err := s.Validate(); err != nil {
		return WarpStat{}, fmt.Errorf("plots: Warped: %w", err)
	}
	if len(logits) == 0 {
		return WarpStat{}, fmt.Errorf("plots: Warped: no logits")
	}
	raw, p := sampling.Softmax(logits), sampling.Distribution(logits, s)
	var w WarpStat
	top := 0
	for i := range p {
		if raw[i] > raw[top] {
			top = i
		}
		if p[i] > 0 {
			w.Kept++
			w.RawMass += raw[i]
		}
		if raw[i] < TailProb {
			w.Tail += p[i]
		}
	}
	w.First = p[top]
	return w, nil
}

// LensHeat draws a logit lens (chapter 07's Model.LogitLens: lens[d][t], the most likely next
// tokens after d layers at position t) as a heat map: one row per depth (the embeddings at the
// top, the model's output at the bottom), one column per input token (inputs, named by d), each
// cell coloured by the probability of its top token and labelled with that token.
func LensHeat(title string, lens [][][]forward.TokenProb, d Decoder, inputs []int) (Heat, error) {
	if len(lens) == 0 || len(lens[0]) != len(inputs) {
		return Heat{}, fmt.Errorf("plots: LensHeat: %d depths for %d input tokens", len(lens), len(inputs))
	}
	data := mat.NewDense(len(lens), len(inputs), nil)
	text := make([][]string, len(lens))
	rows := make([]string, len(lens))
	for depth := range lens {
		if len(lens[depth]) != len(inputs) {
			return Heat{}, fmt.Errorf("plots: LensHeat: depth %d has %d positions, want %d", depth, len(lens[depth]), len(inputs))
		}
		rows[depth] = fmt.Sprintf("after layer %d", depth-1)
		if depth == 0 {
			rows[depth] = "embeddings"
		}
		text[depth] = make([]string, len(inputs))
		for t, top := range lens[depth] {
			if len(top) == 0 {
				return Heat{}, fmt.Errorf("plots: LensHeat: depth %d position %d has no tokens", depth, t)
			}
			data.Set(depth, t, top[0].Prob)
			text[depth][t] = TokenLabels(d, []int{top[0].ID})[0]
		}
	}
	return Heat{
		Title: title, XLabel: "input token (the lens predicts the token after it)", YLabel: "residual stream read",
		Data: data, Colors: Sequential(0, 1), XNames: TokenLabels(d, inputs), YNames: rows, Text: text,
	}, nil
}
