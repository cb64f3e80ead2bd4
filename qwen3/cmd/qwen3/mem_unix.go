//go:build linux || darwin || freebsd

package main

import (
	"fmt"
	"runtime"
	"syscall"
)

// peakMemory is the process's peak resident set size: getrusage's ru_maxrss, which Linux and
// FreeBSD give in KiB and macOS in bytes.
func peakMemory() string {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return "unknown"
	}
	bytes := float64(ru.Maxrss) * 1024
	if runtime.GOOS == "darwin" {
		bytes = float64(ru.Maxrss)
	}
	return fmt.Sprintf("%.0f MB", bytes/1e6)
}
