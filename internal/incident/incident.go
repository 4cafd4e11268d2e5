// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package incident is the processor's and the connector's one definition
// of an incident, one failure of one job, and of xla.oom.incident.id.
package incident // import "github.com/xlaoom/xlaoomprocessor/internal/incident"

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
)

// DefaultWindow is the incident window: a failure's records come within seconds; a restart fails later.
const DefaultWindow = time.Minute

// DefaultResourceAttributes identify a job, not a host.
func DefaultResourceAttributes() []string {
	return []string{
		"service.name", "service.namespace", "deployment.environment.name", "deployment.environment",
		"k8s.cluster.name", "k8s.namespace.name", "k8s.job.name", "k8s.cronjob.name", "cloud.account.id", "cloud.region",
	}
}

// ValidateWindow checks an incident_window value.
func ValidateWindow(window time.Duration) error {
	if window <= 0 {
		return fmt.Errorf("incident_window: must be positive, got %s", window)
	}
	return nil
}

// ValidateResourceAttributes checks incident_resource_attributes.
func ValidateResourceAttributes(keys []string) []error {
	var errs []error
	if len(keys) == 0 {
		errs = append(errs, errors.New("incident_resource_attributes: must name at least one attribute, "+
			"or the incidents of every job would merge into one"))
	}
	return append(errs, keylist.Validate("incident_resource_attributes", keys)...)
}

// JobKey is a 64-bit FNV-1a hash of a resource's job identity (see Job);
// ok is false when it names no job (all such would share one key).
func JobKey(resource pcommon.Map, keys []string) (key uint64, ok bool) {
	h := uint64(fnvOffset)
	for k, v := range Job(resource, keys) {
		ok = true
		h = hashAttribute(h, k, v)
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

// ResourceHash is the resource's part of a stream's hash (StreamOf): every
// attribute, in any order.
func ResourceHash(resource pcommon.Map) uint64 {
	var sum uint64
	for k, v := range resource.All() {
		sum += hashAttribute(fnvOffset, k, v) // a sum: the attributes' order does not matter
	}
	return sum
}

// StreamOf is the stream of a record whose resource hashes to resourceHash.
func StreamOf(resourceHash uint64, record pcommon.Map) uint64 {
	sum := resourceHash
	for _, k := range streamRecordKeys {
		if v, ok := record.Get(k); ok {
			sum += hashAttribute(fnvOffset, k, v) * fnvPrime
		}
	}
	return sum
}

// streamRecordKeys are the record attributes that name a stream's file.
var streamRecordKeys = []string{"log.file.path", "log.file.name"}

// hashAttribute hashes the length-prefixed name, the type and the
// length-prefixed value: no two attributes write the same bytes.
func hashAttribute(h uint64, k string, v pcommon.Value) uint64 {
	h = hashString(h, k)
	h = hashByte(h, byte(v.Type()))
	if v.Type() == pcommon.ValueTypeStr {
		return hashString(h, v.Str())
	}
	return hashString(h, v.AsString())
}

// Job yields the job identity of a resource: each of keys it carries, with
// its value, in the order of keys.
func Job(resource pcommon.Map, keys []string) iter.Seq2[string, pcommon.Value] {
	return func(yield func(string, pcommon.Value) bool) {
		for _, k := range keys {
			if v, ok := resource.Get(k); ok && !yield(k, v) {
				return
			}
		}
	}
}

// ID is the xla.oom.incident.id of a failure of resource's job opened at t:
// 16 hex digits of an FNV-64a hash of the job identity and t's window-long
// bucket, so every host's copy of one failure shares it.
func ID(resource pcommon.Map, keys []string, t pcommon.Timestamp, window time.Duration) string {
	h, _ := JobKey(resource, keys)
	for _, b := range binary.BigEndian.AppendUint64(nil, uint64(t)-uint64(t)%uint64(window)) {
		h = hashByte(h, b) // the bucket: fixed width, last
	}
	return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, h))
}
