//go:build !linux

package main

// readBuffer returns size bytes of the Go heap (huge pages are a Linux matter: buffer_linux.go).
func readBuffer(size int) []byte { return make([]byte, size) }
