package qwen3

import (
	"testing"
	"time"
)

// TestStatsRates: prompt tokens per second of prefill, and tokens per second of decoding after
// the first token (which the prefill's last pass gave); no time or no tokens is a rate of 0.
func TestStatsRates(t *testing.T) {
	s := Stats{PromptTokens: 300, NewTokens: 51, Prefill: 2 * time.Second, Decode: 500 * time.Millisecond}
	if got := s.PrefillRate(); got != 150 {
		t.Errorf("PrefillRate = %v, want 150", got)
	}
	if got := s.DecodeRate(); got != 100 {
		t.Errorf("DecodeRate = %v, want 100 (50 tokens after the first in 0.5 s)", got)
	}
	if z := (Stats{NewTokens: 1, Decode: time.Second}); z.DecodeRate() != 0 || z.PrefillRate() != 0 {
		t.Errorf("one new token, no prompt: rates %v, %v; want 0, 0", z.DecodeRate(), z.PrefillRate())
	}
}
