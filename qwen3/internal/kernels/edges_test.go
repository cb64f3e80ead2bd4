package kernels

import (
	"os"
	"strings"
	"testing"
)

// TestBadShapesPanic: every public kernel refuses shapes that do not fit its buffers with a panic
// that names it, before any kernel reads or writes (the engine checks shapes where they come
// from; a wrong one here is a bug in the caller, which the message must point at).
func TestBadShapesPanic(t *testing.T) {
	f, u := make([]float32, 64), make([]uint16, 64)
	var tile [TileTokens * TileRows]float32
	p := NewQPack(256)
	for name, call := range map[string]func(){
		"AttnTile":      func() { AttnTile(3, f, 16, f, 8, 4, f, 16, false) },
		"AttnTile32":    func() { AttnTile32(2, f, 40, 16, f, 8, 4, f, 32, false, nil) },
		"AttnTile32F16": func() { AttnTile32F16(2, u, 40, 16, f, 8, 4, f, 32, false, nil) },
		"AttnTileF16":   func() { AttnTileF16(6, u[:20], 16, f, 8, 4, f, 16, false) },
		"NarrowF16":     func() { NarrowF16(u[:3], f[:4]) },
		"Scale":         func() { Scale(f[:5], f[:4], 2) },
		"SiLUMul":       func() { SiLUMul(f[:5], f[:5], f[:4]) },
		"Transpose8":    func() { Transpose8(f, 8, f[:20], 4, 4) },
		"Axpy":          func() { Axpy(f[:5], 1, f[:4]) },
		"PackRow":       func() { PackRow(f, TileRows, f[:2]) },
		"PackBF16":      func() { PackBF16(f, u, 0, f) },
		"DecodeQ8_0":    func() { DecodeQ8_0(f[:31], make([]byte, Q8BlockBytes)) },
		"TilePart":      func() { TilePart(f, f, 8, 1, 13, &tile) },
		"TileQPart":     func() { TileQPart(p, NewAct(256*TileTokens), 0, 0, &tile) },
		"AddRows":       func() { AddRows(f[:40], TileRows, f, 2) },
		"CopyRows":      func() { CopyRows(f, TileRows-1, f, 1) },
	} {
		func() {
			defer func() {
				r := recover()
				if msg, ok := r.(string); !ok || !strings.HasPrefix(msg, "kernels: "+name+" ") {
					t.Errorf("%s with a bad shape: recovered %v, want a panic naming it", name, r)
				}
			}()
			call()
		}()
	}
}

// TestEmptyCalls: no rows, no tokens or no columns write nothing but what the contract says.
func TestEmptyCalls(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		out := []float32{7, 7}
		DotF32RowsN(out, 2, 2, make([]float32, 16), 8, make([]float32, 8), 8, 0) // no tokens
		DotQ8_0ActRows(out[:0], nil, Q8BlockBytes, NewAct(32))                   // no rows
		if out[0] != 7 || out[1] != 7 {
			t.Errorf("empty calls wrote %v", out)
		}
		DotQ4_KActRows(out, nil, 0, NewAct(0)) // rows of no blocks: dot products of nothing
		if out[0] != 0 || out[1] != 0 {
			t.Errorf("rows of no blocks give %v, want zeros", out)
		}
	})
}

// TestLevelNames: a level's name is what QWEN3_KERNELS takes; an unknown value leaves the best
// level and says so (the package itself prints nothing).
func TestLevelNames(t *testing.T) {
	if got := Level(99).String(); got != "Level(99)" {
		t.Errorf("Level(99) is %q", got)
	}
	best := Level(numLevels - 1)
	for _, c := range []struct {
		v    string
		want Level
		err  bool
	}{{"", best, false}, {" " + strings.ToUpper(Generic.String()) + " ", Generic, false}, {best.String(), best, false}, {"avx1024", best, true}} {
		l, err := levelFromEnv(c.v, best)
		if l != c.want || (err != nil) != c.err {
			t.Errorf("QWEN3_KERNELS=%q: level %v, error %v; want %v, error %v", c.v, l, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), `"avx1024"`) {
			t.Errorf("the error %q does not name the value", err)
		}
	}
	if _, want := levelFromEnv(os.Getenv("QWEN3_KERNELS"), cpuLevel); (EnvError() == nil) != (want == nil) {
		t.Errorf("EnvError() = %v with QWEN3_KERNELS=%q", EnvError(), os.Getenv("QWEN3_KERNELS"))
	}
}

// TestMalformedTables: the tables' own check refuses what the executors cannot run.
func TestMalformedTables(t *testing.T) {
	var rows rowOp[int]
	rows.op, rows.forms[numLevels-1] = "rows", &[]rowForm[int]{{name: "wide", rows: 3, cols: 8}}
	var lanes laneOp[int]
	lanes.op, lanes.forms[numLevels-1] = "lanes", &laneForm[int]{name: "l", step: 6}
	var kernel kernelOp[int]
	kernel.op, kernel.forms[numLevels-1] = "kernel", &kernelForm[int]{}
	var tokens tokenOp[int]
	tokens.op, tokens.forms[numLevels-1] = "tokens", &tokenForm[int]{name: "t", cols: 0}
	batched := rowOp[int]{op: "batched", batched: true}
	batched.forms[numLevels-1] = &[]rowForm[int]{{name: "prefix", rows: 1, cols: 8}}
	chained := rowOp[int]{op: "chained"}
	chained.forms[numLevels-1] = &[]rowForm[int]{{name: "a", rows: 1, cols: 8}, {name: "b", rows: 1, cols: 16}}
	empty := rowOp[int]{op: "empty"}
	empty.forms[numLevels-1] = &[]rowForm[int]{}
	for _, o := range []op{&rows, &lanes, &kernel, &tokens, &batched, &chained, &empty} {
		if err := o.check(); err == nil {
			t.Errorf("%s: a malformed table passes its check", o.name())
		}
		if k := o.kernels(Generic); k != nil {
			t.Errorf("%s: kernels %v in plain Go", o.name(), k)
		}
	}
}
