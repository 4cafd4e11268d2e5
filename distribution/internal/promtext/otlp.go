// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package promtext

// The demo shows the connector's metrics without a Prometheus exporter (its
// dependencies would triple the demo collector's build): it reads what the
// file exporter wrote and names each series the way the prometheus exporter
// does with resource_to_telemetry_conversion (the end-to-end tests scrape the
// real exporter: e2e TestDemoMetricsAsPrometheusNamesThem compares the two).

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// FromOTLP turns the data points of md into samples named as the prometheus
// exporter names them: dots become underscores, the unit becomes a suffix
// (By: _bytes; 1 on a gauge: _ratio; {annotations}: none), a monotonic sum
// gets _total and a histogram _bucket{le}, _sum and _count. Each sample's
// labels are the point's attributes and its resource's, with the same
// renaming; the exporter's job, instance and otel_scope_* labels are not made
// up. A series that appears more than once (the file exporter writes every
// emission) keeps its newest point: the counters are cumulative.
func FromOTLP(md pmetric.Metrics) []Sample {
	newest := map[string]Sample{}
	at := map[string]pcommon.Timestamp{}
	var order []string
	add := func(s Sample, t pcommon.Timestamp) {
		k := s.Key()
		if old, ok := at[k]; ok && old > t {
			return
		} else if !ok {
			order = append(order, k)
		}
		newest[k], at[k] = s, t
	}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		rm := md.ResourceMetrics().At(i)
		res := rm.Resource().Attributes()
		for j := 0; j < rm.ScopeMetrics().Len(); j++ {
			ms := rm.ScopeMetrics().At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				eachSample(ms.At(k), res, add)
			}
		}
	}
	out := make([]Sample, 0, len(order))
	for _, k := range order {
		out = append(out, newest[k])
	}
	return out
}

func eachSample(m pmetric.Metric, res pcommon.Map, add func(Sample, pcommon.Timestamp)) {
	labels := func(attrs pcommon.Map) map[string]string {
		l := map[string]string{}
		for _, a := range []pcommon.Map{res, attrs} { // a point's attribute wins over its resource's
			a.Range(func(k string, v pcommon.Value) bool {
				l[LabelName(k)] = v.AsString()
				return true
			})
		}
		return l
	}
	number := func(p pmetric.NumberDataPoint) float64 {
		if p.ValueType() == pmetric.NumberDataPointValueTypeInt {
			return float64(p.IntValue())
		}
		return p.DoubleValue()
	}
	switch m.Type() {
	case pmetric.MetricTypeGauge:
		name := MetricName(m.Name(), m.Unit(), m.Type(), false)
		for i := 0; i < m.Gauge().DataPoints().Len(); i++ {
			p := m.Gauge().DataPoints().At(i)
			add(Sample{Name: name, Labels: labels(p.Attributes()), Value: number(p)}, p.Timestamp())
		}
	case pmetric.MetricTypeSum:
		name := MetricName(m.Name(), m.Unit(), m.Type(), m.Sum().IsMonotonic())
		for i := 0; i < m.Sum().DataPoints().Len(); i++ {
			p := m.Sum().DataPoints().At(i)
			add(Sample{Name: name, Labels: labels(p.Attributes()), Value: number(p)}, p.Timestamp())
		}
	case pmetric.MetricTypeHistogram:
		name := MetricName(m.Name(), m.Unit(), m.Type(), false)
		for i := 0; i < m.Histogram().DataPoints().Len(); i++ {
			p := m.Histogram().DataPoints().At(i)
			add(Sample{Name: name + "_count", Labels: labels(p.Attributes()), Value: float64(p.Count())}, p.Timestamp())
			add(Sample{Name: name + "_sum", Labels: labels(p.Attributes()), Value: p.Sum()}, p.Timestamp())
			var cum uint64
			for b := 0; b < p.BucketCounts().Len(); b++ {
				cum += p.BucketCounts().At(b)
				le := math.Inf(1)
				if b < p.ExplicitBounds().Len() {
					le = p.ExplicitBounds().At(b)
				}
				l := labels(p.Attributes())
				l["le"] = strconv.FormatFloat(le, 'g', -1, 64)
				if math.IsInf(le, 1) {
					l["le"] = "+Inf"
				}
				add(Sample{Name: name + "_bucket", Labels: l, Value: float64(cum)}, p.Timestamp())
			}
		}
	}
}

// units are the suffixes the Prometheus naming gives the UCUM units the
// collector's components use most.
var units = map[string]string{
	"By": "bytes", "KiBy": "kibibytes", "MiBy": "mebibytes", "GiBy": "gibibytes",
	"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds",
	"%": "percent",
}

// MetricName is the name the prometheus exporter gives an OTLP metric (with
// its default add_metric_suffixes): the words of the name joined by
// underscores, then the unit's suffix and _total, each unless already there.
func MetricName(name, unit string, typ pmetric.MetricType, monotonic bool) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	suffix := func(w string) {
		if w != "" && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	// A unit in braces is an annotation ({error}): it names no suffix.
	u := strings.TrimSpace(annotation.ReplaceAllString(unit, ""))
	switch {
	case u == "1" && typ == pmetric.MetricTypeGauge:
		suffix("ratio")
	case u == "" || u == "1":
	case units[u] != "":
		suffix(units[u])
	default:
		for _, w := range strings.FieldsFunc(strings.ReplaceAll(u, "/", " per "), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			suffix(w)
		}
	}
	if typ == pmetric.MetricTypeSum && monotonic {
		suffix("total")
	}
	return strings.Join(words, "_")
}

var annotation = regexp.MustCompile(`\{[^}]*\}`)

// LabelName is the label an attribute key becomes: every character outside
// [a-zA-Z0-9_] an underscore, and a leading digit behind key_.
func LabelName(key string) string {
	l := []rune(key)
	for i, r := range l {
		if r != '_' && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			l[i] = '_'
		}
	}
	if len(l) > 0 && l[0] >= '0' && l[0] <= '9' {
		return "key_" + string(l)
	}
	return string(l)
}

// ReadMetricsFile reads a file exporter's JSON-lines metrics (one OTLP/JSON
// request per line) into samples, the newest point of each series. A missing
// file has none.
func ReadMetricsFile(path string) ([]Sample, error) {
	all := pmetric.NewMetrics()
	var u pmetric.JSONUnmarshaler
	err := records.EachLine(path, func(n int, line []byte) error {
		md, err := u.UnmarshalMetrics(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
		md.ResourceMetrics().MoveAndAppendTo(all.ResourceMetrics())
		return nil
	})
	if err != nil {
		return nil, err
	}
	return FromOTLP(all), nil
}
