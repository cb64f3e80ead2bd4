package tokenizer

import (
	"slices"
	"strings"
	"testing"
)

// tinyTokenizer is a toy vocabulary: the 256 byte tokens plus the merges below, so that every step
// of BPE can be followed by hand.
func tinyTokenizer(tb testing.TB, merges ...string) *Tokenizer {
	tb.Helper()
	table := ByteToRune()
	var tokens []string
	for _, r := range table {
		tokens = append(tokens, string(r))
	}
	for _, m := range merges {
		tokens = append(tokens, strings.Replace(m, " ", "", 1))
	}
	tokens = append(tokens, "<|end|>")
	types := make([]int32, len(tokens))
	for i := range types {
		types[i] = int32(TypeNormal)
	}
	types[len(types)-1] = int32(TypeControl)
	t, err := New(tokens, types, merges)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// spell turns ids into their vocabulary strings, for readable failures.
func spell(t *Tokenizer, ids []int) []string {
	var out []string
	for _, id := range ids {
		s, _ := t.Token(id)
		out = append(out, s)
	}
	return out
}

func TestMergeStepByHand(t *testing.T) {
	// Ranks: "l l" 0, "e ll" 1, "h ell" 2, "h e" 3, "o Ġ" 4.
	tok := tinyTokenizer(t, "l l", "e ll", "h ell", "h e", "o Ġ")
	var ids []int
	for _, b := range []byte("hello") {
		ids = append(ids, int(tok.byteIDs[b]))
	}
	// "h e" (rank 3) is a candidate from the start, but "l l" (rank 0) goes first, then "e ll",
	// then "h ell": rank decides, not position.
	wantSteps := [][]string{
		{"h", "e", "ll", "o"},
		{"h", "ell", "o"},
		{"hell", "o"},
	}
	for step, want := range wantSteps {
		out, m, ok := tok.MergeStep(ids)
		if !ok {
			t.Fatalf("step %d: no merge, want %q", step, want)
		}
		if got := spell(tok, out); !slices.Equal(got, want) {
			if m.Rank == step {
				t.Fatalf("step %d: %q, want %q: the right pair (rank %d) was merged, but the new sequence is wrong:\n"+
					"out = ids[:i], then the merged id, then ids[i+2:] (one id shorter than ids)", step, got, want, m.Rank)
			}
			t.Fatalf("step %d: %q, want %q: it merged a pair of rank %d while a pair of rank %d was there:\n"+
				"the adjacent pair of LOWEST rank merges first, wherever it is", step, got, want, m.Rank, step)
		}
		if m.Rank != step {
			t.Errorf("step %d applied rank %d", step, m.Rank)
		}
		ids = out
	}
	if out, _, ok := tok.MergeStep(ids); ok || !slices.Equal(out, ids) {
		t.Errorf("after the last merge MergeStep still merged: %q", spell(tok, out))
	}
	if got := spell(tok, tok.Encode("hello")); !slices.Equal(got, []string{"hell", "o"}) {
		t.Errorf("Encode(hello) = %q", got)
	}
}

func TestMergeStepLeftmostOnTies(t *testing.T) {
	tok := tinyTokenizer(t, "a a")
	ids := []int{int(tok.byteIDs['a']), int(tok.byteIDs['a']), int(tok.byteIDs['a'])}
	out, _, _ := tok.MergeStep(ids)
	if got := spell(tok, out); !slices.Equal(got, []string{"aa", "a"}) {
		t.Errorf("aaa -> %q, want [aa a]: of two pairs with the same rank, the leftmost merges", got)
	}
	if got := spell(tok, tok.Encode("aaaaa")); !slices.Equal(got, []string{"aa", "aa", "a"}) {
		t.Errorf("Encode(aaaaa) = %q, want [aa aa a]", got)
	}
}

// mergeAll is BPE by repeated MergeStep: the slow definition that bpe must agree with.
func mergeAll(t *Tokenizer, piece string) []int {
	var ids []int
	for i := 0; i < len(piece); i++ {
		ids = append(ids, int(t.byteIDs[piece[i]]))
	}
	for {
		out, _, ok := t.MergeStep(ids)
		if !ok {
			return ids
		}
		ids = out
	}
}

func TestHeapBPEMatchesMergeStep(t *testing.T) {
	tok := qwen(t)
	ws := &workspace{}
	n := 0
	for _, c := range loadCorpus(t) {
		for _, p := range PreTokenize(nfc(c.Text)) {
			if got, want := tok.bpe(nil, p, ws), mergeAll(tok, p); !slices.Equal(got, want) {
				t.Fatalf("piece %q: heap BPE %v, repeated MergeStep %v", p, got, want)
			}
			n++
		}
	}
	// Long pieces, where the heap matters.
	for _, p := range []string{strings.Repeat("a", 1000), strings.Repeat("ab", 300), strings.Repeat("é", 200), strings.Repeat(" ", 513)} {
		if got, want := tok.bpe(nil, p, ws), mergeAll(tok, p); !slices.Equal(got, want) {
			t.Fatalf("long piece %.20q...: heap BPE and MergeStep differ", p)
		}
	}
	t.Logf("%d pieces agree", n)
}
