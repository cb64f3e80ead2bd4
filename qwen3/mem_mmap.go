//go:build linux || darwin || freebsd

package qwen3

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"
)

// mapping is memory mapped from the operating system for a KV cache, outside the Go heap: its
// pages are committed as they are first written (fresh anonymous pages read as zeros), and
// release gives them back at once, where memory of the Go heap would be cleared for its next use
// (touching every page again) and returned only when the runtime scavenges it.
type mapping struct {
	data  []byte // the n bytes asked for
	whole []byte // what was mapped: data and, for huge pages, up to one huge page of slack
	huge  bool   // data starts on a huge-page boundary and is advised to get huge pages
	once  sync.Once
	err   error
}

// mapMemory maps n bytes of anonymous memory (at least one page). With huge, where Linux has
// transparent huge pages on (cacheHugePage > 0), the bytes start on a huge-page boundary (one
// huge page more is mapped, and the slack is never touched, so never committed) and are advised
// with MADV_HUGEPAGE: each 2 MB of them is then committed whole at its first write, as one page.
func mapMemory(n int, huge bool) (*mapping, error) {
	page := 0
	if huge {
		page = cacheHugePage()
	}
	whole, err := syscall.Mmap(-1, 0, max(n, 1)+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes: %w", n, err)
	}
	p := &mapping{data: whole[:n], whole: whole}
	if page > 0 {
		off := (page - int(uintptr(unsafe.Pointer(&whole[0]))%uintptr(page))) % page // the first boundary
		p.data = whole[off : off+n]
		// Advice the kernel does not take leaves 4 KB pages: the cache works the same.
		p.huge = adviseHuge(whole[off:off+max(n, 1)]) == nil
	}
	return p, nil
}

// release unmaps the memory; it may be called more than once.
func (p *mapping) release() error {
	p.once.Do(func() {
		p.err = syscall.Munmap(p.whole)
		p.data, p.whole = nil, nil
	})
	return p.err
}
