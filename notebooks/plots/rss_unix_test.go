//go:build unix

package plots

import (
	"runtime"
	"syscall"
)

// peakRSS is this process's largest resident set so far, in bytes.
func peakRSS() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return float64(ru.Maxrss) // bytes on macOS, kilobytes elsewhere
	}
	return float64(ru.Maxrss) * 1024
}
