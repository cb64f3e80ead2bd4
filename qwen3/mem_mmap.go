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
	whole []byte // what was mapped: data and, for huge pages, the alignment and the last page's rest
	huge  bool   // data starts on a huge-page boundary, advised to get huge pages
	once  sync.Once
	err   error
}

// mapMemory maps n bytes of anonymous memory (at least one page). With huge, where Linux has
// transparent huge pages on (cacheHugePage > 0) and n is at least one huge page, the bytes start
// on a huge-page boundary and the whole huge pages that hold them are advised with MADV_HUGEPAGE
// (a huge page more than they need is mapped for the alignment; what is never written is never
// committed): each huge page is then committed whole at its first write. Without huge the
// memory is advised MADV_NOHUGEPAGE, so that it stays in 4 KB pages even where the system's
// setting is "always".
func mapMemory(n int, huge bool) (*mapping, error) {
	page := cacheHugePage()
	if n < page || page == 0 {
		huge = false // a huge page would commit more than n at the first write
	}
	size := max(n, 1)
	if huge {
		size = (n+page-1)/page*page + page
	}
	whole, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("mapping %d bytes: %w", n, err)
	}
	p := &mapping{data: whole[:n], whole: whole}
	if !huge {
		adviseHuge(whole, false) // advice the kernel does not take changes nothing the cache needs
		return p, nil
	}
	off, advised := hugeSpan(uintptr(unsafe.Pointer(&whole[0])), n, page)
	p.data = whole[off : off+n]
	p.huge = adviseHuge(whole[off:off+advised], true) == nil
	return p, nil
}

// hugeSpan places n bytes in a mapping at addr of roundUp(n, page) + page bytes: they start off
// bytes in, at the first huge-page boundary, and the span to advise is the advised bytes from
// there, the whole huge pages that hold them (so off + advised <= the mapping's length).
func hugeSpan(addr uintptr, n, page int) (off, advised int) {
	return (page - int(addr%uintptr(page))) % page, (n + page - 1) / page * page
}

// release unmaps the memory; it may be called more than once.
func (p *mapping) release() error {
	p.once.Do(func() {
		p.err = syscall.Munmap(p.whole)
		p.data, p.whole = nil, nil
	})
	return p.err
}
