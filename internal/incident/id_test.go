// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

func resource(kv ...any) pcommon.Map {
	m := pcommon.NewMap()
	for i := 0; i < len(kv); i += 2 {
		_ = m.PutEmpty(kv[i].(string)).FromRaw(kv[i+1])
	}
	return m
}

func TestID(t *testing.T) {
	keys := DefaultResourceAttributes()
	base := pcommon.NewTimestampFromTime(time.Date(2025, 11, 22, 10, 0, 10, 0, time.UTC))
	id := func(res pcommon.Map, at time.Duration) string {
		return ID(res, keys, base+pcommon.Timestamp(at), DefaultWindow)
	}
	host1 := resource("service.name", "trainer", "k8s.namespace.name", "ml", "host.name", "tpu-host-01", "k8s.pod.name", "p1")
	host2 := resource("host.name", "tpu-host-02", "k8s.namespace.name", "ml", "service.name", "trainer")
	want := id(host1, 0)

	assert.Len(t, want, 16)
	assert.Equal(t, want, id(host2, 40*time.Second), "another host of the job, later in the same bucket")
	assert.NotEqual(t, want, id(host1, 50*time.Second), "the next bucket")
	assert.NotEqual(t, want, id(host1, time.Hour), "another failure of the job")
	assert.NotEqual(t, want, id(resource("service.name", "evaluator", "k8s.namespace.name", "ml"), 0), "another job")
	assert.NotEqual(t, want, id(resource("service.name", "trainer"), 0), "a job in no namespace")
	assert.NotEqual(t, id(resource("service.name", ""), 0), id(resource(), 0), "an empty value is not an absent one")
	assert.NotEqual(t, id(resource("service.name", "1"), 0), id(resource("service.name", 1), 0), "the type counts")
	assert.NotEqual(t,
		id(resource("service.name", "ab", "service.namespace", "c"), 0),
		id(resource("service.name", "a", "service.namespace", "bc"), 0), "values cannot run into each other")
	assert.Equal(t, id(resource("host.name", "a"), 0), id(resource("host.name", "b"), 0),
		"attributes outside the list are not part of the job")
}

func TestJob(t *testing.T) {
	res := resource("k8s.job.name", "train-7", "host.name", "h", "service.name", "trainer")
	var got []string
	for k, v := range Job(res, DefaultResourceAttributes()) {
		got = append(got, k+"="+v.AsString())
	}
	assert.Equal(t, []string{"service.name=trainer", "k8s.job.name=train-7"}, got, "the configured order, host.name left out")
}
