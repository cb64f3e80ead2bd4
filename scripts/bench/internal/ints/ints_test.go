package ints

import (
	"slices"
	"testing"
)

func TestParseJoin(t *testing.T) {
	v, err := Parse(" 128, 512,,2048 ")
	if err != nil || !slices.Equal(v, []int{128, 512, 2048}) {
		t.Fatalf("Parse: %v, %v", v, err)
	}
	if s := Join(v); s != "128,512,2048" {
		t.Errorf("Join: %q", s)
	}
	for _, bad := range []string{"12x", "-1", "1,2,three"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
}
