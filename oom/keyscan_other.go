// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

//go:build !amd64

package oom

// onePassScan: no one-pass scan on this architecture; MayContain makes one
// strings.IndexByte pass per key.
const onePassScan = false

func keyHits(string, int, *keyVectors, *[maxKeyHits]int32) (int, int) {
	panic("oom: no one-pass key scan on this architecture")
}
