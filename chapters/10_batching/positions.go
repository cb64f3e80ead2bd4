package batching

// Positions returns the RoPE position of every column of a padded batch (real is B x T, true for
// a prompt token), computed as transformers' generate() computes position_ids from the attention
// mask:
//
//	position_ids = cumsum(attention_mask, -1) - 1,  then 0 wherever attention_mask is 0
//
// so each prompt's first real token is at position 0, whatever column it sits in, and a padding
// column gets position 0. (transformers 5 fills padding with 0; 4.x filled it with 1. The value is
// never seen by a real token, because the mask hides padding keys; it only has to be a valid
// position.) With left padding a prompt of n tokens in a batch of width T reads
//
//	columns   0 .. T-n-1  |  T-n  T-n+1 ...  T-1
//	positions 0 ...    0  |   0     1   ...  n-1
//
// exactly the positions the prompt has when it runs alone, which is why batching changes nothing.
func Positions(real [][]bool) [][]int {
	out := make([][]int, len(real))
	for b, row := range real {
		pos := make([]int, len(row))
		// exercise: batching.Positions — count real tokens from each prompt's first one; padding gets 0
		// tests: TestPositionsGolden ExamplePositions
		// difficulty: easy, 10 min
		seen := 0 // real tokens in columns 0..t
		for t, r := range row {
			if r {
				seen++
				pos[t] = seen - 1
			}
		}
		// hint: A prompt's first real token is at position 0 wherever its padding put it: count the
		// real tokens, not the columns. Padding columns get 0 (they are masked anyway).
		// hint: position_ids = cumsum(real) - 1 on the real columns, 0 on the padding: the real token
		// in column t is at position (number of real tokens in columns 0..t) - 1.
		// hint: The shape:
		//	seen := 0
		//	for t, r := range row {
		//		if r { seen++; pos[t] = ... }
		//	}
		// mistake: the column index, counted from the first pad instead of the first real token
		// says: counted from the first column (the pads)
		//	- pos[t] = seen - 1
		//	+ pos[t] = t
		// mistake: cumsum without the -1, so the first real token is at position 1
		// says: the first real token is at position 1
		//	- pos[t] = seen - 1
		//	+ pos[t] = seen
		// mistake: cumsum - 1 in every column, so the padding before the prompt gets position -1
		// says: a padding column at position -1
		//	- if r {
		//	- seen++
		//	- pos[t] = seen - 1
		//	- }
		//	+ if r {
		//	+ 	seen++
		//	+ }
		//	+ pos[t] = seen - 1
		// end exercise
		out[b] = pos
	}
	return out
}
