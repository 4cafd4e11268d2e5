// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import (
	"testing"
)

func TestStrip(t *testing.T) {
	const msg = "Execution of replica 0 failed: X"
	for _, c := range []struct{ in, want string }{
		{"E0528 07:02:44.350251   27487 pjrt_stream_executor_client.cc:2826] " + msg, msg},
		{"2024-05-28 07:02:44.349554: W external/tsl/tsl/framework/bfc_allocator.cc:482] " + msg, msg},
		{"2020-05-04 09:05:40.721147: E    1578 tensorflow/compiler/xla/xla_client/xla_util.cc:76] " + msg, msg},
		{"I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136] " + msg, msg},
		{"W0905 17:27:21 hlo_rematerialization.cc:3231] " + msg, msg},
		{"E0914 cuda_executor.cc:1182] " + msg, msg},
		{"E tensorflow/compiler/xla/xla_client/xla_util.cc:88] " + msg, msg},
		{"I0922 09:49:00.854184 140053800166976 run_docker.py:193] 2021-09-22 16:49:00.853879: E external/org_tensorflow/tensorflow/compiler/xla/pjrt/pjrt_stream_executor_client.cc:2040] " + msg, msg},
		{"[1,2]<stderr>:" + msg, msg},
		{"[1,2]<stderr>:E0528 07:02:44.350251   27487 pjrt.cc:1] " + msg, msg},
		{"[rank3]:" + msg, msg},
		{"(EngineCore_DP0 pid=896988) " + msg, msg},
		{"(pid=4411) " + msg, msg},
		{"(RayWorkerWrapper pid=77, ip=10.0.0.2) " + msg, msg},
		{"(EngineCore_DP0 pid=896988) ERROR 09-19 10:23:41 [core.py:700] " + msg, msg},
		{"2025-06-03T17:44:12.301945812Z stderr F " + msg, msg},
		{"2025-06-03T17:44:12.301945812Z stderr F E0603 17:44:12.301 77 client.cc:9] " + msg, msg},
		{"2025-06-03T17:44:12+02:00 " + msg, msg},
		{"ERROR:absl:" + msg, msg},
		{"WARNING:tensorflow:" + msg, msg},
		{"2024-03-02 11:45:09,412 - root - ERROR - " + msg, msg},
		{"Nov 22 10:00:00 tpu-vm-0 python3[1234]: " + msg, msg},
		{"Feb  3 07:02:44 gpu-host kernel: " + msg, msg},
		{"Dec 31 23:59:59 h trainer[7]: E0528 07:02:44.350251 1 a.cc:1] " + msg, msg},
		// not headers: content that merely starts like one
		{msg, msg},
		{"E1000: CompileTimeHbmOom: Ran out", "E1000: CompileTimeHbmOom: Ran out"},
		{"ERROR: LoadError: RESOURCE_EXHAUSTED: x", "ERROR: LoadError: RESOURCE_EXHAUSTED: x"},
		{"  (0) Resource exhausted: x", "  (0) Resource exhausted: x"},
		{"Failed to allocate request for 1B", "Failed to allocate request for 1B"},
		{"2 root error(s) found.", "2 root error(s) found."},
		{"I0528 not a header", "I0528 not a header"},
		{"May the run succeed: yes", "May the run succeed: yes"},
		{"Out of memory allocating 1 bytes.", "Out of memory allocating 1 bytes."},
	} {
		if got := Strip(c.in); got != c.want {
			t.Errorf("stripHeaders(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
