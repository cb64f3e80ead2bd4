//go:build !(linux || darwin || freebsd)

package main

// peakMemory is not measured on this system.
func peakMemory() string { return "unknown" }
