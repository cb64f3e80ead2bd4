package main

import "syscall"

// readBuffer returns size bytes of anonymous memory advised for transparent huge pages, as the
// engine keeps its weights on Linux (qwen3.WithoutHugePages), so that the read bound is what this
// machine reads at its best, not at 4 KB pages; it falls back to the Go heap.
func readBuffer(size int) []byte {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, size)
	}
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) // without huge pages the buffer still reads
	return b
}
