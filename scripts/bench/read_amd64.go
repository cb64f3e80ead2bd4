package main

import "golang.org/x/sys/cpu"

// readAVX reads n bytes from p (n a multiple of 128) with AVX2 loads and software prefetch.
//
//go:noescape
func readAVX(p *byte, n int) uint64

// read streams b once and returns a value that depends on every byte read.
func read(b []byte) uint64 {
	if cpu.X86.HasAVX2 && len(b) >= 128 {
		n := len(b) &^ 127
		return readAVX(&b[0], n) ^ readGo(b[n:])
	}
	return readGo(b)
}
