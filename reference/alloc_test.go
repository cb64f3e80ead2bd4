package reference

import (
	"strings"
	"testing"
)

var sink []byte

// TestCheckAllocBound: a reader that allocates what a 40-byte input claims (64 MB) is caught, one
// that allocates in proportion to its input passes, and HeapAllocated sees a 64 MB allocation.
func TestCheckAllocBound(t *testing.T) {
	if got := HeapAllocated(func() { sink = make([]byte, 64<<20) }); got < 64<<20 {
		t.Errorf("HeapAllocated saw %d bytes of a 64 MB allocation", got)
	}
	err := CheckAllocBound(40, 64, func() { sink = make([]byte, 64<<20) })
	if err == nil || !strings.Contains(err.Error(), "reading 40 bytes of input allocated") {
		t.Errorf("64 MB for 40 bytes of input: %v", err)
	}
	if err := CheckAllocBound(1<<20, 64, func() { sink = make([]byte, 8<<20) }); err != nil {
		t.Errorf("8 bytes per input byte: %v", err)
	}
	sink = nil
}
