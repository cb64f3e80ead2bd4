// Package ints reads and writes the comma-separated lists of token counts that scripts/bench and
// scripts/bench/compare take as flags ("128,512,2048").
package ints

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a comma-separated list of non-negative integers; empty items are skipped.
func Parse(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a list of non-negative integers", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// Join writes v as a comma-separated list.
func Join(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
