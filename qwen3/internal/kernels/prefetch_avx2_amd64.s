#include "textflag.h"

// func prefetchL2(p *byte, n int)
//
// PREFETCHT1 for each 64-byte line of p[0:n] (n > 0): the lines come into the level-2 cache (and
// the shared level 3) without taking room in the small level 1 that the running kernel uses.
TEXT ·prefetchL2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	ADDQ SI, CX
	ANDQ $-64, SI

ploop:
	PREFETCHT1 (SI)
	ADDQ       $64, SI
	CMPQ       SI, CX
	JLT        ploop
	RET
