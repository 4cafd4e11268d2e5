// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

#include "textflag.h"

// func keyHitsAVX2(s string, from int, keys *keyVectors, out *[maxKeyHits]int32) (n int, next int)
//
// Writes to out the indexes of the bytes of s[from:len(s)-3] that are a
// single key (one comparison finds both: they differ in one bit, so a byte
// with that bit set equals their value with it) or that may start the
// four-byte key (its first byte, and its last byte three bytes further), in
// order, and returns how many; when out fills up (n == maxKeyHits), next is
// where to go on. The last three bytes of s are the caller's (they cannot
// start the four-byte key). Needs 35 <= len(s) < 1<<31. Two blocks of 32
// bytes are tested at once while 64 bytes remain, then one, and the last,
// partial block is read as the block that ends three bytes before the end,
// with the bits before from cleared.
//
// keys (keyVectors, each byte repeated 32 times): Y1 the bit the single keys
// differ in, Y2 their value with it, Y3 and Y4 the four-byte key's first and
// last bytes (slots 2 and 5).
TEXT ·keyHitsAVX2(SB), NOSPLIT, $0-56
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), BX
	MOVQ from+16(FP), AX
	MOVQ keys+24(FP), DI
	MOVQ out+32(FP), R8
	XORQ R12, R12    // hits written
	LEAQ -3(BX), R10 // the last three bytes: not scanned here
	CMPQ AX, R10
	JGE  done
	VMOVDQU 0(DI), Y1
	VMOVDQU 32(DI), Y2
	VMOVDQU 64(DI), Y3
	VMOVDQU 160(DI), Y4
	LEAQ -35(BX), DX  // the start of the last block
	LEAQ -67(BX), R11 // the start of the last pair of blocks

pairs:
	CMPQ AX, R11
	JGT  single
	LEAQ (SI)(AX*1), R13
	VMOVDQU 0(R13), Y0
	VMOVDQU 3(R13), Y9
	VPOR     Y0, Y1, Y6
	VPCMPEQB Y6, Y2, Y6
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y6, Y6
	VMOVDQU 32(R13), Y0
	VMOVDQU 35(R13), Y9
	VPOR     Y0, Y1, Y13
	VPCMPEQB Y13, Y2, Y13
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y13, Y13
	VPOR     Y6, Y13, Y14
	VPTEST   Y14, Y14
	JNZ      pairhits
	ADDQ     $64, AX
	JMP      pairs

pairhits:
	VPMOVMSKB Y6, CX
first:
	TESTL CX, CX
	JZ    firstdone
	BSFL  CX, R9
	ADDQ  AX, R9
	MOVL  R9, (R8)(R12*4)
	INCQ  R12
	CMPQ  R12, $8
	JEQ   full
	LEAL  -1(CX), R9
	ANDL  R9, CX
	JMP   first
firstdone:
	VPMOVMSKB Y13, CX
	LEAQ      32(AX), R13
second:
	TESTL CX, CX
	JZ    seconddone
	BSFL  CX, R9
	ADDQ  R13, R9
	MOVL  R9, (R8)(R12*4)
	INCQ  R12
	CMPQ  R12, $8
	JEQ   full
	LEAL  -1(CX), R9
	ANDL  R9, CX
	JMP   second
seconddone:
	ADDQ $64, AX
	JMP  pairs

single:
	CMPQ AX, DX
	JGT  tail
	LEAQ (SI)(AX*1), R13
	VMOVDQU 0(R13), Y0
	VMOVDQU 3(R13), Y9
	VPOR     Y0, Y1, Y6
	VPCMPEQB Y6, Y2, Y6
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y6, Y6
	VPMOVMSKB Y6, CX
one:
	TESTL CX, CX
	JZ    onedone
	BSFL  CX, R9
	ADDQ  AX, R9
	MOVL  R9, (R8)(R12*4)
	INCQ  R12
	CMPQ  R12, $8
	JEQ   full
	LEAL  -1(CX), R9
	ANDL  R9, CX
	JMP   one
onedone:
	ADDQ $32, AX
	JMP  single

tail:
	CMPQ AX, R10
	JGE  done
	LEAQ (SI)(DX*1), R13
	VMOVDQU 0(R13), Y0
	VMOVDQU 3(R13), Y9
	VPOR     Y0, Y1, Y6
	VPCMPEQB Y6, Y2, Y6
	VPCMPEQB Y0, Y3, Y7
	VPCMPEQB Y9, Y4, Y8
	VPAND    Y8, Y7, Y7
	VPOR     Y7, Y6, Y6
	VPMOVMSKB Y6, R9
	// Clear the bits before from (1 to 31 of them).
	MOVQ AX, CX
	SUBQ DX, CX
	SHRL CX, R9
	SHLL CX, R9
	MOVL R9, CX
last:
	TESTL CX, CX
	JZ    lastdone
	BSFL  CX, R9
	ADDQ  DX, R9
	MOVL  R9, (R8)(R12*4)
	INCQ  R12
	CMPQ  R12, $8
	JEQ   full
	LEAL  -1(CX), R9
	ANDL  R9, CX
	JMP   last
lastdone:

done:
	MOVQ R12, n+40(FP)
	MOVQ R10, next+48(FP)
	VZEROUPPER
	RET

full:
	// R9 is the last index written: go on after it.
	INCQ R9
	MOVQ R12, n+40(FP)
	MOVQ R9, next+48(FP)
	VZEROUPPER
	RET
