package gguf

import (
	"fmt"
	"strconv"
	"strings"
)

// Format renders a value for people: strings quoted, arrays as [a b c] with at most maxItems items
// shown and the length added when some are cut ("[...] (151936 items)"). Long strings are cut too.
func (v Value) Format(maxItems int) string {
	if v.Type != TypeArray {
		if s, ok := v.V.(string); ok {
			if len(s) > 40 {
				return strconv.Quote(s[:37]) + "…"
			}
			return strconv.Quote(s)
		}
		return fmt.Sprint(v.V)
	}
	var items []string
	n := v.Len()
	if a, ok := v.V.([]Value); ok {
		for _, e := range a[:min(n, maxItems)] {
			items = append(items, e.Format(maxItems))
		}
	} else {
		_ = eachAny(v.V, func(e any) {
			if len(items) < maxItems {
				items = append(items, Value{Type: TypeUint8, V: e}.Format(maxItems))
				if s, ok := e.(string); ok {
					items[len(items)-1] = Value{Type: TypeString, V: s}.Format(maxItems)
				}
			}
		})
	}
	s := "[" + strings.Join(items, " ")
	if n > maxItems {
		return s + fmt.Sprintf(" …] (%d items)", n)
	}
	return s + "]"
}

// String is Format(8).
func (v Value) String() string { return v.Format(8) }

// eachAny calls fn for every element of a typed slice of scalars ([]uint8 ... []string).
func eachAny(v any, fn func(any)) error {
	switch a := v.(type) {
	case []uint8:
		for _, x := range a {
			fn(x)
		}
	case []int8:
		for _, x := range a {
			fn(x)
		}
	case []uint16:
		for _, x := range a {
			fn(x)
		}
	case []int16:
		for _, x := range a {
			fn(x)
		}
	case []uint32:
		for _, x := range a {
			fn(x)
		}
	case []int32:
		for _, x := range a {
			fn(x)
		}
	case []float32:
		for _, x := range a {
			fn(x)
		}
	case []bool:
		for _, x := range a {
			fn(x)
		}
	case []string:
		for _, x := range a {
			fn(x)
		}
	case []uint64:
		for _, x := range a {
			fn(x)
		}
	case []int64:
		for _, x := range a {
			fn(x)
		}
	case []float64:
		for _, x := range a {
			fn(x)
		}
	default:
		return fmt.Errorf("not an array: %T", v)
	}
	return nil
}
