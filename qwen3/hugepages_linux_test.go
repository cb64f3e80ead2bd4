package qwen3

import (
	"bufio"
	"bytes"

	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/qwen3go/qwen3go/reference"
)

// TestReadHuge: readHuge gives the file's bytes, reports its progress up to the file's size, and
// the kernel backs the memory with huge pages (AnonHugePages of its mapping in /proc/self/smaps)
// where transparent huge pages are on. Three huge pages and a bit: at least two whole ones are
// read.
func TestReadHuge(t *testing.T) {
	if !hugePagesEnabled() {
		t.Skip("transparent huge pages are off here (/sys/kernel/mm/transparent_hugepage/enabled): readHuge reads nothing")
	}
	skipWithoutMadvise(t)
	page := hugePageSize()
	want := make([]byte, 3*page+12345)
	r := rand.New(rand.NewPCG(81, 82))
	for i := range want {
		want[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "w.bin")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	var last int64
	data, release, ok, err := readHuge(t.Context(), path, func(done, total int64) {
		if total != int64(len(want)) || done <= last || done > total {
			t.Errorf("progress %d of %d after %d, for a file of %d bytes", done, total, last, len(want))
		}
		last = done
	})
	if err != nil || !ok {
		t.Fatalf("readHuge: ok %v, %v", ok, err)
	}
	defer release()
	if last != int64(len(want)) {
		t.Errorf("progress ended at %d of %d bytes", last, len(want))
	}
	if !bytes.Equal(data, want) {
		t.Fatal("readHuge's bytes differ from the file's")
	}
	if huge := anonHugeKB(t, uintptr(unsafe.Pointer(&data[0]))); huge < 2*page>>10 {
		t.Errorf("the kernel backs %d kB of the weights with huge pages, want at least %d (two pages)", huge, 2*page>>10)
	}
}

// skipWithoutMadvise skips a test where madvise does not reach the kernel: under qemu-user
// (GOARCH=arm64 go test -exec qemu-aarch64-static) the emulator accepts MADV_HUGEPAGE and drops
// it, so no mapping gets huge pages or the kernel's mark of the advice ("hg" in VmFlags). The
// probe calls madvise itself, not the code under test, so a broken adviseHuge still fails.
func skipWithoutMadvise(t *testing.T) {
	t.Helper()
	probe, err := syscall.Mmap(-1, 0, 1<<16, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(probe)
	if err := syscall.Madvise(probe, syscall.MADV_HUGEPAGE); err != nil {
		t.Skipf("madvise(MADV_HUGEPAGE): %v", err)
	}
	if !slices.Contains(vmFlags(t, uintptr(unsafe.Pointer(&probe[0]))), "hg") {
		t.Skip("madvise(MADV_HUGEPAGE) leaves no mark in /proc/self/smaps here (an emulator such as qemu-user drops it)")
	}
}

// smapsEntry is what /proc/self/smaps says of one mapping: its address range and its lines
// ("AnonHugePages:", "VmFlags:", ...) by key.
type smapsEntry struct {
	lo, hi uintptr
	lines  map[string]string
}

// smapsOf returns the smaps entry of the mapping that holds addr.
func smapsOf(t *testing.T, addr uintptr) smapsEntry {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var e *smapsEntry
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			if e != nil {
				break // the entry after ours
			}
			if lo <= addr && addr < hi {
				e = &smapsEntry{lo: lo, hi: hi, lines: map[string]string{}}
			}
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok && e != nil {
			e.lines[k] = strings.TrimSpace(v)
		}
	}
	if e == nil {
		t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	}
	return *e
}

// anonHugeKB returns AnonHugePages of the mapping that holds addr, from /proc/self/smaps.
func anonHugeKB(t *testing.T, addr uintptr) int {
	v := smapsOf(t, addr).lines["AnonHugePages"]
	kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(v, "kB")))
	if err != nil {
		t.Fatalf("smaps: AnonHugePages %q: %v", v, err)
	}
	return kb
}

// vmFlags returns VmFlags of the mapping that holds addr, from /proc/self/smaps.
func vmFlags(t *testing.T, addr uintptr) []string {
	return strings.Fields(smapsOf(t, addr).lines["VmFlags"])
}

// vmRange returns the address range of the mapping that holds addr, from /proc/self/smaps.
func vmRange(t *testing.T, addr uintptr) (lo, hi uintptr) {
	e := smapsOf(t, addr)
	return e.lo, e.hi
}

// mappingRange reads the address range at the start of a mapping's header line in smaps.
func mappingRange(line string) (lo, hi uintptr, ok bool) {
	field, _, _ := strings.Cut(line, " ")
	a, b, found := strings.Cut(field, "-")
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	return uintptr(l), uintptr(h), err1 == nil && err2 == nil
}

// TestHugePagesSameLogits: the tiny checkpoint read into huge pages (Load's default here) and
// mapped (WithoutHugePages) decodes to the same float32 bits: the same bytes, found by the same
// parse.
func TestHugePagesSameLogits(t *testing.T) {
	if !hugePagesEnabled() {
		t.Skip("transparent huge pages are off here: Load maps the file either way")
	}
	var logits [2][][]float32
	for i, opts := range [][]LoadOption{nil, {WithoutHugePages()}} {
		m, err := Load(t.Context(), reference.TinyGGUF(), append(opts, WithThreads(2))...)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if m.HugePages() != (i == 0) {
			t.Fatalf("load %d: HugePages() = %v", i, m.HugePages())
		}
		s, err := m.NewCache(32)
		if err != nil {
			t.Fatal(err)
		}
		l, err := s.Prefill(t.Context(), []int{1, 2, 3, 4, 5})
		if err != nil {
			t.Fatal(err)
		}
		logits[i] = append(logits[i], append([]float32(nil), l...))
		for id := range 3 {
			l, err := s.Step(10 + id)
			if err != nil {
				t.Fatal(err)
			}
			logits[i] = append(logits[i], append([]float32(nil), l...))
		}
	}
	for step := range logits[0] {
		for j, v := range logits[0][step] {
			if w := logits[1][step][j]; math.Float32bits(v) != math.Float32bits(w) {
				t.Fatalf("step %d, logit %d: %v in huge pages, %v mapped", step, j, v, w)
			}
		}
	}
}

// TestMapMemoryHuge: memory mapped with huge, of at least one huge page, starts on a huge-page
// boundary, its mapping carries the kernel's mark of MADV_HUGEPAGE ("hg" in VmFlags of
// /proc/self/smaps), and its first writes commit whole huge pages (AnonHugePages; where the
// kernel finds no free huge page it falls back to 4 KB pages, so that part only logs). Without
// huge, or under one huge page, it is advised against them ("nh"), so it stays in 4 KB pages even
// where the system's setting is "always". A cache of the tiny model, far under a huge page, asks
// for none, and gives its memory back on Close.
func TestMapMemoryHuge(t *testing.T) {
	page := cacheHugePage()
	if page == 0 {
		t.Skip("transparent huge pages are off here (/sys/kernel/mm/transparent_hugepage/enabled)")
	}
	if page > hugeCacheMax {
		t.Skipf("huge pages of %d MiB (16 or 64 KB base pages): no cache takes them", page>>20)
	}
	skipWithoutMadvise(t)
	p, err := mapMemory(3*page+4096, true)
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	addr := uintptr(unsafe.Pointer(&p.data[0]))
	if !p.huge || addr%uintptr(page) != 0 || len(p.data) != 3*page+4096 {
		t.Fatalf("mapMemory(huge): huge %v, at %#x (%% %d = %d), %d bytes", p.huge, addr, page, addr%uintptr(page), len(p.data))
	}
	p.data[0], p.data[page+1], p.data[3*page+4095] = 1, 2, 3 // the first two huge pages, and the last byte
	for _, at := range []uintptr{addr, addr + uintptr(3*page+4095)} {
		if flags := vmFlags(t, at); !slices.Contains(flags, "hg") {
			t.Errorf("the mapping of byte %d of %d is not advised huge pages: VmFlags %v", at-addr, len(p.data), flags)
		}
	}
	// The last huge page, which n ends inside, is advised whole: its mapping runs to its end.
	if _, hi := vmRange(t, addr+uintptr(3*page+4095)); hi < addr+uintptr(4*page) {
		t.Errorf("the advised mapping ends at byte %d, inside the last huge page (it ends at %d)", hi-addr, 4*page)
	}
	if kb := anonHugeKB(t, addr); kb < 3*page>>10 {
		t.Logf("three writes committed %d kB of huge pages, not %d (three pages): the kernel found no free huge pages?", kb, 3*page>>10)
	}
	for _, c := range []struct {
		n    int
		huge bool
	}{{3 * page, false}, {page / 2, true}} {
		q, err := mapMemory(c.n, c.huge)
		if err != nil {
			t.Fatal(err)
		}
		q.data[0] = 1
		flags := vmFlags(t, uintptr(unsafe.Pointer(&q.data[0])))
		if q.huge || len(q.data) != c.n || len(q.whole) != c.n || !slices.Contains(flags, "nh") {
			t.Errorf("mapMemory(%d, %v): huge %v, %d bytes of %d mapped, VmFlags %v (want nh)", c.n, c.huge, q.huge, len(q.data), len(q.whole), flags)
		}
		q.release()
	}

	m := loadTiny(t, reference.TinyGGUF())
	c, err := m.NewCache(64)
	if err != nil {
		t.Fatal(err)
	}
	if c.mem.huge {
		t.Errorf("a cache of the tiny model's 64 tokens (%d bytes) is in huge pages", len(c.mem.data))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}

	// newCache's line: a model with 2 KB of float32 keys and values per token (2 layers, 2
	// key/value heads of 64), whose caches of 2,048 tokens (4 MiB) and 32,768 (64 MiB) take huge
	// pages and one of 32,784 (past hugeCacheMax) does not.
	gc := randomConfig()
	gc.MaxPositionEmbeddings = 40960
	wide := &Model{config: gc, sizes: sizesOf(gc), layers: make([]layer, gc.NumHiddenLayers), tied: true}
	one := randomMatrix(t, rand.New(rand.NewPCG(3, 3)), F32, 1, 1)
	for i := range wide.layers {
		l := &wide.layers[i]
		l.q, l.k, l.v, l.o, l.gate, l.up, l.down = one, one, one, one, one, one, one
	}
	wide.head, wide.embed = one, one
	wide.start(loadOptions{threads: 1, kv: KVFloat32})
	defer wide.pool.close()
	for i, n := range []int{2048, 32768, 32784} {
		c, err := wide.NewCache(n)
		if err != nil {
			t.Fatal(err)
		}
		size := wide.sizes.cacheBytes(KVFloat32, n)
		if want := i < 2 && size >= page; c.mem.huge != want || want != (page <= size && size <= hugeCacheMax) {
			t.Errorf("a cache of %d tokens (%d bytes): huge pages %v, want %v (hugeCacheMax %d)", n, size, c.mem.huge, want, hugeCacheMax)
		}
		c.Close()
	}
}

// TestHugeSpan: where mapMemory puts a huge-page cache in its mapping, for mappings the kernel
// may place anywhere on a 4 KB boundary (from Linux 6.7 it puts one of whole huge pages on a
// huge-page boundary, so TestMapMemoryHuge sees only off = 0): the bytes start on the first
// boundary, and the advised whole pages end inside the mapping, roundUp(n, page) + page long.
func TestHugeSpan(t *testing.T) {
	const page = 2 << 20
	for _, n := range []int{page, page + 1, 3*page + 4096, 11 * page} {
		size := (n+page-1)/page*page + page
		for _, addr := range []uintptr{0x7f0000000000, 0x7f0000001000, 0x7f00001ff000, 0x7f0000100000} {
			off, advised := hugeSpan(addr, n, page)
			if (addr+uintptr(off))%page != 0 || off >= page || advised%page != 0 || advised < n || off+advised > size {
				t.Errorf("n %d at %#x: off %d, advised %d, in a mapping of %d", n, addr, off, advised, size)
			}
		}
	}
}
