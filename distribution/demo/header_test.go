// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"strings"
	"testing"
	"time"
)

func TestHeaderTime(t *testing.T) {
	for text, want := range map[string]string{
		"E0912 07:01:12.118224   27487 pjrt_stream_executor_client.cc:2985] Execution of replica 0 failed":   "2026-09-12T07:01:12.118224Z",
		"W0912 07:00:09 bfc_allocator.cc:380] retrying":                                                      "2026-09-12T07:00:09Z",
		"2025-09-12 07:00:03.771234: W external/xla/xla/service/hlo_rematerialization.cc:3015] Can't reduce": "2026-09-12T07:00:03.771234Z",
		"2025-09-12 07:05:41,118 - ERROR - train step failed":                                                "2026-09-12T07:05:41.118Z",
		"(EngineCore_DP0 pid=896988) ERROR 09-12 07:23:02 [core.py:700] EngineCore failed":                   "2026-09-12T07:23:02Z",
		"INFO 09-12 07:20:14 [api_server.py:1000] vLLM API server version 0.10.1":                            "2026-09-12T07:20:14Z",
		"Traceback (most recent call last):":                                                                 "",
		"E0912 a glog letter without a time":                                                                 "",
	} {
		got, ok := HeaderTime(text, 2026)
		if want == "" {
			if ok {
				t.Errorf("%q: dated %s, want no header", text, got)
			}
			continue
		}
		if w, _ := time.Parse(time.RFC3339Nano, want); !ok || !got.Equal(w) {
			t.Errorf("%q: %s %v, want %s", text, got.Format(time.RFC3339Nano), ok, want)
		}
	}
}

// Every sample record starts with a header the operators date (the demo's
// records are all dated by their logs, none by when they were read).
func TestSamplesAreDated(t *testing.T) {
	recs, err := ReadRecords("logs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, ok := HeaderTime(r.Text, 2026); !ok {
			first, _, _ := strings.Cut(r.Text, "\n")
			t.Errorf("%s/%s: a record without a header: %q", r.Host, r.Job, first)
		}
	}
}
