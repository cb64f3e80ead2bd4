package qwen3

import (
	"bufio"
	"bytes"

	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// anonHugeKB returns AnonHugePages of the mapping that holds addr, from /proc/self/smaps.
func anonHugeKB(t *testing.T, addr uintptr) int {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mappingRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok && in {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			return kb
		}
	}
	t.Fatalf("no mapping in /proc/self/smaps holds %#x", addr)
	return 0
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

// TestMapMemoryHuge: memory mapped with huge starts on a huge-page boundary, and its first write
// commits a whole huge page (AnonHugePages of the mapping in /proc/self/smaps); without huge it
// is not aligned on purpose and not advised. A cache of the tiny model asks for huge pages (it is
// far under hugeCacheMax), and gives it back on Close.
func TestMapMemoryHuge(t *testing.T) {
	page := cacheHugePage()
	if page == 0 {
		t.Skip("transparent huge pages are off here (/sys/kernel/mm/transparent_hugepage/enabled)")
	}
	p, err := mapMemory(3*page+4096, true)
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	addr := uintptr(unsafe.Pointer(&p.data[0]))
	if !p.huge || addr%uintptr(page) != 0 || len(p.data) != 3*page+4096 {
		t.Fatalf("mapMemory(huge): huge %v, at %#x (%% %d = %d), %d bytes", p.huge, addr, page, addr%uintptr(page), len(p.data))
	}
	p.data[0], p.data[page+1] = 1, 2 // one write in each of the first two huge pages
	if kb := anonHugeKB(t, addr); kb < 2*page>>10 {
		t.Errorf("two writes committed %d kB of huge pages, want at least %d (two pages)", kb, 2*page>>10)
	}
	q, err := mapMemory(3*page, false)
	if err != nil {
		t.Fatal(err)
	}
	defer q.release()
	if q.huge || len(q.data) != 3*page || len(q.whole) != 3*page {
		t.Errorf("mapMemory(not huge): huge %v, %d bytes of %d mapped", q.huge, len(q.data), len(q.whole))
	}

	m := loadTiny(t, reference.TinyGGUF())
	c, err := m.NewCache(64)
	if err != nil {
		t.Fatal(err)
	}
	if !c.mem.huge {
		t.Error("a cache of the tiny model's 64 tokens is not advised huge pages")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}
