// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package promtext

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := `# HELP xla_oom_errors_total XLA out-of-memory failures seen in log records.
# TYPE xla_oom_errors_total counter
xla_oom_errors_total{host_name="tpu-train-w0",xla_error_code="E1000",odd="a \"q\" \\ b"} 2
xla_oom_pressure_ratio{host_name="serve-0"} 1.0686015831134565
up 1
xla_oom_requested_size_bytes_bucket{le="+Inf"} 3
`
	got, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d samples", len(got))
	}
	if got[0].Labels["odd"] != `a "q" \ b` || got[0].Value != 2 {
		t.Errorf("sample 0: %+v", got[0])
	}
	if got[2].Name != "up" || got[2].Value != 1 || len(got[2].Labels) != 0 {
		t.Errorf("sample 2: %+v", got[2])
	}
	if s := Sum(got, "xla_oom_errors_total", map[string]string{"xla_error_code": "E1000"}); s != 2 {
		t.Errorf("Sum = %v", s)
	}
	if k := got[1].Key(); k != `xla_oom_pressure_ratio{host_name="serve-0"}` {
		t.Errorf("Key = %s", k)
	}
}
