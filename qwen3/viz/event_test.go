package viz

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tokenizer "github.com/qwen3go/qwen3go/chapters/02_tokenizer"
	sampling "github.com/qwen3go/qwen3go/chapters/09_sampling"
	"github.com/qwen3go/qwen3go/qwen3"
	"github.com/qwen3go/qwen3go/reference"
)

var tiny = sync.OnceValues(func() (*qwen3.Model, error) {
	return qwen3.LoadGGUFBytes(context.Background(), "tiny-qwen3.gguf", reference.TinyGGUFBytes())
})

func tinyModel(t testing.TB) *qwen3.Model {
	t.Helper()
	m, err := tiny()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tok(t testing.TB) *tokenizer.Tokenizer { return tinyModel(t).Tokenizer() }

// byHand is chapter 09's worked example (its doc, "A worked example by hand"): logits
// z = [2 1 0 -1 -3]; with T 0.5, top-k 3 and top-p 0.9 the sampler keeps tokens 0 and 1 with
// p = [0.8808 0.1192]. The step is what the engine hands OnStep: top-k's survivors as Candidates
// and chapter 09's Distribution of them.
func byHand(s sampling.Settings, id int) qwen3.Step {
	z := []float32{2, 1, 0, -1, -3}
	step := qwen3.Step{Index: 3, Position: 9, Settings: s, Logits: z, ID: id, Time: 1500 * time.Microsecond}
	var input []float64
	if s.TopK > 0 {
		step.Candidates = []int{0, 1, 2}
		input = []float64{2, 1, 0}
	} else {
		input = []float64{2, 1, 0, -1, -3}
	}
	step.Probs = sampling.Distribution(input, s)
	return step
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (within %g)", what, got, want, tol)
	}
}

// TestEventByHand: the numbers of chapter 09's worked example, written here to 4 or 5 digits
// (so within 1e-4 of the exact values): the nucleus, the tail, each warper's cut, the
// probabilities before and after temperature and top-k, the entropies.
func TestEventByHand(t *testing.T) {
	const tol = 1e-4 // the digits written
	e, err := NewEvent(byHand(sampling.Settings{Temperature: 0.5, TopK: 3, TopP: 0.9, Seed: 1}, 1), tok(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Step != 3 || e.Position != 9 || e.ID != 1 || e.Token != `"` || e.TimeMS != 1.5 || e.Vocab != 5 || e.Rank != 2 {
		t.Errorf("event %+v", e)
	}
	if e.Kept != 2 || e.Tail != 3 || e.CutTopK != 2 || e.CutTopP != 1 || e.CutMinP != 0 {
		t.Errorf("kept %d, tail %d, cut by top-k %d, top-p %d, min-p %d; want 2, 3, 2, 1, 0", e.Kept, e.Tail, e.CutTopK, e.CutTopP, e.CutMinP)
	}
	near(t, "kept mass", e.KeptMass, 0.8770, tol)
	near(t, "tail mass", e.TailMass, 0.1230, tol)
	near(t, "kept mass after T", e.KeptMassT, 0.98198, tol)
	near(t, "tail mass after T", e.TailMassT, 0.01802, tol)
	near(t, "entropy", e.Entropy, 1.4013, tol)
	near(t, "entropy after T", e.EntropyT, 0.6577, tol)
	near(t, "entropy drawn from", e.EntropyKept, 0.5271, tol)
	want := []struct {
		p, pt, pk, q float64
		cut          string
	}{
		{0.6411, 0.86492, 0.86681, 0.8808, ""},
		{0.2359, 0.11705, 0.11731, 0.1192, ""},
		{0.0868, 0.01584, 0.01588, 0, CutTopP},
		{0.0319, 0.00214, 0, 0, CutTopK},
		{0.0043, 0.00004, 0, 0, CutTopK},
	}
	if len(e.Candidates) != 5 || e.Rest.Count != 0 {
		t.Fatalf("%d candidates, %d more kept: want all 5 listed", len(e.Candidates), e.Rest.Count)
	}
	for i, c := range e.Candidates {
		w := want[i]
		if c.ID != i || c.Rank != i+1 || c.Cut != w.cut || c.Drawn != (i == 1) {
			t.Errorf("candidate %d: %+v; want id %d, rank %d, cut %q", i, c, i, i+1, w.cut)
		}
		near(t, "p", c.P, w.p, tol)
		near(t, "p_t", c.PT, w.pt, tol)
		near(t, "p_k", c.PK, w.pk, tol)
		near(t, "q", c.Q, w.q, tol)
	}

	// Without top-k, min-p 0.2 alone keeps tokens 0 and 1 with p = [0.7311 0.2689] (the worked
	// example's min-p line); the sampler saw the whole vocabulary.
	e, err = NewEvent(byHand(sampling.Settings{Temperature: 1, TopP: 1, MinP: 0.2}, 0), tok(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kept != 2 || e.CutTopK != 0 || e.CutTopP != 0 || e.CutMinP != 3 || len(e.Candidates) != 2 || e.Rest.Count != 0 {
		t.Errorf("min-p 0.2: kept %d, cut %d/%d/%d, %d candidates, %d more", e.Kept, e.CutTopK, e.CutTopP, e.CutMinP, len(e.Candidates), e.Rest.Count)
	}
	near(t, "q of token 0", e.Candidates[0].Q, 0.7311, tol)
	near(t, "entropy = entropy after T at T 1", e.EntropyT, e.Entropy, 0)

	// The drawn token below the top listed: listed after them with its rank, and the kept tokens
	// not listed summed in Rest.
	e, err = NewEvent(byHand(sampling.Settings{Temperature: 1, TopP: 1, MinP: 0.2, Seed: 5}, 1), tok(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Candidates) != 2 || e.Candidates[1].ID != 1 || e.Candidates[1].Rank != 2 || !e.Candidates[1].Drawn || e.Rest.Count != 0 {
		t.Errorf("top 1 and the drawn token: %+v, rest %+v", e.Candidates, e.Rest)
	}
	e, err = NewEvent(byHand(sampling.Settings{Temperature: 1, TopP: 1, MinP: 0.2}, 0), tok(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "the rest's q", e.Rest.Q, 0.2689, tol)
	if e.Rest.Count != 1 {
		t.Errorf("rest %+v: one kept token not listed", e.Rest)
	}

	// Greedy: the engine's Step is the argmax with probability 1; every other token is cut by
	// temperature 0.
	g := byHand(sampling.Greedy(), 0)
	g.Candidates, g.Probs = []int{0}, []float64{1}
	e, err = NewEvent(g, tok(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	if e.Kept != 1 || e.CutTopK != 4 || e.Candidates[1].Cut != CutGreedy || e.Candidates[0].Q != 1 || e.EntropyKept != 0 || e.Candidates[0].PT != 1 {
		t.Errorf("greedy: %+v", e)
	}
}

// TestEventRefusesContradictions: a step whose distribution cannot be the one drawn from is an
// error, not an event drawn wrong.
func TestEventRefusesContradictions(t *testing.T) {
	s := sampling.Settings{Temperature: 0.5, TopK: 3, TopP: 0.9, Seed: 1}
	for _, c := range []struct {
		name string
		edit func(*qwen3.Step)
		msg  string
	}{
		{"drawn with probability 0", func(st *qwen3.Step) { st.ID = 2 }, "the drawn token 2 has probability 0"},
		{"a cut token kept", func(st *qwen3.Step) { st.Probs = []float64{0.5, 0.25, 0.25} }, `token 2 has probability 0.25 in the distribution drawn from, but the warpers replayed say "top-p"`},
		{"lengths", func(st *qwen3.Step) { st.Probs = st.Probs[:2] }, "3 candidates with 2 probabilities"},
		{"an id outside", func(st *qwen3.Step) { st.ID = 7 }, "drawn id 7 of 5 logits"},
		{"a candidate outside", func(st *qwen3.Step) { st.Candidates = []int{0, 1, 9} }, "candidate id 9 of 5 logits"},
	} {
		st := byHand(s, 0)
		c.edit(&st)
		if _, err := NewEvent(st, tok(t), 0); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.msg)
		}
	}
}

// TestTraceRoundTrip: what Trace writes, ReadTrace reads back, event for event; a bad line is an
// error naming it.
func TestTraceRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	tr := NewTrace(&buf, tok(t), 0)
	var direct []Event
	for id := range 2 {
		st := byHand(sampling.Settings{Temperature: 0.5, TopK: 3, TopP: 0.9, Seed: 1}, id)
		st.Index = id
		tr.Step(st)
		e, _ := NewEvent(st, tok(t), 0)
		direct = append(direct, e)
	}
	if tr.Err() != nil || tr.Events() != 2 || strings.Count(buf.String(), "\n") != 2 {
		t.Fatalf("trace: %v, %d events, %q", tr.Err(), tr.Events(), buf.String())
	}
	back, err := ReadTrace(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || !slices.EqualFunc(back, direct, func(a, b Event) bool {
		return a.ID == b.ID && a.Kept == b.Kept && a.Entropy == b.Entropy && slices.Equal(a.Candidates, b.Candidates)
	}) {
		t.Errorf("read back %+v, wrote %+v", back, direct)
	}
	bad := buf.String() + "\n{\"step\": 2, \"kept\": \"many\"}\n"
	if _, err := ReadTrace(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "trace line 4") {
		t.Errorf("a bad line 4: %v", err)
	}
	// A step that cannot be made stops the trace, and Err says why.
	tr = NewTrace(&buf, tok(t), 0)
	st := byHand(sampling.Settings{Temperature: 0.5, TopK: 3, TopP: 0.9, Seed: 1}, 2)
	tr.Step(st)
	if tr.Err() == nil || tr.Events() != 0 {
		t.Errorf("a contradictory step: %v, %d events", tr.Err(), tr.Events())
	}
}

// TestTokenText: tokens shown as text, a byte of a split character as \xNN, unknown ids by number.
func TestTokenText(t *testing.T) {
	tk := tok(t)
	for _, c := range []struct {
		id   int
		want string
	}{
		{tk.Encode(" return")[0], " return"},
		{151643, "<|endoftext|>"},
		{151935, "[id 151935]"},
	} {
		if got := TokenText(tk, c.id); got != c.want {
			t.Errorf("TokenText(%d) = %q, want %q", c.id, got, c.want)
		}
	}
	// A byte of a character split across tokens: the tokenizer's byte tokens hold 0xc3 alone.
	id, ok := tk.TokenID(string(tokenizer.ByteToRune()[0xc3]))
	if !ok {
		t.Fatal("no token for the byte 0xc3")
	}
	if got := TokenText(tk, id); got != `\xc3` {
		t.Errorf("the byte token 0xc3 shows as %q, want \\xc3", got)
	}
}

func BenchmarkNewEvent(b *testing.B) {
	m := tinyModel(b)
	var st qwen3.Step
	_, _, err := m.Generate(context.Background(), "func (", qwen3.ReplyOptions{Sampling: qwen3.SamplingFrom(sampling.QwenThinking(1)), MaxNewTokens: 1,
		OnStep: func(s qwen3.Step) {
			st = s
			st.Logits, st.Candidates, st.Probs = slices.Clone(s.Logits), slices.Clone(s.Candidates), slices.Clone(s.Probs)
		}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := NewEvent(st, m.Tokenizer(), 0); err != nil {
			b.Fatal(err)
		}
	}
}
