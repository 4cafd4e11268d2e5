// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package promtext

import (
	"os"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// The names the connector's metrics have in Prometheus (README, alert rules).
func TestMetricName(t *testing.T) {
	for _, c := range []struct {
		name, unit string
		typ        pmetric.MetricType
		monotonic  bool
		want       string
	}{
		{"xla.oom.errors", "{error}", pmetric.MetricTypeSum, true, "xla_oom_errors_total"},
		{"xla.oom.incidents", "{incident}", pmetric.MetricTypeSum, true, "xla_oom_incidents_total"},
		{"xla.memory.warnings", "{warning}", pmetric.MetricTypeSum, true, "xla_memory_warnings_total"},
		{"xla.oom.pressure", "1", pmetric.MetricTypeGauge, false, "xla_oom_pressure_ratio"},
		{"xla.memory.warning.pressure", "1", pmetric.MetricTypeGauge, false, "xla_memory_warning_pressure_ratio"},
		{"xla.oom.requested.size", "By", pmetric.MetricTypeHistogram, false, "xla_oom_requested_size_bytes"},
		{"queue.size", "By", pmetric.MetricTypeSum, false, "queue_size_bytes"},
		{"http.server.duration", "ms", pmetric.MetricTypeHistogram, false, "http_server_duration_milliseconds"},
		{"requests_total", "", pmetric.MetricTypeSum, true, "requests_total"},
		{"bytes.sent", "By/s", pmetric.MetricTypeGauge, false, "bytes_sent_By_per_s"},
	} {
		if got := MetricName(c.name, c.unit, c.typ, c.monotonic); got != c.want {
			t.Errorf("MetricName(%q, %q) = %q, want %q", c.name, c.unit, got, c.want)
		}
	}
	for key, want := range map[string]string{"host.name": "host_name", "xla.error.code": "xla_error_code", "2x": "key_2x", "a-b c": "a_b_c"} {
		if got := LabelName(key); got != want {
			t.Errorf("LabelName(%q) = %q, want %q", key, got, want)
		}
	}
}

// Two emissions of the same counter (the file exporter appends each): the
// newer point is the series' value; labels come from the resource and the
// point; histogram buckets are cumulative.
func TestReadMetricsFile(t *testing.T) {
	emission := func(at int64, errors int64, counts []uint64) []byte {
		md := pmetric.NewMetrics()
		rm := md.ResourceMetrics().AppendEmpty()
		rm.Resource().Attributes().PutStr("host.name", "tpu-train-w0")
		ms := rm.ScopeMetrics().AppendEmpty().Metrics()
		m := ms.AppendEmpty()
		m.SetName("xla.oom.errors")
		m.SetUnit("{error}")
		m.SetEmptySum().SetIsMonotonic(true)
		p := m.Sum().DataPoints().AppendEmpty()
		p.SetTimestamp(pcommon.Timestamp(at))
		p.SetIntValue(errors)
		p.Attributes().PutStr("xla.error.code", "E1000")
		h := ms.AppendEmpty()
		h.SetName("xla.oom.requested.size")
		h.SetUnit("By")
		hp := h.SetEmptyHistogram().DataPoints().AppendEmpty()
		hp.SetTimestamp(pcommon.Timestamp(at))
		hp.ExplicitBounds().FromRaw([]float64{1 << 30})
		hp.BucketCounts().FromRaw(counts)
		hp.SetCount(counts[0] + counts[1])
		hp.SetSum(float64(3 << 30))
		var m2 pmetric.JSONMarshaler
		b, err := m2.MarshalMetrics(md)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, '\n')
	}
	path := filepath.Join(t.TempDir(), "metrics.json")
	// The newer emission first: order in the file does not decide, time does.
	content := append(emission(2000, 3, []uint64{1, 1}), emission(1000, 1, []uint64{0, 1})...)
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMetricsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		`xla_oom_errors_total{host_name="tpu-train-w0",xla_error_code="E1000"}`:              3,
		`xla_oom_requested_size_bytes_count{host_name="tpu-train-w0"}`:                       2,
		`xla_oom_requested_size_bytes_sum{host_name="tpu-train-w0"}`:                         3 << 30,
		`xla_oom_requested_size_bytes_bucket{host_name="tpu-train-w0",le="1.073741824e+09"}`: 1,
		`xla_oom_requested_size_bytes_bucket{host_name="tpu-train-w0",le="+Inf"}`:            2,
	}
	if len(got) != len(want) {
		t.Errorf("%d samples, want %d: %v", len(got), len(want), got)
	}
	for _, s := range got {
		if v, ok := want[s.Key()]; !ok || v != s.Value {
			t.Errorf("%s = %v, want %v (listed: %v)", s.Key(), s.Value, v, ok)
		}
	}
	if _, err := ReadMetricsFile(filepath.Join(t.TempDir(), "none.json")); err != nil {
		t.Errorf("a missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMetricsFile(path); err == nil {
		t.Error("a line that is not OTLP/JSON: no error")
	}
}
