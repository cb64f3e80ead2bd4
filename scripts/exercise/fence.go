package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// A fence marks the solution lines a learner is asked to write, names the tests that check them,
// says how hard it is and how long it takes, and lists the classic mistakes made there:
//
//	// exercise: rope.RotateHead — rotate each (v[i], v[i+half]) pair by the angle of pair i at pos
//	// tests: TestRotateGolden ExampleTable_Rotate
//	// difficulty: medium, 20 min
//	... solution lines ...
//	// mistake: adjacent pairs (2i, 2i+1), the GPT-J layout
//	//	- a, b := v[i], v[i+half]
//	//	+ a, b := v[2*i], v[2*i+1]
//	// end exercise
//
// Lines are 1-based.
type fence struct {
	Name     string   // "rope.RotateHead"
	Desc     string   // "rotate each (v[i], v[i+half]) pair by the angle of pair i at pos"
	Tests    []string // top-level Test and Example functions that check it: "TestRotateGolden"
	Level    string   // "easy", "medium" or "hard"
	Minutes  int      // the time a learner should expect to spend on it
	Begin    int      // line of `// exercise:`; `// tests:` and `// difficulty:` follow it
	Head     int      // the last line of the header: the `// difficulty:` line
	End      int      // line of `// end exercise`
	Indent   string   // leading white space of the `// exercise:` line
	Body     []string // the solution lines, as written
	BodyLine int      // line of Body[0]
	Hints    []string // graded hints, first to last: a nudge, the formula, the shape of the code
	Mistakes []mistake
}

// A mistake is a wrong version of a fence's solution: the solution with its hunks applied, or,
// when its only hunk has no Old lines, the New lines alone.
type mistake struct {
	Desc  string // what the learner got wrong: "eps outside the square root"
	Says  string // what the first failure must say to name it: "eps goes inside the square root"
	Line  int    // line of its `// mistake:`
	Hunks []hunk
}

// A hunk replaces Old, consecutive solution lines (compared without their leading and trailing
// white space), by New.
type hunk struct {
	Old []string // trimmed
	New []string // code as written after "+ ", its own indentation kept
}

const (
	beginMarker   = "// exercise:"
	testsMarker   = "// tests:"
	levelMarker   = "// difficulty:"
	mistakeMarker = "// mistake:"
	saysMarker    = "// says:"
	hintMarker    = "// hint:"
	endMarker     = "// end exercise"
)

// minHints is how many hints `exercise check` wants per exercise: a nudge, the formula (or the
// rule), the shape of the code.
const minHints = 3

// hintLevels names the hints in the order `exercise hint` gives them.
var hintLevels = []string{"a nudge", "the formula", "the shape of the code"}

// minMistakes is how many mistakes `exercise check` wants listed per exercise.
const minMistakes = 2

// diffLineRE matches a line of a mistake: "//", white space, "-" or "+", an optional space, code.
var diffLineRE = regexp.MustCompile(`^//\s+([-+])(?: (.*)|())$`)

// levels are the words a `// difficulty:` line may use, easiest first.
var levels = []string{"easy", "medium", "hard"}

// levelRE matches what follows "// difficulty:": a level and the expected minutes.
var levelRE = regexp.MustCompile(`^(easy|medium|hard), (\d+) min$`)

// Difficulty returns the fence's difficulty as written on its `// difficulty:` line and in its
// chapter's doc.go: "medium, 20 min".
func (f fence) Difficulty() string { return fmt.Sprintf("%s, %d min", f.Level, f.Minutes) }

// testNameRE matches the names a `// tests:` line may hold.
var testNameRE = regexp.MustCompile(`^(Test|Example|Fuzz)[A-Za-z0-9_]*$`)

// findFences returns the fences of one Go source file, in order. The file name is only used in
// errors. A fence must be closed, must not nest, must name its exercise, must say on its second
// line which tests check it and on its third how hard it is, must hold at least one solution
// line, and each of its mistakes must apply to its solution.
func findFences(file string, src []byte) ([]fence, error) { return parseFences(file, src, true) }

// parseFences is findFences; with needLevel false a fence may lack its `// difficulty:` line, as
// in a workspace written before fences had one.
func parseFences(file string, src []byte, needLevel bool) ([]fence, error) {
	var fences []fence
	var open *fence
	inMistakes, inHints := false, false
	split := false // a "//" line ended the current hunk
	lines := strings.Split(string(src), "\n")
	for i, line := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, beginMarker):
			if open != nil {
				return nil, fmt.Errorf("%s:%d: exercise fence opened inside the fence of %s opened at line %d (fences do not nest; close it with %q first)",
					file, n, open.Name, open.Begin, endMarker)
			}
			name, desc := parseBeginLine(strings.TrimPrefix(trimmed, beginMarker))
			if name == "" {
				return nil, fmt.Errorf("%s:%d: exercise fence without a name (want %q)", file, n, "// exercise: pkg.Func — description")
			}
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			open = &fence{Name: name, Desc: desc, Begin: n, Indent: indent}
			inMistakes, inHints = false, false
		case open == nil:
			if trimmed == endMarker {
				return nil, fmt.Errorf("%s:%d: %q without a matching %q line above it", file, n, endMarker, beginMarker)
			}
		case n == open.Begin+1:
			if !strings.HasPrefix(trimmed, testsMarker) {
				return nil, fmt.Errorf("%s:%d: exercise %s: the line after %q must be %q naming the tests that check it",
					file, n, open.Name, beginMarker, testsMarker+" TestX ExampleY")
			}
			for _, name := range strings.FieldsFunc(strings.TrimPrefix(trimmed, testsMarker), func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
				if !testNameRE.MatchString(name) {
					return nil, fmt.Errorf("%s:%d: exercise %s: %q is not the name of a Test, Example or Fuzz function", file, n, open.Name, name)
				}
				open.Tests = append(open.Tests, name)
			}
			open.Head = n
			if len(open.Tests) == 0 {
				return nil, fmt.Errorf("%s:%d: exercise %s: %q names no test", file, n, open.Name, testsMarker)
			}
		case n == open.Begin+2 && (needLevel || strings.HasPrefix(trimmed, levelMarker)):
			m := levelRE.FindStringSubmatch(strings.TrimSpace(strings.TrimPrefix(trimmed, levelMarker)))
			if !strings.HasPrefix(trimmed, levelMarker) || m == nil {
				return nil, fmt.Errorf("%s:%d: exercise %s: the line after %q must be %q (%s; the minutes a learner should expect)",
					file, n, open.Name, testsMarker, levelMarker+" medium, 20 min", strings.Join(levels, ", "))
			}
			open.Level, open.Head = m[1], n
			open.Minutes, _ = strconv.Atoi(m[2])
			if open.Minutes <= 0 {
				return nil, fmt.Errorf("%s:%d: exercise %s: %d minutes", file, n, open.Name, open.Minutes)
			}
		case trimmed == endMarker:
			if len(open.Body) == 0 {
				return nil, fmt.Errorf("%s:%d: exercise %s fences no solution lines", file, open.Begin, open.Name)
			}
			open.End = n
			for _, m := range open.Mistakes {
				if len(m.Hunks) == 0 {
					return nil, fmt.Errorf("%s:%d: mistake %q of %s has no %q or %q lines", file, m.Line, m.Desc, open.Name, "//\t- ", "//\t+ ")
				}
				if _, err := open.apply(m); err != nil {
					return nil, fmt.Errorf("%s:%d: mistake %q of %s: %w", file, m.Line, m.Desc, open.Name, err)
				}
			}
			fences = append(fences, *open)
			open = nil
		case strings.HasPrefix(trimmed, mistakeMarker):
			desc := strings.TrimSpace(strings.TrimPrefix(trimmed, mistakeMarker))
			if desc == "" {
				return nil, fmt.Errorf("%s:%d: a mistake of %s without a description (want %q)", file, n, open.Name, mistakeMarker+" what the learner got wrong")
			}
			open.Mistakes = append(open.Mistakes, mistake{Desc: desc, Line: n})
			inMistakes, inHints, split = true, false, false
		case strings.HasPrefix(trimmed, hintMarker):
			text := strings.TrimSpace(strings.TrimPrefix(trimmed, hintMarker))
			if text == "" {
				return nil, fmt.Errorf("%s:%d: a hint of %s without text (want %q)", file, n, open.Name, hintMarker+" a nudge towards the idea")
			}
			open.Hints = append(open.Hints, text)
			inMistakes, inHints = false, true
		case inHints:
			// A hint goes on over the comment lines after it, up to the next marker: "//" alone
			// is an empty line, "//<tab>code" a line of code (its tab dropped).
			if !strings.HasPrefix(trimmed, "//") {
				return nil, fmt.Errorf("%s:%d: in the hints of %s: only comment lines may follow a %q line (the solution comes before the hints)",
					file, n, open.Name, hintMarker)
			}
			rest := strings.TrimPrefix(trimmed, "//")
			if code, ok := strings.CutPrefix(rest, "\t"); ok {
				rest = "    " + strings.ReplaceAll(code, "\t", "    ") // a line of code, indented under the text
			} else {
				rest = strings.TrimPrefix(rest, " ")
			}
			open.Hints[len(open.Hints)-1] += "\n" + rest
		case inMistakes && strings.HasPrefix(trimmed, saysMarker):
			cur := &open.Mistakes[len(open.Mistakes)-1]
			says := strings.TrimSpace(strings.TrimPrefix(trimmed, saysMarker))
			switch {
			case says == "":
				return nil, fmt.Errorf("%s:%d: mistake %q of %s: %q with nothing after it", file, n, cur.Desc, open.Name, saysMarker)
			case cur.Says != "":
				return nil, fmt.Errorf("%s:%d: mistake %q of %s has two %q lines", file, n, cur.Desc, open.Name, saysMarker)
			case len(cur.Hunks) > 0:
				return nil, fmt.Errorf("%s:%d: mistake %q of %s: the %q line goes right after %q, before the diff", file, n, cur.Desc, open.Name, saysMarker, mistakeMarker)
			}
			cur.Says = says
		case inMistakes:
			if trimmed == "//" {
				split = true // a blank line between mistakes, or between two hunks of one
				continue
			}
			m := diffLineRE.FindStringSubmatch(trimmed)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: in the mistakes of %s: want %q, %q or %q lines up to %q",
					file, n, open.Name, mistakeMarker+" …", "//\t- solution line", "//\t+ wrong line", endMarker)
			}
			cur := &open.Mistakes[len(open.Mistakes)-1]
			code := m[2]
			if m[1] == "-" {
				if len(cur.Hunks) == 0 || len(cur.Hunks[len(cur.Hunks)-1].New) > 0 || split {
					cur.Hunks = append(cur.Hunks, hunk{})
				}
				h := &cur.Hunks[len(cur.Hunks)-1]
				h.Old = append(h.Old, strings.TrimSpace(code))
			} else {
				if len(cur.Hunks) == 0 || split {
					cur.Hunks = append(cur.Hunks, hunk{})
				}
				h := &cur.Hunks[len(cur.Hunks)-1]
				h.New = append(h.New, code)
			}
			split = false
		default:
			if len(open.Body) == 0 {
				open.BodyLine = n
			}
			open.Body = append(open.Body, line)
		}
	}
	if open != nil {
		return nil, fmt.Errorf("%s:%d: exercise %s is never closed (add a %q line after its solution)", file, open.Begin, open.Name, endMarker)
	}
	return fences, nil
}

// parseBeginLine splits " rope.RotateHead — rotate each pair" into its name and description.
// The separator may be an em dash, "--", "-" or ":".
func parseBeginLine(rest string) (name, desc string) {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return "", ""
	}
	name = fields[0]
	desc = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), name))
	desc = strings.TrimSpace(strings.TrimLeft(desc, "—–-:"))
	return name, desc
}

// apply returns the fence's body with mistake m made: each hunk's Old lines must occur exactly
// once, consecutively, in the body as the hunks before it left it; they are replaced by the New
// lines, indented like the first line they replace. A single hunk without Old lines replaces
// the whole body.
func (f fence) apply(m mistake) ([]string, error) {
	if len(m.Hunks) == 1 && len(m.Hunks[0].Old) == 0 {
		var out []string
		for _, l := range m.Hunks[0].New {
			out = append(out, f.Indent+l)
		}
		return out, nil
	}
	body := append([]string(nil), f.Body...)
	for hi, h := range m.Hunks {
		if len(h.Old) == 0 {
			return nil, fmt.Errorf("hunk %d has only %q lines: say which solution lines they replace with %q lines above them (only a mistake of a single hunk may replace the whole body)",
				hi+1, "+", "-")
		}
		var at []int
		for p := 0; p+len(h.Old) <= len(body); p++ {
			match := true
			for j, old := range h.Old {
				if strings.TrimSpace(body[p+j]) != old {
					match = false
					break
				}
			}
			if match {
				at = append(at, p)
			}
		}
		switch {
		case len(at) == 0:
			return nil, fmt.Errorf("%q is not a solution line (or the lines are not consecutive)", h.Old[0])
		case len(at) > 1:
			return nil, fmt.Errorf("%q matches %d places of the solution: add a neighbouring line to say which", h.Old[0], len(at))
		}
		p := at[0]
		indent := body[p][:len(body[p])-len(strings.TrimLeft(body[p], " \t"))]
		var repl []string
		for _, l := range h.New {
			repl = append(repl, indent+l)
		}
		body = append(body[:p], append(repl, body[p+len(h.Old):]...)...)
	}
	return body, nil
}

// stubMessage is what a stubbed exercise panics with; scripts/exercise/catch recognizes it by
// its ": not implemented" ending.
func stubMessage(name string) string { return "exercise " + name + ": not implemented" }

// zeroBodies returns, for each fence of a parsed file, the body of its zero-value stub: when the
// fence ends its function (nothing but closing braces and comments follow it) and the function
// has results, a return of their zero values; otherwise nothing at all, so the region does
// nothing and the code after it runs on whatever the region would have set.
func zeroBodies(fset *token.FileSet, file *ast.File, src []byte, fences []fence) ([][]string, error) {
	lines := strings.Split(string(src), "\n")
	out := make([][]string, len(fences))
	for i, fe := range fences {
		fn := enclosingFunc(fset, file, fe.Begin, fe.End)
		if fn == nil {
			return nil, fmt.Errorf("line %d: exercise %s is not inside a function", fe.Begin, fe.Name)
		}
		if fn.Results == nil || len(fn.Results.List) == 0 {
			continue
		}
		closing := fset.Position(fn.Rbrace).Line
		ends := true
		for l := fe.End + 1; l < closing && ends; l++ {
			t := strings.TrimSpace(lines[l-1])
			ends = t == "" || strings.HasPrefix(t, "//") || strings.Trim(t, "}") == ""
		}
		if !ends {
			continue
		}
		var zeros []string
		for _, field := range fn.Results.List {
			z := zeroValue(fset, field.Type)
			for range max(1, len(field.Names)) {
				zeros = append(zeros, z)
			}
		}
		out[i] = []string{fe.Indent + "return " + strings.Join(zeros, ", ")}
	}
	return out, nil
}

// funcBody is the part of a function declaration or literal that zeroBodies needs.
type funcBody struct {
	Results *ast.FieldList
	Rbrace  token.Pos
}

// enclosingFunc returns the innermost function whose body holds the lines from..to.
func enclosingFunc(fset *token.FileSet, file *ast.File, from, to int) *funcBody {
	var best *funcBody
	ast.Inspect(file, func(n ast.Node) bool {
		var typ *ast.FuncType
		var body *ast.BlockStmt
		switch fn := n.(type) {
		case *ast.FuncDecl:
			typ, body = fn.Type, fn.Body
		case *ast.FuncLit:
			typ, body = fn.Type, fn.Body
		default:
			return true
		}
		if body != nil && fset.Position(body.Lbrace).Line < from && fset.Position(body.Rbrace).Line > to {
			best = &funcBody{Results: typ.Results, Rbrace: body.Rbrace}
		}
		return true
	})
	return best
}

// zeroValue writes the zero value of a type expression: 0, "", false, nil, T{} for an array, and
// *new(T) for a named type whose kind the syntax alone does not tell.
func zeroValue(fset *token.FileSet, typ ast.Expr) string {
	switch t := typ.(type) {
	case *ast.Ident:
		switch t.Name {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
			"float32", "float64", "complex64", "complex128", "byte", "rune":
			return "0"
		case "string":
			return `""`
		case "bool":
			return "false"
		case "error", "any":
			return "nil"
		}
	case *ast.StarExpr, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType:
		return "nil"
	case *ast.ArrayType:
		if t.Len == nil {
			return "nil"
		}
		return nodeString(fset, typ) + "{}"
	}
	return "*new(" + nodeString(fset, typ) + ")"
}

// variant names one version of an exercise that `exercise check` runs.
type variant struct {
	ID    string // "rope.InvFreq=mistake 2": what EXERCISE_VARIANT holds to select it
	Label string // "panic", "zero", "mistake 2", "held-out 1"
	Desc  string // the mistake's description
	Says  string // what a failure that names the mistake says ("" for the stubs)
	Body  []string
}

// isMistake says whether a variant is a mistake (listed in the fence or held out in the check),
// not one of the two stubs.
func (v variant) isMistake() bool { return v.Label != "panic" && v.Label != "zero" }

// heldOutLabel starts the label of a held-out mistake: "held-out 1".
const heldOutLabel = "held-out"

// variants lists the versions of a fence that `exercise check` tries: the workspace's panic
// stub, the zero-value stub, each listed mistake, and each held-out mistake (see heldOut).
func (f fence) variants(zero []string, held []mistake) ([]variant, error) {
	zeroDesc := "returns zero values"
	if len(zero) == 0 {
		zeroDesc = "does nothing"
	}
	vs := []variant{
		{ID: f.Name + "=panic", Label: "panic", Desc: "the workspace's stub", Body: []string{f.Indent + "panic(" + quote(stubMessage(f.Name)) + ")"}},
		{ID: f.Name + "=zero", Label: "zero", Desc: zeroDesc, Body: zero},
	}
	add := func(label string, m mistake) error {
		body, err := f.apply(m)
		if err != nil {
			return fmt.Errorf("%s %q of %s: %w", label, m.Desc, f.Name, err)
		}
		vs = append(vs, variant{ID: f.Name + "=" + label, Label: label, Desc: m.Desc, Says: m.Says, Body: body})
		return nil
	}
	for i, m := range f.Mistakes {
		if err := add(fmt.Sprintf("mistake %d", i+1), m); err != nil {
			return nil, err
		}
	}
	for i, m := range held {
		if err := add(fmt.Sprintf("%s %d", heldOutLabel, i+1), m); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// ifChain writes a fence's body for the check's binary: each variant in its own branch, chosen by
// the fence's package variable (see variantVar), and the solution in the final else.
func (f fence) ifChain(vs []variant) []string {
	var out []string
	for i, v := range vs {
		kw := "} else if"
		if i == 0 {
			kw = "if"
		}
		out = append(out, f.Indent+kw+" "+variantVar(f.Name)+" == "+quote(v.Label)+" {")
		for _, l := range v.Body {
			out = append(out, "\t"+l)
		}
	}
	out = append(out, f.Indent+"} else {")
	for _, l := range f.Body {
		out = append(out, "\t"+l)
	}
	return append(out, f.Indent+"}")
}

// variantVar names the package variable that holds, in the check's binary, the label of the
// variant of exercise name to run ("" for the solution): exerciseVariant_rope_InvFreq.
func variantVar(name string) string {
	return "exerciseVariant_" + strings.NewReplacer(".", "_").Replace(name)
}

// variantFile is the Go file that sets each fence's variantVar from EXERCISE_VARIANT, a
// comma-separated list of name=label (rope.InvFreq=mistake 2,rope.RotateHead=panic).
func variantFile(pkg string, names []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n// Written by scripts/exercise check: the version of each exercise that runs.\n\n", pkg)
	b.WriteString("import (\n\t\"os\"\n\t\"strings\"\n)\n\n")
	b.WriteString("var exerciseVariants = func() map[string]string {\n\tm := map[string]string{}\n")
	fmt.Fprintf(&b, "\tfor _, kv := range strings.Split(os.Getenv(%q), \",\") {\n", variantEnv)
	b.WriteString("\t\tif name, label, ok := strings.Cut(kv, \"=\"); ok {\n\t\t\tm[name] = label\n\t\t}\n\t}\n\treturn m\n}()\n\n")
	for _, n := range names {
		fmt.Fprintf(&b, "var %s = exerciseVariants[%q]\n", variantVar(n), n)
	}
	return []byte(b.String())
}

// replaceBodies returns src with the body of each fence i for which body(i) returns true replaced
// by the lines it returns. The `// exercise:`, `// tests:`, `// difficulty:` and `// end exercise`
// lines stay, so the learner sees the task, its tests, its size and where the code goes; the
// mistakes go with the body.
func replaceBodies(src []byte, fences []fence, body func(i int) ([]string, bool)) []byte {
	lines := strings.Split(string(src), "\n")
	var out []string
	next := 1 // next source line (1-based) to copy
	for i, f := range fences {
		repl, ok := body(i)
		if !ok {
			continue
		}
		out = append(out, lines[next-1:f.Head]...) // up to and including the `// difficulty:` line
		out = append(out, repl...)
		next = f.End // resume at the `// end exercise` line
	}
	out = append(out, lines[next-1:]...)
	return []byte(strings.Join(out, "\n"))
}

// runPattern is the `go test -run` pattern that runs exactly the tests of a fence.
func (f fence) runPattern() string {
	return "^(" + strings.Join(f.Tests, "|") + ")$"
}
