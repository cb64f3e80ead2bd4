package tokenizer

// Byte-pair encoding of one pre-tokenizer piece.
//
// A piece starts as one symbol per byte (the single-byte tokens). The merge list ranks pairs of
// tokens: rank 0 is the pair that was most frequent when the tokenizer was trained. BPE repeatedly
// merges the adjacent pair with the LOWEST rank (leftmost first on ties) until no adjacent pair is
// in the list. MergeStep below does exactly one such step, the slow obvious way; bpe does the whole
// loop fast:
//
//   - the symbols are a doubly linked list inside a slice, so merging two symbols is O(1)
//     (the left one takes the new id, the right one is unlinked);
//   - the candidate pairs wait in a min-heap ordered by (rank, position), so finding the best pair
//     is O(log n). Merging creates at most two new pairs (with the left and right neighbours),
//     which are pushed; entries whose symbols have changed since they were pushed are stale and
//     are skipped when popped.
//
// The whole piece costs O(n log n) instead of the O(n²) of rescanning after every merge.

// Merge is one entry of the merge list: tokens Left and Right become token ID. Rank is the
// position in the list; lower ranks merge first.
type Merge struct {
	Left, Right, ID, Rank int
}

// pairKey packs two token ids into one map key.
func pairKey(left, right int32) uint64 { return uint64(uint32(left))<<32 | uint64(uint32(right)) }

// mergeInfo is what the merge table stores for a pair.
type mergeInfo struct {
	rank int32
	id   int32
}

// lookupMerge returns the merge of the pair (left, right), if the merge list has it.
func (t *Tokenizer) lookupMerge(left, right int) (Merge, bool) {
	m, ok := t.merges[pairKey(int32(left), int32(right))]
	if !ok {
		return Merge{}, false
	}
	return Merge{Left: left, Right: right, ID: int(m.id), Rank: int(m.rank)}, true
}

// MergeStep performs one BPE step on a sequence of token ids: among all adjacent pairs that are in
// the merge list it picks the one with the lowest rank (the leftmost one if the same pair occurs
// more than once), and replaces the two ids by the merged id. It returns the new sequence (ids is
// not modified), the merge applied, and false if no adjacent pair can be merged (then out == ids).
//
// This is the textbook algorithm: O(n) per step, O(n²) per piece. The tokenizer itself uses the
// linked list and heap of bpe, and a test checks that both always agree.
func (t *Tokenizer) MergeStep(ids []int) (out []int, applied Merge, ok bool) {
	// exercise: tokenizer.MergeStep — merge the adjacent pair of lowest merge rank (the leftmost of equal ones)
	// tests: TestMergeStepByHand TestMergeStepLeftmostOnTies TestHeapBPEMatchesMergeStep
	// difficulty: medium, 25 min
	best := -1
	for i := 0; i+1 < len(ids); i++ {
		m, found := t.lookupMerge(ids[i], ids[i+1])
		if found && (best < 0 || m.Rank < applied.Rank) {
			best, applied = i, m
		}
	}
	if best < 0 {
		return ids, Merge{}, false
	}
	out = make([]int, 0, len(ids)-1)
	out = append(out, ids[:best]...)
	out = append(out, applied.ID)
	out = append(out, ids[best+2:]...)
	return out, applied, true
	// hint: Look at every adjacent pair (ids[i], ids[i+1]); t.lookupMerge tells whether the merge
	// list has it and at which rank. Keep the best one seen so far, then build the new sequence.
	// hint: best = the smallest i whose pair is in the list with the lowest rank (a strict < keeps
	// the leftmost of equal ranks); out = ids[:best] + [merged id] + ids[best+2:].
	// hint: The shape:
	//	best := -1
	//	for i := 0; i+1 < len(ids); i++ {
	//		m, found := t.lookupMerge(ids[i], ids[i+1])
	//		if found && (best < 0 || ...) { best, applied = i, m }
	//	}
	//	if best < 0 { return ids, Merge{}, false }
	//	// then a new slice: ids[:best], applied.ID, ids[best+2:]
	// mistake: the leftmost pair in the merge list, whatever its rank
	// says: LOWEST rank merges first, wherever it is
	//	- if found && (best < 0 || m.Rank < applied.Rank) {
	//	+ if found && best < 0 {
	// mistake: the rightmost of two pairs of equal rank
	// says: of two pairs with the same rank, the leftmost merges
	//	- if found && (best < 0 || m.Rank < applied.Rank) {
	//	+ if found && (best < 0 || m.Rank <= applied.Rank) {
	// mistake: the highest rank first
	// says: the adjacent pair of LOWEST rank merges first
	//	- if found && (best < 0 || m.Rank < applied.Rank) {
	//	+ if found && (best < 0 || m.Rank > applied.Rank) {
	// end exercise
}

// symbol is one node of the linked list of a piece being merged.
type symbol struct {
	id         int32
	prev, next int32 // indices into the symbol slice, -1 at the ends
	alive      bool  // false once merged into its left neighbour
}

// candidate is a pair waiting in the heap: the symbols at pos and its next neighbour, which had
// ids left and right when it was pushed.
type candidate struct {
	rank, pos   int32
	left, right int32
	id          int32 // the merged token
}

// less orders candidates by rank, then by position.
func (a candidate) less(b candidate) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// candidateHeap is a binary min-heap of candidates (container/heap without the interface calls).
type candidateHeap []candidate

func (h *candidateHeap) push(c candidate) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s[i].less(s[parent]) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *candidateHeap) pop() candidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].less(s[m]) {
			m = l
		}
		if r < len(s) && s[r].less(s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// workspace holds the buffers bpe reuses from one piece to the next.
type workspace struct {
	syms []symbol
	heap candidateHeap
}

// pushPair queues the pair (a, a.next) if the merge list has it.
func (t *Tokenizer) pushPair(ws *workspace, a int32) {
	if a < 0 {
		return
	}
	b := ws.syms[a].next
	if b < 0 {
		return
	}
	left, right := ws.syms[a].id, ws.syms[b].id
	if m, ok := t.merges[pairKey(left, right)]; ok {
		ws.heap.push(candidate{rank: m.rank, pos: a, left: left, right: right, id: m.id})
	}
}

// bpe appends the token ids of one piece (raw bytes) to dst.
func (t *Tokenizer) bpe(dst []int, piece string, ws *workspace) []int {
	n := len(piece)
	if n == 1 {
		return append(dst, int(t.byteIDs[piece[0]]))
	}
	ws.syms, ws.heap = ws.syms[:0], ws.heap[:0]
	for i := 0; i < n; i++ {
		ws.syms = append(ws.syms, symbol{id: t.byteIDs[piece[i]], prev: int32(i - 1), next: int32(i + 1), alive: true})
	}
	ws.syms[n-1].next = -1
	for i := int32(0); i+1 < int32(n); i++ {
		t.pushPair(ws, i)
	}
	for len(ws.heap) > 0 {
		c := ws.heap.pop()
		a := &ws.syms[c.pos]
		if !a.alive || a.id != c.left || a.next < 0 || ws.syms[a.next].id != c.right {
			continue // stale: one of the two symbols was merged since this pair was queued
		}
		b := &ws.syms[a.next]
		a.id = c.id
		b.alive = false
		a.next = b.next
		if b.next >= 0 {
			ws.syms[b.next].prev = c.pos
		}
		t.pushPair(ws, a.prev)
		t.pushPair(ws, c.pos)
	}
	for i := int32(0); i >= 0; i = ws.syms[i].next {
		dst = append(dst, int(ws.syms[i].id))
	}
	return dst
}
