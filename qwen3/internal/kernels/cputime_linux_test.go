package kernels

import (
	"syscall"
	"unsafe"
)

// threadCPU is the CPU time the calling thread has used, in ns (CLOCK_THREAD_CPUTIME_ID).
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0) // 3: CLOCK_THREAD_CPUTIME_ID
	return ts.Nano()
}
