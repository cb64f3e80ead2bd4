package gguf

import (
	"fmt"
	"math"
)

// ValueType is the type tag of a metadata value (gguf_type in ggml).
type ValueType uint32

// The thirteen metadata value types. The numbers are fixed by the file format.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7 // one byte, 0 or 1
	TypeString  ValueType = 8 // u64 length + bytes
	TypeArray   ValueType = 9 // u32 element type + u64 count + elements
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// String returns the spec's name of the type: "UINT32", "STRING", ...
func (t ValueType) String() string {
	switch t {
	case TypeUint8:
		return "UINT8"
	case TypeInt8:
		return "INT8"
	case TypeUint16:
		return "UINT16"
	case TypeInt16:
		return "INT16"
	case TypeUint32:
		return "UINT32"
	case TypeInt32:
		return "INT32"
	case TypeFloat32:
		return "FLOAT32"
	case TypeBool:
		return "BOOL"
	case TypeString:
		return "STRING"
	case TypeArray:
		return "ARRAY"
	case TypeUint64:
		return "UINT64"
	case TypeInt64:
		return "INT64"
	case TypeFloat64:
		return "FLOAT64"
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// size is the encoded size of a scalar of type t; strings and arrays have no fixed size and
// return their smallest possible encoding (an empty string is 8 bytes, an empty array 12).
func (t ValueType) size() (n int64, ok bool) {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1, true
	case TypeUint16, TypeInt16:
		return 2, true
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4, true
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8, true
	case TypeString:
		return 8, true
	case TypeArray:
		return 12, true
	}
	return 0, false
}

// Value is one metadata value. V holds the Go value:
//
//	UINT8 uint8, INT8 int8, UINT16 uint16, INT16 int16, UINT32 uint32, INT32 int32,
//	FLOAT32 float32, BOOL bool, STRING string, UINT64 uint64, INT64 int64, FLOAT64 float64,
//	ARRAY a slice of the element type ([]uint32, []string, ...) and Elem says which;
//	an array of arrays is a []Value whose items are themselves arrays.
type Value struct {
	Type ValueType
	Elem ValueType // element type when Type is TypeArray
	V    any
}

// Len is the number of elements of an array value (0 for a scalar).
func (v Value) Len() int {
	switch a := v.V.(type) {
	case []uint8:
		return len(a)
	case []int8:
		return len(a)
	case []uint16:
		return len(a)
	case []int16:
		return len(a)
	case []uint32:
		return len(a)
	case []int32:
		return len(a)
	case []float32:
		return len(a)
	case []bool:
		return len(a)
	case []string:
		return len(a)
	case []uint64:
		return len(a)
	case []int64:
		return len(a)
	case []float64:
		return len(a)
	case []Value:
		return len(a)
	}
	return 0
}

// TypeName is "UINT32" for a scalar and "ARRAY[STRING]" for an array.
func (v Value) TypeName() string {
	if v.Type == TypeArray {
		return "ARRAY[" + v.Elem.String() + "]"
	}
	return v.Type.String()
}

// KV is one metadata entry, with the byte offset of its key in the file.
type KV struct {
	Key    string
	Value  Value
	Offset int64
}

// maxArrayDepth bounds nested arrays (an array of arrays of ...). Real files nest at most once;
// the bound keeps a hostile file from driving the reader into very deep recursion.
const maxArrayDepth = 16

// readKV reads one metadata entry: string key, u32 value type, value.
func (d *decoder) readKV(i int64) (KV, error) {
	start := d.off
	key, err := d.str(fmt.Sprintf("metadata[%d].key", i))
	if err != nil {
		return KV{}, err
	}
	field := fmt.Sprintf("metadata %q", key)
	t, err := d.u32(field + " type")
	if err != nil {
		return KV{}, err
	}
	v, err := d.readValue(ValueType(t), field, 0)
	if err != nil {
		return KV{}, err
	}
	return KV{Key: key, Value: v, Offset: start}, nil
}

// readValue reads a value of type t; field names it in errors.
func (d *decoder) readValue(t ValueType, field string, depth int) (Value, error) {
	start := d.off
	switch t {
	case TypeUint8:
		x, err := d.u8(field)
		return Value{Type: t, V: x}, err
	case TypeInt8:
		x, err := d.u8(field)
		return Value{Type: t, V: int8(x)}, err
	case TypeUint16:
		x, err := d.u16(field)
		return Value{Type: t, V: x}, err
	case TypeInt16:
		x, err := d.u16(field)
		return Value{Type: t, V: int16(x)}, err
	case TypeUint32:
		x, err := d.u32(field)
		return Value{Type: t, V: x}, err
	case TypeInt32:
		x, err := d.u32(field)
		return Value{Type: t, V: int32(x)}, err
	case TypeFloat32:
		x, err := d.u32(field)
		return Value{Type: t, V: math.Float32frombits(x)}, err
	case TypeBool:
		x, err := d.u8(field)
		if err != nil {
			return Value{}, err
		}
		if x > 1 {
			return Value{}, formatErr(field, start, "BOOL must be 0 or 1, found %d", x)
		}
		return Value{Type: t, V: x == 1}, nil
	case TypeString:
		s, err := d.str(field)
		return Value{Type: t, V: s}, err
	case TypeUint64:
		x, err := d.u64(field)
		return Value{Type: t, V: x}, err
	case TypeInt64:
		x, err := d.u64(field)
		return Value{Type: t, V: int64(x)}, err
	case TypeFloat64:
		x, err := d.u64(field)
		return Value{Type: t, V: math.Float64frombits(x)}, err
	case TypeArray:
		return d.readArray(field, depth)
	}
	return Value{}, formatErr(field+" type", start-4, "unknown value type %d", uint32(t))
}

// readArray reads u32 element type, u64 count and the elements into a typed slice.
func (d *decoder) readArray(field string, depth int) (Value, error) {
	start := d.off
	if depth >= maxArrayDepth {
		return Value{}, formatErr(field, start, "arrays nested more than %d deep", maxArrayDepth)
	}
	et, err := d.u32(field + " element type")
	if err != nil {
		return Value{}, err
	}
	elem := ValueType(et)
	min, ok := elem.size()
	if !ok {
		return Value{}, formatErr(field, start, "unknown array element type %d", et)
	}
	n, err := d.count(field+" array length", min)
	if err != nil {
		return Value{}, err
	}
	v := Value{Type: TypeArray, Elem: elem}
	switch elem {
	case TypeString:
		a := make([]string, n)
		for i := range a {
			if a[i], err = d.strElem(field, i); err != nil {
				return Value{}, err
			}
		}
		v.V = a
	case TypeArray:
		a := make([]Value, n)
		for i := range a {
			if a[i], err = d.readArray(fmt.Sprintf("%s[%d]", field, i), depth+1); err != nil {
				return Value{}, err
			}
		}
		v.V = a
	default:
		// Fixed-size elements: the count check above guarantees the bytes are there.
		p, err := d.take(n*min, field)
		if err != nil {
			return Value{}, err
		}
		if v.V, err = decodeScalars(elem, p, n); err != nil {
			return Value{}, formatErr(field, start, "%v", err)
		}
	}
	return v, nil
}

// decodeScalars turns n little-endian scalars of type t into a typed slice.
func decodeScalars(t ValueType, p []byte, n int64) (any, error) {
	sub := decoder{b: p}
	switch t {
	case TypeUint8:
		return append([]uint8(nil), p...), nil
	case TypeInt8:
		a := make([]int8, n)
		for i := range a {
			a[i] = int8(p[i])
		}
		return a, nil
	case TypeBool:
		a := make([]bool, n)
		for i := range a {
			if p[i] > 1 {
				return nil, fmt.Errorf("element %d: BOOL must be 0 or 1, found %d", i, p[i])
			}
			a[i] = p[i] == 1
		}
		return a, nil
	case TypeUint16, TypeInt16:
		a := make([]uint16, n)
		for i := range a {
			a[i], _ = sub.u16("")
		}
		if t == TypeInt16 {
			b := make([]int16, n)
			for i, x := range a {
				b[i] = int16(x)
			}
			return b, nil
		}
		return a, nil
	case TypeUint32, TypeInt32, TypeFloat32:
		a := make([]uint32, n)
		for i := range a {
			a[i], _ = sub.u32("")
		}
		switch t {
		case TypeInt32:
			b := make([]int32, n)
			for i, x := range a {
				b[i] = int32(x)
			}
			return b, nil
		case TypeFloat32:
			b := make([]float32, n)
			for i, x := range a {
				b[i] = math.Float32frombits(x)
			}
			return b, nil
		}
		return a, nil
	case TypeUint64, TypeInt64, TypeFloat64:
		a := make([]uint64, n)
		for i := range a {
			a[i], _ = sub.u64("")
		}
		switch t {
		case TypeInt64:
			b := make([]int64, n)
			for i, x := range a {
				b[i] = int64(x)
			}
			return b, nil
		case TypeFloat64:
			b := make([]float64, n)
			for i, x := range a {
				b[i] = math.Float64frombits(x)
			}
			return b, nil
		}
		return a, nil
	}
	return nil, fmt.Errorf("cannot decode %v as a fixed-size scalar", t)
}
