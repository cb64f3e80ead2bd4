//go:build !race

package qwen3

const raceEnabled = false
