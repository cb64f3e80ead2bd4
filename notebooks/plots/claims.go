package plots

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A claim is a measured number that a notebook's prose states. The prose marks it where it
// stands with an HTML comment, which Jupyter and GitHub render as nothing:
//
//	an F16 cache moves the logits by <!--claim:f16_cache-->about 1e-4 of the largest
//
// and a code cell of the same notebook computes the value and checks it:
//
//	var claims = plots.NotebookClaims("11_qwen3.ipynb") // once, in the import cell
//	claims.Check("f16_cache", worst)                     // in the cell that measures it
//
// Check reads the claim's text from the notebook file itself, so a number edited in the prose,
// or a re-run that computes another value, fails the cell with a message that names the claim.
// CI's notebook check (scripts/notebooks.sh check) also fails when a marked claim is checked by
// no cell, so a marker cannot sit in the prose unbound.
//
// The text after the marker is read as: an optional qualifier, a number or a range of two, and
// an optional unit. What the number's written digits say is its precision:
//
//	"258", "5,936,864"       exact to the last written digit: |v - 258| <= 0.5
//	"9.6e-5", "22.7%"        |v - 9.6e-5| <= 0.05e-5; a percentage is compared with 100 v
//	                         (the code passes a fraction: 0.227)
//	"about 1e-4", "~40"      rounds to it as well ([0.5e-4, 1.5e-4]); "about" says only that an
//	                         integer's trailing zeros are not significant ("40" is 39.5..40.5,
//	                         "about 40" is 35..45)
//	"1.3-1.6x", "3 to 5"     Span's values: their smallest rounds to 1.3 and their largest to 1.6
//	                         (Check's single value: anywhere from 1.25 to 1.65)
//	"at most 5e-6", "within 5e-6", "up to 3"            v <= 5e-6
//	"under 2", "below 2", "less than 2"                 v < 2
//	"at least 0.6", "over 3", "above 3", "more than 3"  v >= 0.6, v > 3
//
// Words and units after the number ("MB", "tok/s", "of the largest") are not read; an "x" or "×"
// right after it is kept in the claim's text.
// The same rules hold for Span, which checks a spread: every value for a bound, the smallest and
// largest for a range, and for a single number every value must round to it.
type Claims struct {
	file   string
	claims map[string]Claim
	err    error // the notebook could not be read or its markers are malformed
}

// Claim is one marked number of a notebook's prose.
type Claim struct {
	Name string // the marker's name: <!--claim:NAME-->
	Text string // the claim as written after the marker: qualifier, number(s), "%" or "x"
	Cell int    // the index of the markdown cell that states it
	Stated
}

// Stated is a claim's text as read: what it says and with what precision.
type Stated struct {
	Qualifier string  // "", "about", "at most", "under", "at least", "over" (the normalised word)
	Lo, Hi    float64 // the number, or the two ends of a range (Lo <= Hi); Lo == Hi for one number
	Ulp       float64 // one unit of the last written digit, in the claim's units
	Range     bool    // written as a range: "1.3-1.6x"
	Percent   bool    // written with %: compared with 100 times the code's value
}

// claimMarker finds the markers in a markdown cell; group 1 is the name.
var claimMarker = regexp.MustCompile(`<!--\s*claim:([A-Za-z0-9_.\-]+)\s*-->`)

// NotebookClaims reads the claims marked in a notebook's markdown. The file is looked up in
// GoNB's $GONB_DIR (the notebook's own directory, where Jupyter started the kernel) unless it
// is an absolute path. It never fails: a notebook that cannot be read, or a malformed or
// repeated marker, makes every later Check panic with that error, so the import cell runs and
// the first check says what is wrong.
func NotebookClaims(file string) *Claims {
	path := file
	if !filepath.IsAbs(path) {
		if dir := os.Getenv("GONB_DIR"); dir != "" {
			path = filepath.Join(dir, file)
		}
	}
	c := &Claims{file: filepath.Base(file)}
	b, err := os.ReadFile(path)
	if err != nil {
		c.err = fmt.Errorf("plots: claims of %s: %w", file, err)
		return c
	}
	c.claims, c.err = ReadClaims(b)
	if c.err != nil {
		c.err = fmt.Errorf("plots: claims of %s: %w", file, c.err)
	}
	return c
}

// ReadClaims reads the marked claims of a notebook file's bytes (Jupyter's JSON format).
func ReadClaims(notebook []byte) (map[string]Claim, error) {
	var nb struct {
		Cells []struct {
			Type   string          `json:"cell_type"`
			Source json.RawMessage `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(notebook, &nb); err != nil {
		return nil, fmt.Errorf("not a notebook: %w", err)
	}
	claims := map[string]Claim{}
	for i, cell := range nb.Cells {
		if cell.Type != "markdown" {
			continue
		}
		src, err := cellSource(cell.Source)
		if err != nil {
			return nil, fmt.Errorf("cell %d: %w", i, err)
		}
		for _, m := range claimMarker.FindAllStringSubmatchIndex(src, -1) {
			name := src[m[2]:m[3]]
			if old, ok := claims[name]; ok {
				return nil, fmt.Errorf("claim %q is marked twice (markdown cells %d and %d): give each its own name", name, old.Cell, i)
			}
			text, st, err := ParseClaim(src[m[1]:])
			if err != nil {
				return nil, fmt.Errorf("claim %q (markdown cell %d): %w", name, i, err)
			}
			claims[name] = Claim{Name: name, Text: text, Cell: i, Stated: st}
		}
	}
	return claims, nil
}

// cellSource joins a cell's source, which Jupyter stores as one string or a list of lines.
func cellSource(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", fmt.Errorf("source is neither a string nor a list of strings")
	}
	return strings.Join(lines, ""), nil
}

// The grammar of a claim's text: qualifier, number, optionally a range's second number, unit.
var (
	claimQualifiers = []struct {
		word, norm string
		symbol     bool // may touch the number: "~40"
	}{
		{"approximately", "about", false}, {"roughly", "about", false}, {"around", "about", false},
		{"about", "about", false}, {"nearly", "about", false}, {"almost", "about", false},
		{"some", "about", false}, {"~", "about", true}, {"≈", "about", true},
		{"at most", "at most", false}, {"within", "at most", false}, {"up to", "at most", false},
		{"≤", "at most", true}, {"less than", "under", false}, {"under", "under", false},
		{"below", "under", false}, {"<", "under", true}, {"at least", "at least", false},
		{"≥", "at least", true}, {"more than", "over", false}, {"over", "over", false},
		{"above", "over", false}, {">", "over", true},
	}
	claimNumber = `[-−+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+)`
	claimValue  = regexp.MustCompile(`^(` + claimNumber + `)(?:\s*(?:-|–|—|to)\s*(` + claimNumber + `))?(\s*%)?(?:x|×)?`)
)

// ParseClaim reads a claim's text from the start of s (the prose after a marker): it returns
// the text it read and what it states. See Claims for the grammar.
func ParseClaim(s string) (string, Stated, error) {
	var st Stated
	rest := strings.TrimLeft(s, " \t\n")
	for _, q := range claimQualifiers {
		n := len(q.word)
		if len(rest) < n || !strings.EqualFold(rest[:n], q.word) {
			continue
		}
		if q.symbol || n == len(rest) || rest[n] == ' ' { // a word must end: "over" is not "overall"
			st.Qualifier = q.norm
			rest = strings.TrimLeft(rest[n:], " \t")
			break
		}
	}
	m := claimValue.FindStringSubmatch(rest)
	if m == nil {
		head := rest
		if len(head) > 30 {
			head = head[:30] + "..."
		}
		return "", st, fmt.Errorf("no number after the marker (the text there is %q): put the marker right before the number or its qualifier (about, at most, ...)", head)
	}
	a, ua, err := parseNumber(m[1])
	if err != nil {
		return "", st, err
	}
	st.Lo, st.Hi, st.Ulp = a, a, ua
	if m[2] != "" {
		b, ub, err := parseNumber(m[2])
		if err != nil {
			return "", st, err
		}
		st.Range = true
		st.Lo, st.Hi = min(a, b), max(a, b)
		st.Ulp = min(ua, ub) // the finer end sets the precision of both
	}
	st.Percent = m[3] != ""
	text := strings.TrimSpace(s[:len(s)-len(rest)] + m[0])
	return strings.Join(strings.Fields(text), " "), st, nil
}

// parseNumber reads a number as written and returns its value and one unit of its last written
// digit: "9.6e-5" -> 9.6e-5, 1e-6; "5,936,864" -> 5936864, 1; "40" -> 40, 1 (a plain integer's
// trailing zeros count as written; Stated.tolerance widens them for "about").
func parseNumber(s string) (v, ulp float64, err error) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, ",", ""), "−", "-")
	v, err = strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("the number %q does not parse: %w", s, err)
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		if exp, err = strconv.Atoi(s[i+1:]); err != nil {
			return 0, 0, fmt.Errorf("the exponent of %q does not parse: %w", s, err)
		}
	}
	decimals := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		decimals = len(mant) - i - 1
	}
	return v, math.Pow(10, float64(exp-decimals)), nil
}

// tolerance is how far a value may sit from a stated number x: half a unit of its last written
// digit, so that the value rounds to it. "About" says only that an integer's trailing zeros are
// not significant: "40" means 40 (a count), "about 40" means 35..45.
func (st Stated) tolerance(x float64) float64 {
	u := st.Ulp
	if st.Qualifier == "about" && u >= 1 && x != 0 {
		for n := math.Abs(x); n >= 10*u && math.Mod(n, 10*u) == 0; {
			u *= 10
		}
	}
	return u / 2
}

// Holds says whether values (in the code's units: a fraction for a percentage) agree with the
// stated claim; the error says how they disagree. One value for a number or a bound; for a
// range, one value (which must lie in it) or several (whose smallest and largest must round to
// its two ends).
func (st Stated) Holds(values ...float64) error {
	if len(values) == 0 {
		return errors.New("no value to check")
	}
	vs := slices.Clone(values)
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("the computed value %v is not a number", v)
		}
		if st.Percent {
			vs[i] = 100 * v
		}
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	slack := 1e-9 * max(math.Abs(st.Lo), math.Abs(st.Hi), st.Ulp) // decimal numbers in binary
	switch st.Qualifier {
	case "at most":
		if hi > st.Hi+slack {
			return fmt.Errorf("%s is above %s", show(hi, st.Percent), show(st.Hi, st.Percent))
		}
		return nil
	case "under":
		if hi >= st.Hi {
			return fmt.Errorf("%s is not below %s", show(hi, st.Percent), show(st.Hi, st.Percent))
		}
		return nil
	case "at least":
		if lo < st.Lo-slack {
			return fmt.Errorf("%s is below %s", show(lo, st.Percent), show(st.Lo, st.Percent))
		}
		return nil
	case "over":
		if lo <= st.Lo {
			return fmt.Errorf("%s is not above %s", show(lo, st.Percent), show(st.Lo, st.Percent))
		}
		return nil
	}
	near := func(v, x float64) bool { return math.Abs(v-x) <= st.tolerance(x)+slack }
	switch {
	case !st.Range:
		for _, v := range []float64{lo, hi} {
			if !near(v, st.Lo) {
				return fmt.Errorf("%s does not round to it (allowed: %s either way)", show(v, st.Percent), show(st.tolerance(st.Lo), false))
			}
		}
	case len(vs) == 1:
		if lo < st.Lo-st.tolerance(st.Lo)-slack || lo > st.Hi+st.tolerance(st.Hi)+slack {
			return fmt.Errorf("%s is outside the range", show(lo, st.Percent))
		}
	default:
		if !near(lo, st.Lo) || !near(hi, st.Hi) {
			return fmt.Errorf("the values span %s to %s: each end must round to the stated one", show(lo, st.Percent), show(hi, st.Percent))
		}
	}
	return nil
}

// show prints a value with enough digits to compare with a claim.
func show(v float64, percent bool) string {
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if percent {
		s += "%"
	}
	return s
}

// Get returns the claim called name, or an error naming the notebook when there is none.
func (c *Claims) Get(name string) (Claim, error) {
	if c.err != nil {
		return Claim{}, c.err
	}
	cl, ok := c.claims[name]
	if !ok {
		names := make([]string, 0, len(c.claims))
		for n := range c.claims {
			names = append(names, n)
		}
		slices.Sort(names)
		return Claim{}, fmt.Errorf("plots: %s marks no claim %q in its markdown (write <!--claim:%s--> before the number; marked: %s)",
			c.file, name, name, strings.Join(names, ", "))
	}
	return cl, nil
}

// Names lists the marked claims in name order.
func (c *Claims) Names() []string {
	names := make([]string, 0, len(c.claims))
	for n := range c.claims {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Check checks the claim called name against the value the cell computed (a fraction for a
// percentage): it prints one line saying that the claim holds, or panics, failing the cell, with
// a message that names the claim, its cell and both numbers.
func (c *Claims) Check(name string, value float64) { c.Span(name, value) }

// Span checks the claim called name against several values, a spread over runs, snippets or
// settings (see Stated.Holds), as Check does for one.
func (c *Claims) Span(name string, values ...float64) {
	if err := c.Verify(name, values...); err != nil {
		panic(err)
	}
	cl, _ := c.Get(name)
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = strconv.FormatFloat(v, 'g', 4, 64)
	}
	fmt.Printf("claim %s: %q holds (computed %s)\n", name, cl.Text, strings.Join(parts, ", "))
}

// Verify is Span without the printing and the panic: the error says which claim, where, and how
// the values disagree with it.
func (c *Claims) Verify(name string, values ...float64) error {
	cl, err := c.Get(name)
	if err != nil {
		return err
	}
	if err := cl.Holds(values...); err != nil {
		return fmt.Errorf("claim %q of %s (markdown cell %d) says %q, but %w: fix the prose or the code",
			name, c.file, cl.Cell, cl.Text, err)
	}
	return nil
}
