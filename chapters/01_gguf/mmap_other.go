//go:build !(linux || darwin || freebsd)

package gguf

// load reads the whole file into memory: this platform has no syscall.Mmap.
func load(path string, o options) ([]byte, func() error, error) { return readAll(path) }
