// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// JobKey is a 64-bit FNV-1a hash of a resource's job identity (see Job),
// allocating nothing for string values. ok is false when the resource
// names no job: nothing may be kept for it, or all such would share one.
func JobKey(resource pcommon.Map, keys []string) (key uint64, ok bool) {
	h := uint64(fnvOffset)
	for k, v := range Job(resource, keys) {
		ok = true
		// Length-prefixed name, type, length-prefixed value: no two
		// identities write the same bytes.
		h = hashString(h, k)
		h = hashByte(h, byte(v.Type()))
		if v.Type() == pcommon.ValueTypeStr {
			h = hashString(h, v.Str())
		} else {
			h = hashString(h, v.AsString())
		}
	}
	return h, ok
}

// FNV-1a, 64 bits (hash/fnv), written out so that hashing allocates nothing.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hashByte(h uint64, b byte) uint64 { return (h ^ uint64(b)) * fnvPrime }

func hashString(h uint64, s string) uint64 {
	for n := uint64(len(s)); ; n >>= 7 { // the length as a uvarint
		if n < 0x80 {
			h = hashByte(h, byte(n))
			break
		}
		h = hashByte(h, byte(n)|0x80)
	}
	for i := 0; i < len(s); i++ {
		h = hashByte(h, s[i])
	}
	return h
}

// ResourceHash and StreamOf hash a record's stream, one process's output:
// its resource (every attribute, in any order) and its file. Neither
// allocates for string values. ResourceHash is the resource's part.
func ResourceHash(resource pcommon.Map) uint64 {
	var sum uint64
	for k, v := range resource.All() {
		sum += attributeHash(k, v) // a sum: the attributes' order does not matter
	}
	return sum
}

// StreamOf is the stream of a record whose resource hashes to resourceHash.
func StreamOf(resourceHash uint64, record pcommon.Map) uint64 {
	sum := resourceHash
	for _, k := range streamRecordKeys {
		if v, ok := record.Get(k); ok {
			sum += attributeHash(k, v) * fnvPrime
		}
	}
	return sum
}

// streamRecordKeys are the record attributes that name a stream's file.
var streamRecordKeys = []string{"log.file.path", "log.file.name"}

func attributeHash(k string, v pcommon.Value) uint64 {
	h := hashString(uint64(fnvOffset), k)
	h = hashByte(h, byte(v.Type()))
	if v.Type() == pcommon.ValueTypeStr {
		return hashString(h, v.Str())
	}
	return hashString(h, v.AsString())
}
