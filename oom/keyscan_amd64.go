// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "golang.org/x/sys/cpu"

// onePassScan: this processor runs keyBlock (keyscan_amd64.s).
var onePassScan = cpu.X86.HasAVX2

// keyBlockAVX2 is in keyscan_amd64.s.
//
//go:noescape
func keyBlockAVX2(s string, from int, keys *keyVectors) (at int, hits uint32)

// keyBlock returns the first block of 32 bytes from from on that holds a
// key hit in s[from:len(s)-3]: its start and its hits, bit k for s[at+k]
// (0: none). It needs len(s) >= minOnePassLen.
func keyBlock(s string, from int, keys *keyVectors) (at int, hits uint32) {
	return keyBlockAVX2(s, from, keys)
}
