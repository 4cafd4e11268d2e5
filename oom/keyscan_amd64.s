// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

#include "textflag.h"

// func keyBlockAVX2(s string, from int, keys *keyVectors) (at int, hits uint32)
//
// The first block of 32 bytes of s, from from on, in which a byte of
// s[from:len(s)-3] is one of the two single keys or may start the four-byte
// key (its first byte, and its last byte three bytes further): its start at
// and hits, bit k for s[at+k]; hits is 0 if there is none. The last three
// bytes of s are the caller's (they cannot start the four-byte key). Needs
// len(s) >= 35. Each block is read twice, the second time three bytes
// further; two blocks are tested at once while 64 bytes remain, and the
// last, partial block is read as the block that ends three bytes before the
// end, with the bits before from cleared.
//
// keys: Y1-Y2 the single keys, Y3 the four-byte key's first byte, Y4 its
// last, each repeated 32 times.
TEXT ·keyBlockAVX2(SB), NOSPLIT, $0-44
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), BX
	MOVQ from+16(FP), AX
	MOVQ keys+24(FP), DI
	LEAQ -3(BX), R10 // the last three bytes: not scanned here
	CMPQ AX, R10
	JGE  none
	VMOVDQU 0(DI), Y1
	VMOVDQU 32(DI), Y2
	VMOVDQU 64(DI), Y3
	VMOVDQU 96(DI), Y4
	LEAQ -35(BX), DX // the start of the last block
	LEAQ -67(BX), R11 // the start of the last pair of blocks

pairs:
	CMPQ AX, R11
	JGT  single
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 3(SI)(AX*1), Y9
	VMOVDQU 32(SI)(AX*1), Y11
	VMOVDQU 35(SI)(AX*1), Y12
	VPCMPEQB Y0, Y1, Y6
	VPCMPEQB Y0, Y2, Y7
	VPOR     Y7, Y6, Y6
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y6, Y6
	VPCMPEQB Y11, Y1, Y13
	VPCMPEQB Y11, Y2, Y7
	VPOR     Y7, Y13, Y13
	VPCMPEQB Y11, Y3, Y7
	VPCMPEQB Y12, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y13, Y13
	VPOR     Y6, Y13, Y14
	VPTEST   Y14, Y14
	JNZ      pairfound
	ADDQ     $64, AX
	JMP      pairs

pairfound:
	VPMOVMSKB Y6, CX
	TESTL     CX, CX
	JNZ       found
	ADDQ      $32, AX
	VPMOVMSKB Y13, CX
	JMP       found

single:
	CMPQ AX, DX
	JGT  tail
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 3(SI)(AX*1), Y9
	VPCMPEQB Y0, Y1, Y6
	VPCMPEQB Y0, Y2, Y7
	VPOR     Y7, Y6, Y6
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y6, Y6
	VPMOVMSKB Y6, CX
	TESTL    CX, CX
	JNZ      found
	ADDQ     $32, AX
	JMP      single

tail:
	CMPQ AX, R10
	JGE  none
	VMOVDQU (SI)(DX*1), Y0
	VMOVDQU 3(SI)(DX*1), Y9
	VPCMPEQB Y0, Y1, Y6
	VPCMPEQB Y0, Y2, Y7
	VPOR     Y7, Y6, Y6
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y6, Y6
	VPMOVMSKB Y6, R9
	// Clear the bits before from (1 to 31 of them).
	MOVQ  AX, CX
	SUBQ  DX, CX
	SHRL  CX, R9
	SHLL  CX, R9
	MOVQ  DX, at+32(FP)
	MOVL  R9, hits+40(FP)
	VZEROUPPER
	RET

found:
	MOVQ AX, at+32(FP)
	MOVL CX, hits+40(FP)
	VZEROUPPER
	RET

none:
	MOVQ AX, at+32(FP)
	MOVL $0, hits+40(FP)
	VZEROUPPER
	RET
