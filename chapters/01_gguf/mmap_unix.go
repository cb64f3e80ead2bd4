//go:build linux || darwin || freebsd

package gguf

import (
	"fmt"
	"os"
	"syscall"
)

// load maps path read-only into memory, or reads it when o.noMmap is set.
//
// A mapping costs no RAM up front: the kernel reads a page from disk the first time it is touched
// and may drop it again under memory pressure, because it can always re-read it. Opening a 1.2 GB
// model this way takes milliseconds, and several processes share the same pages.
func load(path string, o options) ([]byte, func() error, error) {
	if o.noMmap {
		return readAll(path)
	}
	fd, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("gguf: %w", err)
	}
	defer fd.Close() // the mapping stays valid after the descriptor is closed
	st, err := fd.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("gguf: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return []byte{}, func() error { return nil }, nil // mmap of 0 bytes fails; parsing will report the empty file
	}
	if int64(int(size)) != size {
		return nil, nil, fmt.Errorf("gguf: %s: %d bytes is too large to map", path, size)
	}
	b, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("gguf: mmap %s: %w", path, err)
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}
