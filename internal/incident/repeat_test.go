// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

func TestRepeatJobKey(t *testing.T) {
	res := func(kv ...string) pcommon.Map {
		m := pcommon.NewMap()
		for i := 0; i < len(kv); i += 2 {
			m.PutStr(kv[i], kv[i+1])
		}
		return m
	}
	names, keys := DefaultRepeatJobAttributes(), DefaultResourceAttributes()
	for _, c := range []struct {
		name string
		res  pcommon.Map
		ok   bool
	}{
		{"a Kubernetes Job", res("k8s.namespace.name", "ml", "k8s.job.name", "train-7b"), true},
		{"a Slurm job", res("slurm.job.id", "4242"), true},
		{"a service", res("service.name", "trainer"), true},
		{"a namespace is not a job", res("k8s.namespace.name", "ml", "k8s.cluster.name", "a"), false},
		{"the SDK's default name is not a job", res("service.name", "unknown_service:python"), false},
		{"nothing", res(), false},
	} {
		if _, ok := RepeatJobKey(c.res, names, keys); ok != c.ok {
			t.Errorf("%s: ok %v", c.name, ok)
		}
	}
	a, _ := RepeatJobKey(res("k8s.namespace.name", "a", "k8s.job.name", "train"), names, keys)
	b, _ := RepeatJobKey(res("k8s.namespace.name", "b", "k8s.job.name", "train"), names, keys)
	c, _ := RepeatJobKey(res("k8s.namespace.name", "a", "k8s.job.name", "train", "k8s.pod.name", "train-x"), names, keys)
	if a == b || a != c {
		t.Errorf("keys: namespaces a %x b %x; another pod of a %x", a, b, c)
	}
}
