//go:build unix

package kernels

import (
	"syscall"
	"unsafe"
)

// guardModes are the buffer modes this system runs.
var guardModes = []bufMode{padded, guardAfter, guardBefore}

// guardedBytes maps n bytes next to a page that no access may touch: after them (after) or
// before them. A stray access faults; TestDispatch turns the fault into a reported error.
func guardedBytes(n int, after bool) ([]byte, func()) {
	pg := syscall.Getpagesize()
	size := (n + pg - 1) / pg * pg
	mem, err := syscall.Mmap(-1, 0, size+pg, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		panic("guard page: mmap: " + err.Error())
	}
	guard, b := mem[size:], mem[size-n:size]
	if !after {
		guard, b = mem[:pg], mem[pg:pg+n]
	}
	if err := syscall.Mprotect(guard, syscall.PROT_NONE); err != nil {
		panic("guard page: mprotect: " + err.Error())
	}
	if n == 0 { // an empty slice that still points at the guard's edge
		b = unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), 0)
		if after {
			b = unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&mem[0]), size)), 0)
		}
	}
	return b[:n:n], func() { syscall.Munmap(mem) }
}
