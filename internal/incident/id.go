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

// ID is the xla.oom.incident.id of a failure of the job that resource
// names (see Job), opened at t: 16 hex digits of an FNV-64a hash of the job
// identity and of t's window-long bucket since the Unix epoch. Nothing that
// tells hosts, lines or codes apart is hashed, so every host's copy of one
// failure shares it.
func ID(resource pcommon.Map, keys []string, t pcommon.Timestamp, window time.Duration) string {
	h, _ := JobKey(resource, keys)
	for _, b := range binary.BigEndian.AppendUint64(nil, uint64(t)-uint64(t)%uint64(window)) {
		h = hashByte(h, b) // the bucket: fixed width, last
	}
	return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, h))
}
