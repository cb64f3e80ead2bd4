#include "textflag.h"

// func hide(p unsafe.Pointer) unsafe.Pointer
// Returns p. Declared //go:noescape (dispatch.go tells why).
TEXT ·hide(SB), NOSPLIT, $0-16
	MOVD p+0(FP), R0
	MOVD R0, ret+8(FP)
	RET

// func hide3(a, b, c unsafe.Pointer) (unsafe.Pointer, unsafe.Pointer, unsafe.Pointer)
// Returns a, b, c: hide for three pointers in one call.
TEXT ·hide3(SB), NOSPLIT, $0-48
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD c+16(FP), R2
	MOVD R0, ret+24(FP)
	MOVD R1, ret1+32(FP)
	MOVD R2, ret2+40(FP)
	RET
