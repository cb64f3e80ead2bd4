//go:build !(linux || darwin || freebsd)

package qwen3

// mapping is a KV cache's memory. Here it comes from the Go heap (mem_mmap.go maps it from the
// operating system where it can).
type mapping struct {
	data []byte
	huge bool // never: huge pages are asked for only in mapped memory
}

// mapMemory takes n bytes from the Go heap; huge is for mapped memory and ignored here.
func mapMemory(n int, huge bool) (*mapping, error) { return &mapping{data: make([]byte, n)}, nil }

// release drops the memory for the garbage collector.
func (p *mapping) release() error {
	p.data = nil
	return nil
}
