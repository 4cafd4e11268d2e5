// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident // import "github.com/xlaoom/xlaoomprocessor/internal/incident"

import (
	"encoding/binary"
	"encoding/hex"
	"iter"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// Job yields the job identity of a resource: each of keys that the resource
// carries, with its value, in the order of keys. Every other resource
// attribute (host.name, k8s.pod.name, ...) is left out.
func Job(resource pcommon.Map, keys []string) iter.Seq2[string, pcommon.Value] {
	return func(yield func(string, pcommon.Value) bool) {
		for _, k := range keys {
			if v, ok := resource.Get(k); ok && !yield(k, v) {
				return
			}
		}
	}
}

// ID is the xla.oom.incident.id of a failure record of the job that resource
// names (see Job), logged at record time t: 16 hex digits of an FNV-64a hash
// of the job identity and of the start of the window-long time bucket that
// holds t (t floored to a multiple of window since the Unix epoch).
//
// Every host's copy of one failure, and every line of it, gets the same ID,
// since nothing that tells hosts, lines or codes apart is hashed: the
// allocator's E0007 line and the runtime's E0100 status of one failure are
// one incident. Failures of different jobs, or of one job in different
// buckets, get different IDs. The processor gives t as the time the job's
// failure opened (failure.Failure.Opened), so that a failure that straddles
// a bucket edge keeps one ID.
func ID(resource pcommon.Map, keys []string, t pcommon.Timestamp, window time.Duration) string {
	h, _ := JobKey(resource, keys)
	for _, b := range binary.BigEndian.AppendUint64(nil, uint64(t)-uint64(t)%uint64(window)) {
		h = hashByte(h, b) // the bucket: fixed width, last
	}
	return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, h))
}
