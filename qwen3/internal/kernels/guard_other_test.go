//go:build !unix

package kernels

// guardModes: this system's tests do not map pages (no syscall.Mmap and Mprotect), so only the
// padded mode runs.
var guardModes = []bufMode{padded}

func guardedBytes(n int, after bool) ([]byte, func()) {
	panic("kernels: guard pages need a unix system")
}
