package kernels

import (
	"fmt"
	"testing"
	"unsafe"
)

// The buffers of TestDispatch. Every slice a kernel is given is cut from a longer buffer:
//
//	padded       with 64 bytes on each side holding a sentinel pattern, checked after every call:
//	             a kernel that writes past either end of a slice is caught, and one that reads
//	             past it sees garbage (NaN as float32, bfloat16 and float16, 32677 as int16, a NaN
//	             scale in quantized blocks), which spoils its result
//	guard-after  ending where a page no access may touch begins (mmap, PROT_NONE): reading or
//	             writing one byte past the slice faults, and the test reports the fault
//	guard-before starting where such a page ends: the same for accesses before the slice
//
// The guard modes need mmap and mprotect (guard_unix_test.go: Linux, macOS, the BSDs); on other
// systems (Windows, Plan 9, wasm) only the padded mode runs.
type bufMode int

const (
	padded bufMode = iota
	guardAfter
	guardBefore
)

func (m bufMode) String() string {
	return [...]string{"padded", "guard-after", "guard-before"}[m]
}

// padPattern is the sentinel: as float32 0x7fa57fa5 (a NaN), as uint16 0x7fa5 (NaN in bfloat16
// and float16), as int16 32677, as bytes 0xa5 0x7f.
var padPattern = [2]byte{0xa5, 0x7f}

const padBytes = 64

// arena hands out the buffers of one case and checks them after it.
type arena struct {
	mode bufMode
	bufs []arenaBuf
}

type arenaBuf struct {
	what    string
	pad     [2][]byte // padded mode: the bytes before and after the slice
	release func()    // guard modes: unmap
}

// bytes returns n bytes for what, 64-byte aligned in the padded mode and when n is a multiple of
// 64 in the guard-after mode (the batched kernels' scratch needs it).
func (m *arena) bytes(what string, n int) []byte {
	if m.mode != padded {
		b, release := guardedBytes(n, m.mode == guardAfter)
		m.bufs = append(m.bufs, arenaBuf{what: what, release: release})
		return b
	}
	raw := make([]byte, n+2*padBytes+64)
	off := padBytes + int(-uintptr(unsafe.Pointer(&raw[padBytes]))&63)
	for i := range raw {
		raw[i] = padPattern[i%2]
	}
	b := raw[off : off+n : off+n]
	m.bufs = append(m.bufs, arenaBuf{what: what, pad: [2][]byte{raw[off-padBytes : off], raw[off+n : off+n+padBytes]}})
	return b
}

// check fails t unless every pad still holds the sentinel; it names the buffer and the byte.
func (m *arena) check(t *testing.T, call string) {
	t.Helper()
	for _, b := range m.bufs {
		for side, p := range b.pad {
			for i, v := range p {
				if v != padPattern[i%2] {
					where := fmt.Sprintf("%d bytes past its end", i+1)
					if side == 0 {
						where = fmt.Sprintf("%d bytes before its start", len(p)-i)
					}
					t.Errorf("%s wrote %#02x into %s, %s", call, v, b.what, where)
					break
				}
			}
		}
	}
}

// release unmaps the guard modes' pages; the arena is then empty.
func (m *arena) release() {
	for _, b := range m.bufs {
		if b.release != nil {
			b.release()
		}
	}
	m.bufs = m.bufs[:0]
}

// alloc returns n elements of T from m.
func alloc[T any](m *arena, what string, n int) []T {
	var z T
	b := m.bytes(what, n*int(unsafe.Sizeof(z)))
	if n == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), 0)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// fill copies v into a buffer of m (the inputs of a case).
func fill[T any](m *arena, what string, v []T) []T {
	b := alloc[T](m, what, len(v))
	copy(b, v)
	return b
}

// sentinelF32 fills out with the sentinel (an output's positions a kernel must not write).
func sentinelF32(out []float32) {
	for i := range out {
		out[i] = sentinelValue
	}
}

// sentinelValue is padPattern as a float32.
var sentinelValue = *(*float32)(unsafe.Pointer(&[4]byte{0xa5, 0x7f, 0xa5, 0x7f}))

// actIn returns an Act of n values in m's buffers, holding x quantized (at the active level),
// byte planes included where the level keeps them.
func actIn(m *arena, what string, x []float32, n int) *Act {
	a := &Act{Q: alloc[int16](m, what+".Q", n), Scale: alloc[float32](m, what+".Scale", n/ActBlock),
		Sum: alloc[float32](m, what+".Sum", n/ActBlock), Sum16: alloc[int32](m, what+".Sum16", n/16)}
	arenaPlanes(m, what, a)
	a.Quantize(x)
	return a
}

// qpackIn returns a QPack for rows of at most k values in m's buffers.
func qpackIn(m *arena, what string, k int) *QPack {
	return &QPack{K: k, Q: alloc[int16](m, what+".Q", k*TileRows), S: alloc[float32](m, what+".S", 2*k/16*TileRows),
		staging: alloc[int16](m, what+".staging", k*TileRows)}
}

// firstDiff is the first index where got and want differ in their float32 bits (-1: none).
func firstDiff(got, want []float32) int {
	for i := range want {
		if i >= len(got) || *(*uint32)(unsafe.Pointer(&got[i])) != *(*uint32)(unsafe.Pointer(&want[i])) {
			return i
		}
	}
	return -1
}
