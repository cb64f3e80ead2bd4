package kernels

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestVNNIChosen: on a CPU with AVX-512 VNNI the AVX512 level runs the VNNI TileQ (which
// TestTileQLevelsAgree holds to AVX2's bits), and AVX2 does not.
func TestVNNIChosen(t *testing.T) {
	want := Supported() >= AVX512 && cpu.X86.HasAVX512VNNI
	func() {
		defer Limit(AVX512)()
		if useVNNI != want {
			t.Errorf("at %v on this CPU (AVX-512 VNNI %v): useVNNI = %v, want %v", Active(), cpu.X86.HasAVX512VNNI, useVNNI, want)
		}
	}()
	defer Limit(AVX2)()
	if useVNNI {
		t.Error("Limit(AVX2) left the VNNI kernels on")
	}
}
