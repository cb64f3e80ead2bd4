package qwen3

import (
	"fmt"
	"unsafe"

	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// DType is how a weight matrix is stored, in memory exactly as in the file.
type DType uint8

// The storage types the kernels read directly. Other GGUF types are widened to F32 when loading.
const (
	F32 DType = iota
	F16
	BF16
	Q8_0
)

func (t DType) String() string {
	switch t {
	case F32:
		return "F32"
	case F16:
		return "F16"
	case BF16:
		return "BF16"
	case Q8_0:
		return "Q8_0"
	}
	return fmt.Sprintf("DType(%d)", uint8(t))
}

// rowBytes is the size of one row of cols weights.
func (t DType) rowBytes(cols int) int {
	switch t {
	case F32:
		return 4 * cols
	case F16, BF16:
		return 2 * cols
	case Q8_0:
		return cols / kernels.Q8BlockSize * kernels.Q8BlockBytes
	}
	panic(fmt.Sprintf("qwen3: rowBytes of %v", t))
}

// Matrix is a weight matrix in Hugging Face orientation, Rows x Cols = [out][in], stored row-major
// in its file's precision. Row r dotted with an input vector gives output r: y = W x.
// The bytes usually belong to a memory-mapped file and are never copied.
type Matrix struct {
	Type       DType
	Rows, Cols int

	f32 []float32 // F32
	u16 []uint16  // F16, BF16
	raw []byte    // Q8_0 blocks; for every type, the bytes as stored
}

// newMatrix wraps raw bytes as a rows x cols matrix of type t. Mapped bytes are used in place when
// their address suits the element type; otherwise (a safetensors buffer at an odd offset) they are
// copied once.
func newMatrix(name string, t DType, rows, cols int, raw []byte) (*Matrix, error) {
	if t == Q8_0 && cols%kernels.Q8BlockSize != 0 {
		return nil, fmt.Errorf("qwen3: %s: Q8_0 rows of %d values are not whole 32-value blocks", name, cols)
	}
	if want := rows * t.rowBytes(cols); len(raw) != want {
		return nil, fmt.Errorf("qwen3: %s: %d bytes for a %dx%d %v matrix, want %d", name, len(raw), rows, cols, t, want)
	}
	m := &Matrix{Type: t, Rows: rows, Cols: cols, raw: raw}
	n := rows * cols
	if n == 0 {
		return m, nil
	}
	switch t {
	case F32:
		if uintptr(unsafe.Pointer(&raw[0]))%4 != 0 {
			raw = append([]byte(nil), raw...)
			m.raw = raw
		}
		m.f32 = unsafe.Slice((*float32)(unsafe.Pointer(&raw[0])), n)
	case F16, BF16:
		if uintptr(unsafe.Pointer(&raw[0]))%2 != 0 {
			raw = append([]byte(nil), raw...)
			m.raw = raw
		}
		m.u16 = unsafe.Slice((*uint16)(unsafe.Pointer(&raw[0])), n)
	}
	return m, nil
}

// matrixFromFloats stores float32 values as an F32 matrix (used for GGUF types the kernels do not read).
func matrixFromFloats(rows, cols int, v []float32) *Matrix {
	m := &Matrix{Type: F32, Rows: rows, Cols: cols, f32: v}
	if len(v) > 0 {
		m.raw = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
	}
	return m
}

// Bytes is the matrix's size in memory: what one pass over it streams.
func (m *Matrix) Bytes() int64 { return int64(m.Rows) * int64(m.Type.rowBytes(m.Cols)) }

// Dot returns row r of the matrix dotted with x (len(x) >= Cols).
func (m *Matrix) Dot(r int, x []float32) float32 {
	c := m.Cols
	switch m.Type {
	case F32:
		return kernels.DotF32(m.f32[r*c:(r+1)*c], x)
	case BF16:
		return kernels.DotBF16(m.u16[r*c:(r+1)*c], x)
	case F16:
		return kernels.DotF16(m.u16[r*c:(r+1)*c], x)
	case Q8_0:
		rb := m.Type.rowBytes(c)
		return kernels.DotQ8_0(m.raw[r*rb:(r+1)*rb], x)
	}
	panic(fmt.Sprintf("qwen3: Dot on %v", m.Type))
}

// Row decodes row r into dst (len Cols) as float32: the embedding lookup, and prompt packing.
func (m *Matrix) Row(r int, dst []float32) {
	c := m.Cols
	switch m.Type {
	case F32:
		copy(dst, m.f32[r*c:(r+1)*c])
	case BF16:
		kernels.WidenBF16(dst[:c], m.u16[r*c:(r+1)*c])
	case F16:
		kernels.WidenF16(dst[:c], m.u16[r*c:(r+1)*c])
	case Q8_0:
		rb := m.Type.rowBytes(c)
		kernels.DecodeQ8_0(dst[:c], m.raw[r*rb:(r+1)*rb])
	default:
		panic(fmt.Sprintf("qwen3: Row on %v", m.Type))
	}
}

// packRows decodes rows r0 .. r0+rows-1 (rows <= kernels.TileRows = 32) into pack in the order
// the Tile kernel reads, column by column: pack[j*32+i] = W[r0+i][j], zeros for missing rows. The
// rows are decoded into staging (32 x Cols) and transposed eight at a time; a full block of F32
// rows is transposed straight from the file.
func (m *Matrix) packRows(r0, rows int, pack, staging []float32) {
	const R = kernels.TileRows
	c := m.Cols
	var src []float32
	if m.Type == F32 && rows == R {
		src = m.f32[r0*c : (r0+R)*c]
	} else {
		src = staging[:R*c]
		for i := 0; i < rows; i++ {
			m.Row(r0+i, src[i*c:(i+1)*c])
		}
		clear(src[rows*c:])
	}
	for i := 0; i < R; i += 8 {
		kernels.Transpose8(pack[i:], R, src[i*c:], c, c)
	}
}
