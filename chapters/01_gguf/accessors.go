package gguf

import (
	"fmt"
	"math"
)

// Value returns the metadata value stored under key.
func (f *File) Value(key string) (Value, bool) {
	i, ok := f.kvIndex[key]
	if !ok {
		return Value{}, false
	}
	return f.Metadata[i].Value, true
}

// keyErr is the FormatError of a metadata entry whose value is not what the reader needs. It names
// no file: the caller holds the File (ConfigFromGGUF, which reads many keys, adds it).
func (f *File) keyErr(kv KV, format string, args ...any) *FormatError {
	return formatErr(fmt.Sprintf("metadata %q", kv.Key), kv.Offset, format, args...)
}

// lookup returns the entry for key, or an error saying it is missing or has another type than want.
func (f *File) lookup(key string, want ValueType) (KV, error) {
	i, ok := f.kvIndex[key]
	if !ok {
		return KV{}, fmt.Errorf("gguf: metadata %q: %w", key, ErrNotFound)
	}
	kv := f.Metadata[i]
	if kv.Value.Type != want {
		return KV{}, f.keyErr(kv, "is %s, want %s", kv.Value.TypeName(), want)
	}
	return kv, nil
}

// String returns a STRING value, e.g. f.String("general.architecture") == "qwen3".
func (f *File) String(key string) (string, error) {
	kv, err := f.lookup(key, TypeString)
	if err != nil {
		return "", err
	}
	return kv.Value.V.(string), nil
}

// Uint32 returns a UINT32 value, e.g. f.Uint32("qwen3.block_count").
func (f *File) Uint32(key string) (uint32, error) {
	// exercise: gguf.File.Uint32 — look the key up, check that it holds a UINT32, return it
	// tests: TestUint32 TestAccessors
	// difficulty: easy, 10 min
	kv, err := f.lookup(key, TypeUint32)
	if err != nil {
		return 0, err
	}
	return kv.Value.V.(uint32), nil
	// hint: The neighbouring accessors (String just above) do the same for other types: find the
	// entry, make sure it holds the type asked for, then hand out its value.
	// hint: f.lookup(key, TypeUint32) finds the key and checks its type: it returns a *FormatError
	// naming the key, its offset and both types, or an error wrapping ErrNotFound. Only then is
	// kv.Value.V a uint32.
	// hint: Four lines:
	//	kv, err := f.lookup(key, TypeUint32)
	//	if err != nil { return 0, err }
	//	return kv.Value.V.(uint32), nil
	// mistake: the stored type never checked, so a UINT64 value panics in the type assertion
	// says: check that it holds a UINT32
	//	- kv, err := f.lookup(key, TypeUint32)
	//	- if err != nil {
	//	- return 0, err
	//	- }
	//	- return kv.Value.V.(uint32), nil
	//	+ v, ok := f.Value(key)
	//	+ if !ok {
	//	+ 	return 0, fmt.Errorf("gguf: metadata %q: %w", key, ErrNotFound)
	//	+ }
	//	+ return v.V.(uint32), nil
	// mistake: a missing or mistyped key returns 0 and no error
	// says: = 0 and no error
	//	- return 0, err
	//	+ return 0, nil
	// end exercise
}

// Uint64 returns a UINT64 value.
func (f *File) Uint64(key string) (uint64, error) {
	kv, err := f.lookup(key, TypeUint64)
	if err != nil {
		return 0, err
	}
	return kv.Value.V.(uint64), nil
}

// Float32 returns a FLOAT32 value, e.g. f.Float32("qwen3.rope.freq_base") == 1e6.
func (f *File) Float32(key string) (float32, error) {
	kv, err := f.lookup(key, TypeFloat32)
	if err != nil {
		return 0, err
	}
	return kv.Value.V.(float32), nil
}

// Bool returns a BOOL value.
func (f *File) Bool(key string) (bool, error) {
	kv, err := f.lookup(key, TypeBool)
	if err != nil {
		return false, err
	}
	return kv.Value.V.(bool), nil
}

// Int returns a value of any integer type as an int, for keys whose writers disagree on the width
// (general.file_type is UINT32 in one file and INT32 in another). It fails if the value does not fit.
func (f *File) Int(key string) (int, error) {
	i, ok := f.kvIndex[key]
	if !ok {
		return 0, fmt.Errorf("gguf: metadata %q: %w", key, ErrNotFound)
	}
	kv := f.Metadata[i]
	n, err := asInt(kv.Value.V)
	if err != nil {
		return 0, f.keyErr(kv, "%v", err)
	}
	return n, nil
}

// Float returns a FLOAT32 or FLOAT64 value as a float64.
func (f *File) Float(key string) (float64, error) {
	i, ok := f.kvIndex[key]
	if !ok {
		return 0, fmt.Errorf("gguf: metadata %q: %w", key, ErrNotFound)
	}
	kv := f.Metadata[i]
	switch x := kv.Value.V.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, f.keyErr(kv, "is %s, want FLOAT32 or FLOAT64", kv.Value.TypeName())
}

// Strings returns an ARRAY[STRING] value, e.g. the vocabulary in "tokenizer.ggml.tokens".
func (f *File) Strings(key string) ([]string, error) {
	kv, err := f.lookup(key, TypeArray)
	if err != nil {
		return nil, err
	}
	s, ok := kv.Value.V.([]string)
	if !ok {
		return nil, f.keyErr(kv, "is %s, want ARRAY[STRING]", kv.Value.TypeName())
	}
	return s, nil
}

// Ints returns an array of any integer element type as []int, e.g. "tokenizer.ggml.token_type".
func (f *File) Ints(key string) ([]int, error) {
	kv, err := f.lookup(key, TypeArray)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, kv.Value.Len())
	if err := eachScalar(kv.Value.V, func(x any) error {
		n, err := asInt(x)
		out = append(out, n)
		return err
	}); err != nil {
		return nil, f.keyErr(kv, "element %d: %v", len(out)-1, err)
	}
	return out, nil
}

// Floats returns an ARRAY[FLOAT32] or ARRAY[FLOAT64] value as []float64.
func (f *File) Floats(key string) ([]float64, error) {
	kv, err := f.lookup(key, TypeArray)
	if err != nil {
		return nil, err
	}
	switch a := kv.Value.V.(type) {
	case []float32:
		out := make([]float64, len(a))
		for i, x := range a {
			out[i] = float64(x)
		}
		return out, nil
	case []float64:
		return append([]float64(nil), a...), nil
	}
	return nil, f.keyErr(kv, "is %s, want ARRAY[FLOAT32] or ARRAY[FLOAT64]", kv.Value.TypeName())
}

// asInt converts any Go integer value to int, failing for non-integers and values out of range.
func asInt(v any) (int, error) {
	switch x := v.(type) {
	case uint8:
		return int(x), nil
	case int8:
		return int(x), nil
	case uint16:
		return int(x), nil
	case int16:
		return int(x), nil
	case uint32:
		return int(x), nil
	case int32:
		return int(x), nil
	case int64:
		if x < math.MinInt || x > math.MaxInt {
			return 0, fmt.Errorf("value %d does not fit in an int", x)
		}
		return int(x), nil
	case uint64:
		if x > math.MaxInt {
			return 0, fmt.Errorf("value %d does not fit in an int", x)
		}
		return int(x), nil
	}
	return 0, fmt.Errorf("%T is not an integer", v)
}

// eachScalar calls fn for every element of a typed slice of scalars.
func eachScalar(v any, fn func(any) error) error {
	switch a := v.(type) {
	case []uint8:
		return each(a, fn)
	case []int8:
		return each(a, fn)
	case []uint16:
		return each(a, fn)
	case []int16:
		return each(a, fn)
	case []uint32:
		return each(a, fn)
	case []int32:
		return each(a, fn)
	case []uint64:
		return each(a, fn)
	case []int64:
		return each(a, fn)
	}
	return fmt.Errorf("%T is not an array of integers", v)
}

func each[T any](a []T, fn func(any) error) error {
	for _, x := range a {
		if err := fn(x); err != nil {
			return err
		}
	}
	return nil
}
