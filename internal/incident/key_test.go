// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident

import (
	"encoding/binary"
	"hash/fnv"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

func TestJobKey(t *testing.T) {
	keys := DefaultResourceAttributes()
	key := func(res ...any) uint64 {
		k, ok := JobKey(resource(res...), keys)
		assert.True(t, ok, "%v", res)
		return k
	}
	want := key("service.name", "trainer", "k8s.namespace.name", "ml", "host.name", "gpu-host-01")
	assert.Equal(t, want, key("host.name", "gpu-host-02", "k8s.namespace.name", "ml", "service.name", "trainer"), "another host of the job")
	assert.NotEqual(t, want, key("service.name", "evaluator", "k8s.namespace.name", "ml"), "another job")
	assert.NotEqual(t, want, key("service.name", "trainer"), "a job in no namespace")
	assert.NotEqual(t, key("service.name", ""), key("service.namespace", ""), "the name counts")
	assert.NotEqual(t, key("service.name", "1"), key("service.name", 1), "the type counts")
	assert.NotEqual(t, key("service.name", "ab", "service.namespace", "c"), key("service.name", "a", "service.namespace", "bc"), "values do not run together")

	_, ok := JobKey(resource("host.name", "gpu-host-01"), keys)
	assert.False(t, ok, "a resource that names no job")
	_, ok = JobKey(resource(), keys)
	assert.False(t, ok)
}

// hashString is FNV-1a (hash/fnv) over the uvarint length and the bytes.
func TestJobKeyIsFNV1a(t *testing.T) {
	long := string(make([]byte, 300)) // a two-byte length
	for _, s := range []string{"", "trainer", long} {
		h := fnv.New64a()
		_, _ = h.Write(append(binary.AppendUvarint(nil, uint64(len(s))), s...))
		assert.Equal(t, h.Sum64(), hashString(fnvOffset, s), "%d bytes", len(s))
	}
}

func TestJobKeyAllocatesNothing(t *testing.T) {
	res := resource("service.name", "trainer", "k8s.namespace.name", "ml", "host.name", "gpu-host-01")
	keys := DefaultResourceAttributes()
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = JobKey(res, keys) }))
}

func TestStreamKey(t *testing.T) {
	StreamKey := func(resource, record pcommon.Map) uint64 { return StreamOf(ResourceHash(resource), record) }
	res := func(kv ...string) pcommon.Map {
		m := pcommon.NewMap()
		for i := 0; i < len(kv); i += 2 {
			m.PutStr(kv[i], kv[i+1])
		}
		return m
	}
	none := pcommon.NewMap()
	a := StreamKey(res("service.name", "train", "host.name", "h0"), none)
	assert.Equal(t, a, StreamKey(res("host.name", "h0", "service.name", "train"), none), "order does not matter")
	assert.NotEqual(t, a, StreamKey(res("service.name", "train", "host.name", "h1"), none), "another host")
	assert.NotEqual(t, a, StreamKey(res("service.name", "train", "host.name", "h0"), res("log.file.path", "/var/log/x.log")), "a file")
	assert.NotEqual(t, StreamKey(none, res("log.file.path", "/a.log")), StreamKey(none, res("log.file.path", "/b.log")))
	assert.Equal(t, StreamKey(none, res("log.file.path", "/a.log", "other", "1")), StreamKey(none, res("log.file.path", "/a.log", "other", "2")),
		"only the file names the stream")
}
