package qwen3

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestNewMatrixRefusals: a storage type the engine does not know, rows that are not whole blocks
// and bytes that do not match the shape are errors naming the tensor and what is wrong.
func TestNewMatrixRefusals(t *testing.T) {
	for _, c := range []struct {
		t          DType
		rows, cols int
		bytes      int
		want       string
	}{
		{DType(99), 2, 32, 64, "w: unknown storage type DType(99)"},
		{Q8_0, 2, 48, 2 * 51, "w: Q8_0 rows of 48 values are not whole 32-value blocks"},
		{BF16, 2, 32, 127, "w: 127 bytes for a 2x32 BF16 matrix, want 128"},
	} {
		if _, err := newMatrix("w", c.t, c.rows, c.cols, make([]byte, c.bytes)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %dx%d of %d bytes: %v, want %q", c.t, c.rows, c.cols, c.bytes, err, c.want)
		}
	}
}

// TestNewMatrixOddAddress: the float types read their bytes in place when the address suits the
// element (a mapped file's), and copy them once when it does not (a safetensors buffer at an odd
// offset), with the same values either way.
func TestNewMatrixOddAddress(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []DType{F32, F16, BF16} {
		aligned := randomMatrix(t, r, dt, 3, 64)
		buf := make([]byte, len(aligned.raw)+1)
		odd := buf[1:]
		copy(odd, aligned.raw)
		m, err := newMatrix("odd", dt, 3, 64, odd)
		if err != nil {
			t.Fatal(err)
		}
		if unsafe.Pointer(&m.raw[0]) == unsafe.Pointer(&odd[0]) {
			t.Errorf("%v at an odd address: used in place, want a copy", dt)
		}
		in, err := newMatrix("aligned", dt, 3, 64, aligned.raw)
		if err != nil {
			t.Fatal(err)
		}
		if unsafe.Pointer(&in.raw[0]) != unsafe.Pointer(&aligned.raw[0]) {
			t.Errorf("%v at an aligned address: copied, want it used in place", dt)
		}
		want, got := make([]float32, 64), make([]float32, 64)
		for row := range 3 {
			aligned.Row(row, want)
			m.Row(row, got)
			if !slices.Equal(got, want) {
				t.Fatalf("%v row %d: %v from the copy, %v in place", dt, row, got[:4], want[:4])
			}
		}
	}
}
