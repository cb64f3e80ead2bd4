package kernels

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestLevelsOfThisCPU: Supported names what this CPU has (x/sys/cpu's features), and each level
// points the tables at its own forms: at AVX512VNNI the VNNI TileQ, at AVX512 and AVX2 the AVX2
// one (red when a level's forms leak into another's).
func TestLevelsOfThisCPU(t *testing.T) {
	x := cpu.X86
	want := Generic
	switch {
	case !(x.HasAVX2 && x.HasFMA && x86HasF16C()):
	case !(x.HasAVX512F && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL):
		want = AVX2
	case !x.HasAVX512VNNI:
		want = AVX512
	default:
		want = AVX512VNNI
	}
	if Supported() != want {
		t.Errorf("Supported() = %v, this CPU's features give %v", Supported(), want)
	}
	names := map[Level]string{Generic: "", AVX2: "tileQ16x6NoMinAVX2 x4", AVX512: "tileQ16x6NoMinAVX2 x4", AVX512VNNI: "tileQ32x12NoMinVNNI"}
	for l := Generic; l <= Supported(); l++ {
		func() {
			defer Limit(l)()
			var name string
			if f := tileQOps[0].cur; f != nil {
				name = f.name
			}
			if name != names[l] {
				t.Errorf("at %v TileQ runs %q, want %q", l, name, names[l])
			}
		}()
	}
}
