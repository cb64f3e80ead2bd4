#include "textflag.h"

// func hide(p unsafe.Pointer) unsafe.Pointer
// Returns p. Declared //go:noescape (dispatch.go tells why).
TEXT ·hide(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ AX, ret+8(FP)
	RET

// func hide3(a, b, c unsafe.Pointer) (unsafe.Pointer, unsafe.Pointer, unsafe.Pointer)
// Returns a, b, c: hide for three pointers in one call.
TEXT ·hide3(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ c+16(FP), CX
	MOVQ AX, ret+24(FP)
	MOVQ BX, ret1+32(FP)
	MOVQ CX, ret2+40(FP)
	RET
