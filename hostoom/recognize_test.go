// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import "testing"

// TestStructuredBodies: a journal entry's kernel line counts only from the
// kernel's transport; an Event is read by its message, else its note.
func TestStructuredBodies(t *testing.T) {
	const kernel = "Memory cgroup out of memory: Killed process 4242 (python3) total-vm:1000kB, anon-rss:900kB, file-rss:0kB, shmem-rss:0kB"
	const unit = "train.service: A process of this unit has been killed by the OOM killer."
	for _, c := range []struct {
		message, transport string
		want               Kind
	}{
		{kernel, "kernel", KernelKilled}, {kernel, "", KernelKilled}, {kernel, "stdout", KindNone},
		{unit, "journal", UnitOOM}, {"nothing here", "kernel", KindNone},
	} {
		got := KindNone
		if s, ok := JournalStatement(c.message, c.transport); ok {
			got = s.Kind
		}
		if got != c.want {
			t.Errorf("%q from %q: %v, want %v", c.message, c.transport, got, c.want)
		}
	}
	const evicted = "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi."
	for _, c := range []struct {
		message, note string
		ok            bool
	}{{evicted, "", true}, {"", evicted, true}, {"Pulled image", evicted, true}, {"Pulled image", "", false}} {
		if s, ok := EventStatement(c.message, c.note); ok != c.ok || ok && s.Kind != Eviction {
			t.Errorf("%q, %q: %v %v", c.message, c.note, s.Kind, ok)
		}
	}
}
