package batching

import (
	"errors"
	"fmt"
)

// Side says where a short prompt's padding goes.
type Side int

const (
	// Left puts the padding before the prompt, so that every prompt ends in the last column: the
	// column whose logits predict the next token, and the column the next token is appended after.
	// Generation needs it.
	Left Side = iota
	// Right puts the padding after the prompt. It suits a model that reads its input once (a
	// classifier), but a generating model would predict the next token from a padding column and
	// append it after the padding: see the package doc. It is here to show that going wrong.
	Right
)

func (s Side) String() string {
	switch s {
	case Left:
		return "left"
	case Right:
		return "right"
	}
	return fmt.Sprintf("Side(%d)", int(s))
}

// Batch is B prompts padded to one width T: the rectangle a batched forward pass runs on.
//
//	IDs[b][t]   the token in column t of prompt b (the pad id in a padding column)      B x T
//	Real[b][t]  true for a prompt token, false for padding (transformers' attention_mask) B x T
//
// T is the length of the longest prompt, which has no padding at all.
type Batch struct {
	IDs  [][]int
	Real [][]bool
}

// Len returns the number of prompts B.
func (b *Batch) Len() int { return len(b.IDs) }

// Width returns the number of columns T (0 for an empty batch).
func (b *Batch) Width() int {
	if len(b.IDs) == 0 {
		return 0
	}
	return len(b.IDs[0])
}

// Pad pads every prompt with the id pad to the length T of the longest one, on the given side
// (Left for generation), and marks which columns are real:
//
//	Left:   IDs[b] = [pad × (T-n_b), prompt_b...]   Real[b] = [false × (T-n_b), true × n_b]
//	Right:  IDs[b] = [prompt_b..., pad × (T-n_b)]   Real[b] = [true × n_b, false × (T-n_b)]
//
// The pad id itself does not matter once the mask hides padding (Qwen3 uses <|endoftext|>,
// 151643); the tests change it and see nothing move. No prompts, or an empty prompt, is an
// error: an empty prompt has no last token to predict from.
func Pad(prompts [][]int, pad int, side Side) (*Batch, error) {
	if len(prompts) == 0 {
		return nil, errors.New("batching: no prompts to pad")
	}
	if side != Left && side != Right {
		return nil, fmt.Errorf("batching: unknown padding side %v", side)
	}
	width := 0
	for b, p := range prompts {
		if len(p) == 0 {
			return nil, fmt.Errorf("batching: prompt %d is empty (a prompt needs at least one token to predict the next)", b)
		}
		width = max(width, len(p))
	}
	batch := &Batch{IDs: make([][]int, len(prompts)), Real: make([][]bool, len(prompts))}
	// exercise: batching.Pad — put the padding on the chosen side and mark the prompt's columns real
	// tests: TestPadGolden ExamplePad
	// difficulty: easy, 15 min
	for b, p := range prompts {
		ids, real := make([]int, width), make([]bool, width)
		start := 0 // the column of the prompt's first token
		if side == Left {
			start = width - len(p)
		}
		for t := range ids {
			ids[t] = pad
		}
		copy(ids[start:], p)
		for t := start; t < start+len(p); t++ {
			real[t] = true
		}
		batch.IDs[b], batch.Real[b] = ids, real
	}
	// hint: Every prompt becomes a row of the same width, the longest prompt's: the prompt's own
	// tokens, and pad ids filling the rest, before it (Left) or after it (Right). A second row of
	// flags says which columns hold the prompt.
	// hint: For a prompt of length n in width T: start = T - n on the left, 0 on the right; ids =
	// pad everywhere, then the prompt copied at start; real[t] = true for start <= t < start+n.
	// hint: The shape, for each prompt b:
	//	ids, real := make([]int, width), make([]bool, width)
	//	start := 0; if side == Left { start = ... }
	//	for t := range ids { ids[t] = pad }; copy(ids[start:], p)
	//	for t := start; t < start+len(p); t++ { real[t] = true }
	// mistake: the side ignored, the padding always after the prompt: a short prompt's last column is then a pad
	// says: its last column is then a pad
	//	- if side == Left {
	//	- start = width - len(p)
	//	- }
	// mistake: the padding marked real too, so the mask would show the pad keys
	// says: the padding is marked real
	//	- for t := start; t < start+len(p); t++ {
	//	+ for t := range real {
	// mistake: the padding columns left at 0 (make's zero), not the pad id
	// says: not the pad id
	//	- for t := range ids {
	//	- ids[t] = pad
	//	- }
	// end exercise
	return batch, nil
}
