// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "golang.org/x/sys/cpu"

// onePassScan: this processor runs keyHits (keyscan_amd64.s).
var onePassScan = cpu.X86.HasAVX2

// keyHitsAVX2 is in keyscan_amd64.s.
//
//go:noescape
func keyHitsAVX2(s string, from int, keys *keyVectors, out *[maxKeyHits]int32) (n int, next int)

// keyHits writes to out the indexes of the key hits in s[from:len(s)-3], in
// order, and returns how many; when out fills up, next is where to go on.
// It needs minOnePassLen <= len(s) <= maxOnePassLen.
func keyHits(s string, from int, keys *keyVectors, out *[maxKeyHits]int32) (n, next int) {
	return keyHitsAVX2(s, from, keys, out)
}
