package qwen3

import (
	"fmt"
	"unsafe"

	gguf "github.com/qwen3go/qwen3go/chapters/01_gguf"
	"github.com/qwen3go/qwen3go/qwen3/internal/kernels"
)

// DType is how a weight matrix is stored, in memory exactly as in the file.
type DType uint8

// The storage types the kernels read directly. Other GGUF types are widened to F32 when loading.
const (
	F32 DType = iota
	F16
	BF16
	Q8_0 // block-quantized, as are the types after it: 32 or 256 weights share their scales
	Q4_0
	Q4_K
	Q6_K
)

// dtypes is the one table of storage types: name, GGUF type, values per block, bytes per block.
var dtypes = [...]struct {
	name         string
	ggml         gguf.GGMLType
	block, bytes int
}{
	F32:  {"F32", gguf.TypeF32, 1, 4},
	F16:  {"F16", gguf.TypeF16, 1, 2},
	BF16: {"BF16", gguf.TypeBF16, 1, 2},
	Q8_0: {"Q8_0", gguf.TypeQ8_0, kernels.Q8BlockSize, kernels.Q8BlockBytes},
	Q4_0: {"Q4_0", gguf.TypeQ4_0, kernels.Q4BlockSize, kernels.Q4BlockBytes},
	Q4_K: {"Q4_K", gguf.TypeQ4_K, kernels.QKSize, kernels.Q4KBytes},
	Q6_K: {"Q6_K", gguf.TypeQ6_K, kernels.QKSize, kernels.Q6KBytes},
}

func (t DType) String() string {
	if int(t) < len(dtypes) {
		return dtypes[t].name
	}
	return fmt.Sprintf("DType(%d)", uint8(t))
}

// dtypeOf returns the storage type of a stored tensor type, as chapter 01 names it for both file
// kinds (safetensors dtypes map onto the same names), or false if the kernels do not read it and
// the weight is widened to F32 while loading. dtypes is the one place to extend when the kernels
// learn a new type.
func dtypeOf(g gguf.GGMLType) (DType, bool) {
	for t, d := range dtypes {
		if d.ggml == g {
			return DType(t), true
		}
	}
	return 0, false
}

// ggml is the GGUF type of t.
func (t DType) ggml() gguf.GGMLType { return dtypes[t].ggml }

// quantized reports whether t is block-quantized: decoding dots its rows with an Act
// (activations rounded to int16 blocks, kernels/quant.go) instead of float32 values.
func (t DType) quantized() bool { return t >= Q8_0 }

// qKind is the kernels' name for a block-quantized type, for prompts' integer tiles.
func (t DType) qKind() (kernels.QKind, bool) {
	switch t {
	case Q8_0:
		return kernels.QQ8_0, true
	case Q4_0:
		return kernels.QQ4_0, true
	case Q4_K:
		return kernels.QQ4_K, true
	case Q6_K:
		return kernels.QQ6_K, true
	}
	return 0, false
}

// rowBytes is the size of one row of cols weights (cols a whole number of blocks).
func (t DType) rowBytes(cols int) int { return cols / dtypes[t].block * dtypes[t].bytes }

// matrix is a weight matrix in Hugging Face orientation, Rows x Cols = [out][in], stored row-major
// in its file's precision. Row r dotted with an input vector gives output r: y = W x.
// The bytes are usually the file's, read once into huge pages or mapped (Load), and not copied again.
type matrix struct {
	Name       string // the tensor's Hugging Face name, for errors
	Type       DType
	Rows, Cols int

	f32 []float32 // F32
	u16 []uint16  // F16, BF16
	raw []byte    // quantized blocks; for every type, the bytes as stored
}

// newMatrix wraps raw bytes as a rows x cols matrix of type t. Mapped bytes are used in place when
// their address suits the element type; otherwise (a safetensors buffer at an odd offset) they are
// copied once.
func newMatrix(name string, t DType, rows, cols int, raw []byte) (*matrix, error) {
	if int(t) >= len(dtypes) {
		return nil, fmt.Errorf("qwen3: %s: unknown storage type %v", name, t)
	}
	if b := dtypes[t].block; cols%b != 0 {
		return nil, fmt.Errorf("qwen3: %s: %v rows of %d values are not whole %d-value blocks", name, t, cols, b)
	}
	if want := rows * t.rowBytes(cols); len(raw) != want {
		return nil, fmt.Errorf("qwen3: %s: %d bytes for a %dx%d %v matrix, want %d", name, len(raw), rows, cols, t, want)
	}
	m := &matrix{Name: name, Type: t, Rows: rows, Cols: cols, raw: raw}
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
func matrixFromFloats(name string, rows, cols int, v []float32) *matrix {
	m := &matrix{Name: name, Type: F32, Rows: rows, Cols: cols, f32: v}
	if len(v) > 0 {
		m.raw = unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
	}
	return m
}

// Bytes is the matrix's size in memory: what one pass over it streams.
func (m *matrix) Bytes() int64 { return int64(m.Rows) * int64(m.Type.rowBytes(m.Cols)) }

// dotRows writes out[i] = row r0+i times the input of a decoding pass, which is given both as
// floats and as an Act: quantized types read the Act when there is one (a is nil when the model
// does not round activations: Model.roundsActs), and x otherwise (exactRows). One kernel call
// covers all the rows.
func (m *matrix) dotRows(r0 int, out, x []float32, a *kernels.Act) {
	c := m.Cols
	switch m.Type {
	case F32:
		kernels.DotF32Rows(out, m.f32[r0*c:], c, x)
		return
	case BF16:
		kernels.DotBF16Rows(out, m.u16[r0*c:], c, x)
		return
	case F16:
		kernels.DotF16Rows(out, m.u16[r0*c:], c, x)
		return
	}
	if a == nil {
		m.exactRows(r0, out, x)
		return
	}
	rb := m.Type.rowBytes(c)
	w := m.raw[r0*rb : (r0+len(out))*rb]
	switch m.Type {
	case Q8_0:
		kernels.DotQ8_0ActRows(out, w, rb, a)
	case Q4_0:
		kernels.DotQ4_0ActRows(out, w, rb, a)
	case Q4_K:
		kernels.DotQ4_KActRows(out, w, rb, a)
	case Q6_K:
		kernels.DotQ6_KActRows(out, w, rb, a)
	default:
		panic(fmt.Sprintf("qwen3: dotRows on %v", m.Type))
	}
}

// dotRowsN writes out[t*outStride+i] = row r0+i times token t's input for i < rows and
// t < tokens: token t's input is x[t*xStride:] as floats and, for the quantized types, token t of
// the batch Act a (tokens rows of Cols values, rounded by one Quantize call; nil when the model
// keeps exact activations, and then each token takes exactRows). The batched kernels decode each
// block of weights once for all the tokens; each result is bit for bit dotRows's.
func (m *matrix) dotRowsN(r0, rows int, out []float32, outStride int, x []float32, xStride int, a *kernels.Act, xn *kernels.ActN, tokens int) {
	if xn != nil { // a Batch's step of batchTileMin tokens or more: the batched tile
		if kind, ok := m.Type.qKind(); ok && kernels.TileQNFast(kind) {
			rb := m.Type.rowBytes(m.Cols)
			kernels.TileQN(kind, out, outStride, rows, m.raw[r0*rb:(r0+rows)*rb], rb, xn)
			return
		}
	}
	if tokens == 1 {
		m.dotRows(r0, out[:rows], x, a)
		return
	}
	c := m.Cols
	switch m.Type {
	case F32:
		kernels.DotF32RowsN(out, outStride, rows, m.f32[r0*c:], c, x, xStride, tokens)
		return
	case BF16:
		kernels.DotBF16RowsN(out, outStride, rows, m.u16[r0*c:], c, x, xStride, tokens)
		return
	case F16:
		kernels.DotF16RowsN(out, outStride, rows, m.u16[r0*c:], c, x, xStride, tokens)
		return
	}
	if a == nil { // WithExactActivations: float inputs, one token at a time
		for t := range tokens {
			m.exactRows(r0, out[t*outStride:t*outStride+rows], x[t*xStride:])
		}
		return
	}
	rb := m.Type.rowBytes(c)
	w := m.raw[r0*rb : (r0+rows)*rb]
	switch m.Type {
	case Q8_0:
		kernels.DotQ8_0ActRowsN(out, outStride, rows, w, rb, a, tokens)
	case Q4_0:
		kernels.DotQ4_0ActRowsN(out, outStride, rows, w, rb, a, tokens)
	case Q4_K:
		kernels.DotQ4_KActRowsN(out, outStride, rows, w, rb, a, tokens)
	case Q6_K:
		kernels.DotQ6_KActRowsN(out, outStride, rows, w, rb, a, tokens)
	default:
		panic(fmt.Sprintf("qwen3: dotRowsN on %v", m.Type))
	}
}

// exactBuf is the number of float32 values exactRows decodes at once, on the stack (32 KB: in
// the first-level cache with the input); a multiple of every block size.
const exactBuf = 8192

// exactRows writes out[i] = row r0+i · x for a block-quantized matrix with float32 inputs
// (WithExactActivations): the dot products chapter 07 computes, to float32 rounding. Q8_0 has a
// kernel that widens each weight to float inside the loop (DotQ8_0); the other types decode their
// rows into a buffer on the stack, as many whole rows as fit, and dot them as F32 rows
// (DotF32Rows), or wider rows a segment at a time.
func (m *matrix) exactRows(r0 int, out, x []float32) {
	c := m.Cols
	rb := m.Type.rowBytes(c)
	if m.Type == Q8_0 {
		for i := range out {
			r := r0 + i
			out[i] = kernels.DotQ8_0(m.raw[r*rb:(r+1)*rb], x[:c])
		}
		return
	}
	var buf [exactBuf]float32
	if per := exactBuf / c; per > 0 {
		for i := 0; i < len(out); i += per {
			n := min(per, len(out)-i)
			m.Type.decode(buf[:n*c], m.raw[(r0+i)*rb:(r0+i+n)*rb])
			kernels.DotF32Rows(out[i:i+n], buf[:n*c], c, x)
		}
		return
	}
	for i := range out {
		row := m.raw[(r0+i)*rb : (r0+i+1)*rb]
		var sum float32
		for c0 := 0; c0 < c; c0 += exactBuf {
			n := min(exactBuf, c-c0)
			m.Type.decode(buf[:n], row[m.Type.rowBytes(c0):m.Type.rowBytes(c0+n)])
			sum += kernels.DotF32(buf[:n], x[c0:c0+n])
		}
		out[i] = sum
	}
}

// decode writes the values of the blocks in raw (a block-quantized type) into dst.
func (t DType) decode(dst []float32, raw []byte) {
	switch t {
	case Q8_0:
		kernels.DecodeQ8_0(dst, raw)
	case Q4_0:
		kernels.DecodeQ4_0(dst, raw)
	case Q4_K:
		kernels.DecodeQ4_K(dst, raw)
	case Q6_K:
		kernels.DecodeQ6_K(dst, raw)
	default:
		panic(fmt.Sprintf("qwen3: decode of %v blocks", t))
	}
}

// Row decodes row r into dst (len Cols) as float32: the embedding lookup, and prompt packing.
func (m *matrix) Row(r int, dst []float32) {
	c := m.Cols
	rb := m.Type.rowBytes(c)
	dst, raw := dst[:c], m.raw[r*rb:(r+1)*rb]
	switch m.Type {
	case F32:
		copy(dst, m.f32[r*c:(r+1)*c])
	case BF16:
		kernels.WidenBF16(dst, m.u16[r*c:(r+1)*c])
	case F16:
		kernels.WidenF16(dst, m.u16[r*c:(r+1)*c])
	default:
		m.Type.decode(dst, raw)
	}
}

// packRows decodes rows r0 .. r0+rows-1 (rows <= kernels.TileRows = 32) into pack in the order
// the Tile kernel reads, column by column: pack[j*32+i] = W[r0+i][j], zeros for missing rows. The
// rows are decoded into staging (32 x Cols) and transposed eight at a time; a full block of F32
// rows is transposed straight from the file, and one of BF16 rows goes through kernels.PackBF16.
func (m *matrix) packRows(r0, rows int, pack, staging []float32) {
	const R = kernels.TileRows
	c := m.Cols
	if m.Type == BF16 && rows == R { // widened and transposed in one pass (AVX-512), no staging
		kernels.PackBF16(pack, m.u16[r0*c:(r0+R)*c], c, staging)
		return
	}
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
