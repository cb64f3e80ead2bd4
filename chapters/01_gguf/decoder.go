package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// decoder reads little-endian fields from an in-memory (usually memory-mapped) file and remembers
// where it is, so every error can say at which byte things went wrong.
//
// It never allocates more than the file can hold: before making a slice for n items it checks that
// the remaining bytes could hold n of the smallest possible item (see fits).
type decoder struct {
	b   []byte
	off int64
}

// remaining is the number of bytes left after the cursor.
func (d *decoder) remaining() int64 { return int64(len(d.b)) - d.off }

// take returns the next n bytes, or an error naming field and offset if the file ends first.
func (d *decoder) take(n int64, field string) ([]byte, error) {
	if n < 0 || n > d.remaining() {
		e := formatErr(field, d.off, "needs %d bytes, but the file ends at byte %d", n, len(d.b))
		e.Err = ErrTruncated
		return nil, e
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p, nil
}

func (d *decoder) u8(field string) (uint8, error) {
	p, err := d.take(1, field)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

func (d *decoder) u16(field string) (uint16, error) {
	p, err := d.take(2, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(p), nil
}

func (d *decoder) u32(field string) (uint32, error) {
	p, err := d.take(4, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(p), nil
}

func (d *decoder) u64(field string) (uint64, error) {
	p, err := d.take(8, field)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(p), nil
}

// count reads a u64 element count and rejects it unless the rest of the file could hold that many
// items of at least minSize bytes each. This is the check that stops a 2^63 tensor count or a
// 2^40-byte string from turning into a giant allocation.
func (d *decoder) count(field string, minSize int64) (int64, error) {
	start := d.off
	n, err := d.u64(field)
	if err != nil {
		return 0, err
	}
	if minSize < 1 {
		minSize = 1
	}
	if n > math.MaxInt64/uint64(minSize) || int64(n)*minSize > d.remaining() {
		return 0, formatErr(field, start, "%d items of at least %d bytes cannot fit in the %d bytes left in the file",
			n, minSize, d.remaining())
	}
	return int64(n), nil
}

// str reads a GGUF string: a u64 byte length followed by that many bytes (UTF-8, no NUL).
func (d *decoder) str(field string) (string, error) {
	n, err := d.count(field+" length", 1)
	if err != nil {
		return "", err
	}
	p, err := d.take(n, field)
	if err != nil {
		return "", err
	}
	return string(p), nil
}

// strElem reads element i of an array of strings. It is str with the field name built only when
// there is an error to report: a vocabulary has 151,936 of them.
func (d *decoder) strElem(field string, i int) (string, error) {
	if d.remaining() >= 8 {
		n := binary.LittleEndian.Uint64(d.b[d.off:])
		if n <= uint64(d.remaining()-8) {
			s := string(d.b[d.off+8 : d.off+8+int64(n)])
			d.off += 8 + int64(n)
			return s, nil
		}
	}
	return d.str(fmt.Sprintf("%s[%d]", field, i)) // the slow path reports the error
}
