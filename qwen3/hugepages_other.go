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

// adviseHuge does nothing here: there are no transparent huge pages to ask for or against.
func adviseHuge(b []byte, on bool) error { return nil }
