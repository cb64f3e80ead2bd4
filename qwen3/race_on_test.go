//go:build race

package qwen3

// raceEnabled: the tests run under the race detector, whose sync.Pool drops a quarter of what is
// put back (to shake out code that relies on getting an item back), so a step that reuses a
// pooled buffer allocates now and then there.
const raceEnabled = true
