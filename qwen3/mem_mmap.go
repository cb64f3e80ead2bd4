//go:build linux || darwin || freebsd

package qwen3

import (
	"fmt"
	"sync"
	"syscall"
)

// mapping is memory mapped from the operating system for a KV cache, outside the Go heap: its
// pages are committed as they are first written (fresh anonymous pages read as zeros), and
// release gives them back at once, where memory of the Go heap would be cleared for its next use
// (touching every page again) and returned only when the runtime scavenges it.
type mapping struct {
	data []byte
	once sync.Once
	err  error
}

// mapMemory maps n bytes of anonymous memory (at least one page).
func mapMemory(n int) (*mapping, error) {
	data, err := syscall.Mmap(-1, 0, max(n, 1), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes: %w", n, err)
	}
	return &mapping{data: data[:n]}, nil
}

// release unmaps the memory; it may be called more than once.
func (p *mapping) release() error {
	p.once.Do(func() {
		p.err = syscall.Munmap(p.data[:cap(p.data)])
		p.data = nil
	})
	return p.err
}
