package qwen3

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// hugeSystem is what readHuge reads of the system: the files that say whether and how large
// transparent huge pages are and how much memory the process may still take, and the size of its
// reads. hostHuge gives this machine's; tests give fakes (a cgroup limit, a small step).
type hugeSystem struct {
	enabled  string // /sys/kernel/mm/transparent_hugepage/enabled
	pageSize string // /sys/kernel/mm/transparent_hugepage/hpage_pmd_size
	meminfo  string // /proc/meminfo
	cgroup   string // the process's cgroup v2 directory: memory.max, memory.current
	step     int64  // bytes read between progress reports
}

// hostHuge is this machine's hugeSystem: its files, and reads of 64 MB.
func hostHuge() hugeSystem {
	return hugeSystem{
		enabled:  "/sys/kernel/mm/transparent_hugepage/enabled",
		pageSize: "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
		meminfo:  "/proc/meminfo",
		cgroup:   "/sys/fs/cgroup",
		step:     64 << 20,
	}
}

// hugePageSize is the size of a transparent huge page: 2 MB on x86-64 and on arm64 with 4 KB
// pages, 32 MB with 16 KB pages (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size).
func hugePageSize() int { return hostHuge().hugePageSize() }

func (h hugeSystem) hugePageSize() int {
	b, err := os.ReadFile(h.pageSize)
	if n, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil && n > 0 && n&(n-1) == 0 {
		return n
	}
	return 2 << 20
}

// readHuge reads the GGUF file at path into anonymous memory that the kernel backs with
// transparent huge pages (2 MB on x86-64), and reports progress (bytes read of the file) to progress, which may be
// nil; a cancelled ctx stops it between steps of 64 MB. It reports ok = false, and reads nothing, where that cannot work: transparent huge pages
// off ("never"), or a file that does not fit in half the memory available to the process (its
// container's limit included: a private copy cannot be dropped under pressure as a mapping's pages
// can). release unmaps the memory.
//
// Why: decoding streams every weight once per token, and at 4 KB pages (a mapped file's page
// cache) 400 MB are 100,000 pages scattered over physical memory, each a TLB entry to walk and a
// boundary where the hardware prefetchers stop. In 2 MB pages the same weights are 200 pages of
// consecutive physical memory. See the package documentation for what it gains.
func readHuge(ctx context.Context, path string, progress func(done, total int64)) (data []byte, release func() error, ok bool, err error) {
	return hostHuge().readHuge(ctx, path, progress)
}

func (h hugeSystem) readHuge(ctx context.Context, path string, progress func(done, total int64)) (data []byte, release func() error, ok bool, err error) {
	if !h.hugePagesEnabled() {
		return nil, nil, false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("qwen3: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, false, fmt.Errorf("qwen3: %w", err)
	}
	size := st.Size()
	if size <= 0 || size > h.availableMemory()/2 || int64(int(size)) != size {
		return nil, nil, false, nil
	}
	hugePage := h.hugePageSize()
	n := (int(size) + hugePage - 1) &^ (hugePage - 1)
	mem, err := syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil, false, nil // no room for a copy: the mapping still works
	}
	unmap := func() error { return syscall.Munmap(mem) }
	off := (hugePage - int(uintptr(unsafe.Pointer(&mem[0]))%uintptr(hugePage))) % hugePage // the first huge-page boundary
	region := mem[off : off+n]
	if err := syscall.Madvise(region, syscall.MADV_HUGEPAGE); err != nil {
		unmap()
		return nil, nil, false, nil
	}
	for done := int64(0); done < size; {
		if err := ctx.Err(); err != nil {
			unmap()
			return nil, nil, false, err
		}
		end := min(done+h.step, size)
		if _, err := io.ReadFull(f, region[done:end]); err != nil {
			unmap()
			return nil, nil, false, fmt.Errorf("qwen3: reading %s at byte %d of %d: %w", path, done, size, err)
		}
		done = end
		if progress != nil {
			progress(done, size)
		}
	}
	// The weights are read-only from here on, as they are in a read-only mapping.
	if err := syscall.Mprotect(region, syscall.PROT_READ); err != nil {
		unmap()
		return nil, nil, false, fmt.Errorf("qwen3: protecting the weights of %s: %w", path, err)
	}
	return region[:size], unmap, true, nil
}

// cacheHugePage is the size of a transparent huge page where memory advised with MADV_HUGEPAGE
// gets them (hugePagesEnabled), 0 where it does not: what mapMemory aligns a KV cache to.
func cacheHugePage() int {
	if !hugePagesEnabled() {
		return 0
	}
	return hugePageSize()
}

// adviseHuge asks the kernel to back b, which starts on a page boundary, with transparent huge
// pages (on: madvise MADV_HUGEPAGE) or never to (MADV_NOHUGEPAGE).
func adviseHuge(b []byte, on bool) error {
	if on {
		return syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
	return syscall.Madvise(b, syscall.MADV_NOHUGEPAGE)
}

// hugePagesEnabled reports whether memory advised with MADV_HUGEPAGE gets transparent huge pages:
// /sys/kernel/mm/transparent_hugepage/enabled set to "always" or "madvise".
func hugePagesEnabled() bool { return hostHuge().hugePagesEnabled() }

func (h hugeSystem) hugePagesEnabled() bool {
	b, err := os.ReadFile(h.enabled)
	return err == nil && (bytes.Contains(b, []byte("[always]")) || bytes.Contains(b, []byte("[madvise]")))
}

// availableMemory is the memory this process may still take, in bytes: MemAvailable of
// /proc/meminfo, or less where a cgroup (v2) limits the process (a container): its memory.max less
// memory.current. 0 when /proc/meminfo cannot be read.
func (h hugeSystem) availableMemory() int64 {
	avail := h.memAvailable()
	limit, err1 := os.ReadFile(filepath.Join(h.cgroup, "memory.max"))
	used, err2 := os.ReadFile(filepath.Join(h.cgroup, "memory.current"))
	if err1 == nil && err2 == nil {
		m, errM := strconv.ParseInt(strings.TrimSpace(string(limit)), 10, 64) // "max" when unlimited
		c, errC := strconv.ParseInt(strings.TrimSpace(string(used)), 10, 64)
		if errM == nil && errC == nil {
			avail = min(avail, max(0, m-c))
		}
	}
	return avail
}

// memAvailable is MemAvailable of /proc/meminfo in bytes (0 when it cannot be read).
func (h hugeSystem) memAvailable() int64 {
	f, err := os.Open(h.meminfo)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
