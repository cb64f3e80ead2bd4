//go:build !linux

package qwen3

import "context"

// readHuge reads nothing here: transparent huge pages are a Linux feature (see
// hugepages_linux.go), so the weights stay in the mapped file.
func readHuge(ctx context.Context, path string, progress func(done, total int64)) (data []byte, release func() error, ok bool, err error) {
	return nil, nil, false, nil
}

// cacheHugePage is 0: no transparent huge pages here, so a KV cache is mapped in ordinary pages.
func cacheHugePage() int { return 0 }

// adviseHuge does nothing here (cacheHugePage is 0, so it is not called).
func adviseHuge(b []byte) error { return nil }
