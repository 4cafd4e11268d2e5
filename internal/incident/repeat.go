// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident

import (
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// DefaultRepeatJobAttributes are the resource attributes that name one job
// whose attempts the repeat rule compares: a Kubernetes Job (a JobSet's
// child Job keeps its name and index across the JobSet's restarts), a
// JobSet set as k8s.jobset.name, a Slurm job, a service.
func DefaultRepeatJobAttributes() []string {
	return []string{"k8s.job.name", "k8s.jobset.name", "slurm.job.id", "service.name"}
}

// RepeatJobKey keys the history of resource's job: its incident identity
// (keys) and each of names it carries; ok is false when it carries none,
// so a namespace, a cluster or the SDK's unknown_service name no job.
func RepeatJobKey(resource pcommon.Map, names, keys []string) (key uint64, ok bool) {
	h := uint64(fnvOffset)
	for k, v := range Job(resource, names) {
		if k == "service.name" && strings.HasPrefix(v.AsString(), "unknown_service") || v.AsString() == "" {
			continue
		}
		ok = true
		h = hashAttribute(h, k, v)
	}
	if !ok {
		return 0, false
	}
	for k, v := range Job(resource, keys) {
		h = hashAttribute(h, k, v)
	}
	return h, true
}
