package kernels

import (
	"fmt"
	"strconv"
	"unsafe"
)

// The dispatch: every operation with an assembly form has one table, level -> form, declared per
// architecture in dispatch_GOARCH.go (dispatch_other.go where there is no assembly: every table
// empty). A level without a form of its own runs the form of the next lower level that has one,
// and a level below all of them (Generic among them) the plain Go form, which lives beside the
// operation in its portable file (dot.go, quant.go, ...). The tables come in four shapes, each
// with its way of splitting a call written once here (a rowOp's as fit, which its three callers
// loop over: a callback per call cost more than the dispatch), so that every operation splits
// its work the same way:
//
//	kernelOp  one kernel takes the whole call (a decoder, a tile, a packer)
//	laneOp    a kernel takes the longest prefix of whole steps of lanes; plain Go the rest
//	rowOp     kernels take rows from the widest: each the rows it can in whole steps of its
//	          rows, when it can do the columns; the next takes the rest ("the 512-bit kernel on
//	          whole groups of rows, AVX2 on the others"); plain Go finishes columns no form took
//	tokenOp   a batched kernel takes the tokens eight, four or two at a time (or any 2..8), the
//	          last odd token going to the one-token kernels
//
// setLevel points each table at its form for the active level, so a call costs a load and a nil
// check before its kernel. The tables are also what the tests enumerate: TestDispatch runs every
// operation at every level this machine has, with shapes that take every branch, and fails if a
// branch a table lists (a form's outcome: branches) was never taken, or one was taken that no
// table lists.

// ops lists every table, for setLevel and the tests.
var ops []op

type op interface {
	name() string
	setLevel(l Level)
	// branches lists the branches the form of level l can take (what trace receives); kernels
	// lists the assembly kernels it calls.
	branches(l Level) []string
	kernels(l Level) []string
	// own reports whether level l has a form of its own (not the next lower level's).
	own(l Level) bool
	// check reports a malformed form (TestTablesWellFormed).
	check() error
}

func pow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// register adds a table to ops; every table is declared through it.
func register[T op](t T) T {
	ops = append(ops, t)
	return t
}

// trace, when a test sets it, receives every branch the dispatch takes (the tests read the level
// from Active). It is nil otherwise, and the dispatch then costs one nil check per call.
var trace func(op, branch string)

// testScratch, when a test sets it, makes the scratch buffers of the kernels that need one (the
// batched VNNI dots): n bytes, 64-byte aligned. TestDispatch puts their end against a page no
// access may touch, or sentinels around them.
var testScratch func(n int) []byte

// goBranch is the branch of a call no form takes: the operation's plain Go form.
const goBranch = "go"

// resolve returns the form of level l: its own, or the next lower level's.
func resolve[F any](forms []*F, l Level) *F {
	for ; l > Generic; l-- {
		if forms[l] != nil {
			return forms[l]
		}
	}
	return nil
}

// A kernelOp's form is one kernel (or a few lines of Go calling kernels) for the whole call.
type kernelOp[K any] struct {
	op    string
	forms kernelForms[K]
	cur   *kernelForm[K]
}

// kernelForms is a kernelOp's table: a form per level (nil: none of its own).
type kernelForms[K any] [numLevels]*kernelForm[K]

type kernelForm[K any] struct {
	name string // the kernel (or kernels) it calls
	k    K
	// sub lists branches inside the form (its Go code calls trace with them), if it has any.
	sub []string
}

func (o *kernelOp[K]) name() string     { return o.op }
func (o *kernelOp[K]) setLevel(l Level) { o.cur = resolve(o.forms[:], l) }
func (o *kernelOp[K]) own(l Level) bool { return o.forms[l] != nil }

// get returns the kernel of the active level, if it has one (found false: the plain Go form).
func (o *kernelOp[K]) get() (k K, found bool) {
	if f := o.cur; f != nil {
		o.hit(f.name, "")
		return f.k, true
	}
	o.hit(goBranch, "")
	return k, false
}

func (o *kernelOp[K]) check() error {
	for l, f := range o.forms {
		if f != nil && f.name == "" {
			return fmt.Errorf("%s at %v: a form without a name", o.op, Level(l))
		}
	}
	return nil
}

func (o *kernelOp[K]) hit(name, b string) {
	if trace != nil {
		trace(o.op, name+b)
	}
}

func (o *kernelOp[K]) branches(l Level) []string {
	f := resolve(o.forms[:], l)
	if f == nil {
		return []string{goBranch}
	}
	return append([]string{f.name}, f.sub...)
}

func (o *kernelOp[K]) kernels(l Level) []string {
	if f := resolve(o.forms[:], l); f != nil {
		return []string{f.name}
	}
	return nil
}

// A laneOp's form takes the longest prefix of n that is whole steps of lanes (step a power of
// two); the caller's plain Go does the rest.
type laneOp[K any] struct {
	op    string
	forms laneForms[K]
	cur   *laneForm[K]
}

type laneForms[K any] [numLevels]*laneForm[K]

type laneForm[K any] struct {
	name string
	k    K
	step int
}

func (o *laneOp[K]) name() string     { return o.op }
func (o *laneOp[K]) setLevel(l Level) { o.cur = resolve(o.forms[:], l) }
func (o *laneOp[K]) own(l Level) bool { return o.forms[l] != nil }

// split returns the kernel and how many of n values it does (0: none, the plain Go does all).
func (o *laneOp[K]) split(n int) (k K, done int) {
	f := o.cur
	if f == nil {
		o.hit(goBranch, "")
		return k, 0
	}
	done = n &^ (f.step - 1)
	switch {
	case done == 0:
		o.hit(f.name, ": short")
	case done < n:
		o.hit(f.name, " + go tail")
	default:
		o.hit(f.name, "")
	}
	return f.k, done
}

func (o *laneOp[K]) check() error {
	for l, f := range o.forms {
		if f != nil && (f.name == "" || !pow2(f.step)) {
			return fmt.Errorf("%s at %v: form %q with step %d (not a power of two)", o.op, Level(l), f.name, f.step)
		}
	}
	return nil
}

func (o *laneOp[K]) hit(name, b string) {
	if trace != nil {
		trace(o.op, name+b)
	}
}

func (o *laneOp[K]) branches(l Level) []string {
	f := resolve(o.forms[:], l)
	if f == nil {
		return []string{goBranch}
	}
	return []string{f.name, f.name + " + go tail", f.name + ": short"}
}

func (o *laneOp[K]) kernels(l Level) []string {
	if f := resolve(o.forms[:], l); f != nil {
		return []string{f.name}
	}
	return nil
}

// A rowOp's form is a chain of kernels for a multi-row operation, the widest first.
type rowOp[K any] struct {
	op      string
	forms   rowForms[K]
	cur     *[]rowForm[K]
	batched bool // a batched operation: its tokens go through tokens
}

// rowForms is a rowOp's table: a chain of kernels per level.
type rowForms[K any] [numLevels]*[]rowForm[K]

// rowForm is one kernel of a chain: it takes rows in whole steps of rows (1: any number), and
// the columns (or blocks) in whole steps of cols: all of them (whole), or the longest such prefix,
// plain Go adding the rest of each row. planes: it reads an Act's byte planes, so it runs only
// when the caller says they hold its values. Steps are powers of two (TestTablesWellFormed).
type rowForm[K any] struct {
	name   string
	k      K
	rows   int
	cols   int
	whole  bool
	planes bool
}

// fit returns the share of rows x cols (cols > 0) the form takes: n columns of the first take
// rows (take 0: none, the next form's turn), and reports the branch to trace for op.
func (s *rowForm[K]) fit(op string, rows, cols int, planes bool) (n, take int) {
	n, take = cols&^(s.cols-1), rows&^(s.rows-1)
	if n == 0 || s.whole && n < cols || s.planes && !planes {
		take = 0
	}
	if trace != nil {
		s.traceFit(op, rows, cols, planes, n, take)
	}
	return n, take
}

func (s *rowForm[K]) traceFit(op string, rows, cols int, planes bool, n, take int) {
	b := ""
	switch {
	case n == 0 || s.whole && n < cols:
		b = ": skipped, columns"
	case s.planes && !planes:
		b = ": skipped, planes stale"
	case take == 0:
		b = ": skipped, rows"
	case take == rows:
		b = ": all rows"
	default:
		b = ": rows, rest on"
	}
	trace(op, s.name+b)
	if take > 0 && n < cols {
		trace(op, s.name+" + go tail")
	}
}

func (o *rowOp[K]) name() string     { return o.op }
func (o *rowOp[K]) setLevel(l Level) { o.cur = resolve(o.forms[:], l) }
func (o *rowOp[K]) own(l Level) bool { return o.forms[l] != nil }

// chain returns the active level's kernels, widest first (nil: none). A caller runs them in
// order: f.fit gives each its share of the rows left, plain Go the columns past its n (added to
// what the kernel wrote) and, after the chain, the rows no form took (reported by left). The loop
// is in the caller, not here, so that the kernels are called without closures: a decode step
// makes thousands of these calls, and callbacks cost more than the dispatch is worth.
func (o *rowOp[K]) chain() []rowForm[K] {
	if c := o.cur; c != nil {
		return *c
	}
	if trace != nil {
		trace(o.op, goBranch)
	}
	return nil
}

// left reports rows that a non-empty chain left to plain Go.
func (o *rowOp[K]) left(chain []rowForm[K], done, rows int) {
	if len(chain) > 0 && done < rows {
		o.hit("go: rows no form took", "")
	}
}

// check: every step a power of two; a batched chain's forms take whole rows of columns, and its
// later forms' column steps divide the earlier ones' (the rows an earlier form leaves go on).
func (o *rowOp[K]) check() error {
	for l, c := range o.forms {
		if c == nil {
			continue
		}
		if len(*c) == 0 {
			return fmt.Errorf("%s at %v: an empty chain", o.op, Level(l))
		}
		for i, f := range *c {
			switch {
			case f.name == "" || !pow2(f.rows) || !pow2(f.cols):
				return fmt.Errorf("%s at %v: form %q with steps of %d rows, %d columns (not powers of two)", o.op, Level(l), f.name, f.rows, f.cols)
			case o.batched && !f.whole:
				return fmt.Errorf("%s at %v: form %q of a batched operation takes a prefix of the columns", o.op, Level(l), f.name)
			case i > 0 && (*c)[i-1].cols%f.cols != 0:
				return fmt.Errorf("%s at %v: form %q's column step %d does not divide the one before's", o.op, Level(l), f.name, f.cols)
			}
		}
	}
	return nil
}

func (o *rowOp[K]) hit(name, b string) {
	if trace != nil {
		trace(o.op, name+b)
	}
}

func (o *rowOp[K]) branches(l Level) []string {
	var b []string
	if o.batched {
		b = tokenBranches(false)
	}
	chain := resolve(o.forms[:], l)
	if chain == nil {
		return append(b, goBranch)
	}
	for i, f := range *chain {
		b = append(b, f.name+": all rows")
		if f.rows > 1 {
			b = append(b, f.name+": rows, rest on", f.name+": skipped, rows")
		}
		if f.cols > 1 {
			b = append(b, f.name+": skipped, columns")
		}
		if !f.whole && f.cols > 1 {
			b = append(b, f.name+" + go tail")
		}
		if f.planes {
			b = append(b, f.name+": skipped, planes stale")
		}
		if i == len(*chain)-1 && (f.rows > 1 || f.cols > 1 || f.planes) {
			b = append(b, "go: rows no form took")
		}
	}
	return b
}

func (o *rowOp[K]) kernels(l Level) []string {
	var k []string
	if chain := resolve(o.forms[:], l); chain != nil {
		for _, f := range *chain {
			k = append(k, f.name)
		}
	}
	return k
}

// tokens runs a batched rowOp's token loop (eight, four or two at a time) and returns the
// tokens it covers; run does each group's rows with do.
func (o *rowOp[K]) tokens(tokens int, run func(t, n int)) int {
	return tokenSteps(false, tokens, run, o.hit)
}

// A tokenOp's form is a batched kernel: it takes the tokens of a call eight, four or two at a
// time (any: any number from 2 to 8), when the rows' blocks are whole steps of cols.
type tokenOp[K any] struct {
	op    string
	forms tokenForms[K]
	cur   *tokenForm[K]
}

type tokenForms[K any] [numLevels]*tokenForm[K]

type tokenForm[K any] struct {
	name string
	k    K
	cols int
	any  bool
	sub  []string
}

func (o *tokenOp[K]) name() string     { return o.op }
func (o *tokenOp[K]) setLevel(l Level) { o.cur = resolve(o.forms[:], l) }
func (o *tokenOp[K]) own(l Level) bool { return o.forms[l] != nil }

// get returns the kernel of the active level if it takes rows of cols blocks.
func (o *tokenOp[K]) get(cols int) (f *tokenForm[K]) {
	switch f = o.cur; {
	case f == nil:
		o.hit(goBranch, "")
	case cols == 0 || cols%f.cols != 0:
		o.hit(f.name, ": skipped, columns")
		f = nil
	}
	return f
}

// steps calls run(t, n) for the groups of n tokens from token t the kernel takes, and returns
// the number of tokens they cover (the rest go to the one-token kernels).
func (o *tokenOp[K]) steps(f *tokenForm[K], tokens int, run func(t, n int)) int {
	return tokenSteps(f.any, tokens, run, o.hit)
}

func (o *tokenOp[K]) check() error {
	for l, f := range o.forms {
		if f != nil && (f.name == "" || !pow2(f.cols)) {
			return fmt.Errorf("%s at %v: form %q with a column step of %d (not a power of two)", o.op, Level(l), f.name, f.cols)
		}
	}
	return nil
}

func (o *tokenOp[K]) hit(name, b string) {
	if trace != nil {
		trace(o.op, name+b)
	}
}

func (o *tokenOp[K]) branches(l Level) []string {
	f := resolve(o.forms[:], l)
	if f == nil {
		return []string{goBranch}
	}
	return append(append(tokenBranches(f.any), f.name+": skipped, columns"), f.sub...)
}

func (o *tokenOp[K]) kernels(l Level) []string {
	if f := resolve(o.forms[:], l); f != nil {
		return []string{f.name}
	}
	return nil
}

// tokenSteps is the one loop of the batched kernels: run(t, n) for groups of eight, four or two
// tokens (any: min(8, left) while at least two are left), and the tokens they cover. hit, if not
// nil, receives each step's branch.
func tokenSteps(any bool, tokens int, run func(t, n int), hit func(name, b string)) int {
	t := 0
	for tokens-t >= 2 {
		n := 2
		switch left := tokens - t; {
		case any:
			n = min(8, left)
		case left >= 8:
			n = 8
		case left >= 4:
			n = 4
		}
		if hit != nil && trace != nil {
			if any && n < 8 {
				hit("2-7 tokens", "")
			} else {
				hit(strconv.Itoa(n), " tokens")
			}
		}
		run(t, n)
		t += n
	}
	if t < tokens && hit != nil && trace != nil {
		hit("last token alone", "")
	}
	return t
}

func tokenBranches(any bool) []string {
	if any {
		return []string{"8 tokens", "2-7 tokens", "last token alone"}
	}
	return []string{"8 tokens", "4 tokens", "2 tokens", "last token alone"}
}

// traceSub reports a branch inside a form (one of its sub branches).
func traceSub(op, b string) {
	if trace != nil {
		trace(op, b)
	}
}

// noEscape returns p, hidden from the compiler's escape analysis as the runtime's own noescape
// hides pointers. A kernel reached through a table is a call through a func value, and the
// compiler must then assume that it keeps the pointers it is given: every buffer passed to the
// dispatch, an Act on the stack or a one-value output array, would move to the heap, one
// allocation per call. The kernels keep no pointer past their return (the assembly's
// //go:noescape prototypes say so, and the Go forms in the tables only call them), so the
// portable code passes every pointer it gives a table's kernel through noEscape. hide is an
// assembly identity declared //go:noescape (dispatch_amd64.s, dispatch_arm64.s); elsewhere a Go
// identity (dispatch_other.go), which hides nothing.
func noEscape[T any](p *T) *T { return (*T)(hide(unsafe.Pointer(p))) }

// noEscapeSlice is noEscape for a slice's elements.
func noEscapeSlice[T any](s []T) []T { return unsafe.Slice(noEscape(unsafe.SliceData(s)), len(s)) }

// noEscape3 is noEscape for three pointers in one call (the usual weights, inputs and outputs
// of a kernel: an assembly call each would cost a few ns on calls of 100 ns).
func noEscape3[A, B, C any](a *A, b *B, c *C) (*A, *B, *C) {
	pa, pb, pc := hide3(unsafe.Pointer(a), unsafe.Pointer(b), unsafe.Pointer(c))
	return (*A)(pa), (*B)(pb), (*C)(pc)
}
