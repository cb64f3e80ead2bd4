package qwen3

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fakeHuge returns this machine's hugeSystem with its memory files replaced by fakes in a
// temporary directory: /proc/meminfo saying MemAvailable kB, and a cgroup whose memory.max and
// memory.current hold max and current ("" leaves the file out).
func fakeHuge(t *testing.T, memAvailableKB, max, current string) hugeSystem {
	t.Helper()
	dir := t.TempDir()
	h := hostHuge()
	h.meminfo, h.cgroup = filepath.Join(dir, "meminfo"), filepath.Join(dir, "cgroup")
	if err := os.Mkdir(h.cgroup, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		if text == "" {
			return
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(h.meminfo, "MemTotal:       24000000 kB\nMemFree:         1000000 kB\nMemAvailable:   "+memAvailableKB+" kB\nBuffers: 5 kB\n")
	write(filepath.Join(h.cgroup, "memory.max"), max+"\n")
	write(filepath.Join(h.cgroup, "memory.current"), current+"\n")
	return h
}

// TestAvailableMemory: what the process may still take is /proc/meminfo's MemAvailable, or less
// when its cgroup caps it (memory.max less memory.current, never below 0); files that are absent
// or unreadable leave the other source to decide.
func TestAvailableMemory(t *testing.T) {
	const gb = 1 << 30
	for _, c := range []struct {
		name                string
		avail, max, current string
		want                int64
	}{
		{"no cgroup files", "8000000", "", "", 8000000 << 10},
		{"unlimited cgroup", "8000000", "max", "123456", 8000000 << 10},
		{"a cgroup limit below MemAvailable", "8000000", "1073741824", "536870912", gb / 2},
		{"a cgroup limit above MemAvailable", "1000", "1073741824", "0", 1000 << 10},
		{"a cgroup over its limit", "8000000", "1073741824", "2147483648", 0},
		{"a cgroup without memory.current", "8000000", "1073741824", "", 8000000 << 10},
		{"a garbled memory.max", "8000000", "lots", "0", 8000000 << 10},
		{"a garbled MemAvailable", "eight", "1073741824", "0", 0},
	} {
		if got := fakeHuge(t, c.avail, c.max, c.current).availableMemory(); got != c.want {
			t.Errorf("%s: %d bytes available, want %d", c.name, got, c.want)
		}
	}
	h := hostHuge()
	h.meminfo = filepath.Join(t.TempDir(), "none")
	if got := h.memAvailable(); got != 0 {
		t.Errorf("no /proc/meminfo: %d bytes available, want 0", got)
	}
}

// TestHugeSystemFiles: the huge page size is hpage_pmd_size when that is a power of two (2 MB
// otherwise), and huge pages are on when "enabled" selects always or madvise.
func TestHugeSystemFiles(t *testing.T) {
	dir := t.TempDir()
	h := hostHuge()
	h.pageSize, h.enabled = filepath.Join(dir, "hpage_pmd_size"), filepath.Join(dir, "enabled")
	for text, want := range map[string]int{"2097152\n": 2 << 20, "33554432\n": 32 << 20, "3000000\n": 2 << 20, "big\n": 2 << 20} {
		if err := os.WriteFile(h.pageSize, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := h.hugePageSize(); got != want {
			t.Errorf("hpage_pmd_size %q: huge pages of %d bytes, want %d", text, got, want)
		}
	}
	for text, want := range map[string]bool{"[always] madvise never\n": true, "always [madvise] never\n": true, "always madvise [never]\n": false} {
		if err := os.WriteFile(h.enabled, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := h.hugePagesEnabled(); got != want {
			t.Errorf("enabled %q: huge pages on %v, want %v", text, got, want)
		}
	}
}

// TestReadHugeSteps: readHuge reads a file in steps and every step lands where it belongs. With
// steps of 1 MB and 12 KB the test file (three 2 MB huge pages and a bit, 6,303,801 bytes) takes
// six steps, the last one short, and progress reports each step's end. (TestReadHuge's file fits
// in one of the 64 MB steps of this machine's reads: a loop that stops after its first step, or
// puts every step at the start, passes it.) A cancel stops the read at the next step. A file over
// half of the memory the cgroup leaves is not read at all.
func TestReadHugeSteps(t *testing.T) {
	if !hugePagesEnabled() {
		t.Skip("transparent huge pages are off here (/sys/kernel/mm/transparent_hugepage/enabled): readHuge reads nothing")
	}
	h := hostHuge()
	h.step = 1<<20 + 12<<10
	want := make([]byte, 3*h.hugePageSize()+12345)
	r := rand.New(rand.NewPCG(83, 84))
	for i := range want {
		want[i] = byte(r.Uint32())
	}
	path := filepath.Join(t.TempDir(), "w.bin")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	var ends []int64
	data, release, ok, err := h.readHuge(t.Context(), path, func(done, total int64) { ends = append(ends, done) })
	if err != nil || !ok {
		t.Fatalf("readHuge: ok %v, %v", ok, err)
	}
	defer release()
	var wantEnds []int64
	for end := h.step; ; end += h.step {
		wantEnds = append(wantEnds, min(end, int64(len(want))))
		if end >= int64(len(want)) {
			break
		}
	}
	if len(wantEnds) < 3 || !slices.Equal(ends, wantEnds) {
		t.Errorf("progress at %v, want the ends of %d steps %v", ends, len(wantEnds), wantEnds)
	}
	if i := firstDiff(data, want); i >= 0 {
		t.Fatalf("readHuge's bytes differ from the file's from byte %d (step %d)", i, int64(i)/h.step)
	}

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	reports := 0
	_, _, ok, err = h.readHuge(ctx, path, func(done, total int64) {
		if reports++; reports == 2 {
			cancel()
		}
	})
	if ok || !errors.Is(err, context.Canceled) || reports != 2 {
		t.Errorf("cancelled after the second step: ok %v, %v after %d steps; want context.Canceled after 2", ok, err, reports)
	}

	small := fakeHuge(t, "8000000", "1073741824", "1073741824") // the cgroup has no room left
	small.step = h.step
	if _, _, ok, err := small.readHuge(t.Context(), path, nil); ok || err != nil {
		t.Errorf("a cgroup with no room left: readHuge read the file (ok %v, %v)", ok, err)
	}
	roomy := fakeHuge(t, "8000000", "1073741824", "0")
	if data, release, ok, err := roomy.readHuge(t.Context(), path, nil); !ok || err != nil || !bytes.Equal(data, want) {
		t.Errorf("a cgroup with 1 GB of room: ok %v, %v", ok, err)
	} else {
		release()
	}
}

// firstDiff is the first index where a and b differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
