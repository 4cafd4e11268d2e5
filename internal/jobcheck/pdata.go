// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package jobcheck

import (
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

// RecordOf is what Check reads of a processed log record: its body, event
// name and attributes.
func RecordOf(body, event string, attrs pcommon.Map) Record {
	r := Record{Body: body, Event: event}
	str := func(k string) string {
		if v, ok := attrs.Get(k); ok {
			return v.AsString()
		}
		return ""
	}
	integer := func(k string) (int64, bool) {
		if v, ok := attrs.Get(k); ok && v.Type() == pcommon.ValueTypeInt {
			return v.Int(), true
		}
		return 0, false
	}
	r.ErrorCode, r.WarningKind, r.IncidentID = str(oomattr.ErrorCode), str(oomattr.WarningKind), str(oomattr.Incident)
	r.Retry = str(oomattr.Retry)
	r.FailureID, r.Holder = str(oomattr.FailureID), str(oomattr.HolderProgram)
	r.Site.File, r.Site.Function = str(oomattr.CodeFilePath), str(oomattr.CodeFunctionName)
	r.Site.Line, _ = integer(oomattr.CodeLineNumber)
	r.Requested, r.HasRequested = integer(oomattr.Requested)
	r.Attempts, _ = integer(AttemptsAttr)
	return r
}

// Sums are the connector's cumulative sums per job (service.name): the last
// value of each series, added over a job's series.
type Sums struct {
	last map[string]int64      // series -> its last value
	of   map[string]seriesName // series -> what it counts
}

// seriesName is what a series counts: of which job, which metric (with the
// warning kind), and its xla.oom.retry label.
type seriesName struct{ job, metric, retry string }

// Add reads one emission of the connector.
func (s *Sums) Add(md pmetric.Metrics) {
	if s.last == nil {
		s.last, s.of = map[string]int64{}, map[string]seriesName{}
	}
	for i := 0; i < md.ResourceMetrics().Len(); i++ {
		rm := md.ResourceMetrics().At(i)
		job := ""
		if v, ok := rm.Resource().Attributes().Get("service.name"); ok {
			job = v.AsString()
		}
		resource := attrKey(rm.Resource().Attributes())
		for j := 0; j < rm.ScopeMetrics().Len(); j++ {
			ms := rm.ScopeMetrics().At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				m := ms.At(k)
				if m.Type() != pmetric.MetricTypeSum {
					continue
				}
				for d := 0; d < m.Sum().DataPoints().Len(); d++ {
					dp := m.Sum().DataPoints().At(d)
					name := m.Name()
					if kind, ok := dp.Attributes().Get(oomattr.WarningKind); ok {
						name += "/" + kind.AsString()
					}
					retry := ""
					if v, ok := dp.Attributes().Get(oomattr.Retry); ok {
						retry = v.AsString()
					}
					series := resource + "|" + m.Name() + "|" + attrKey(dp.Attributes())
					s.last[series] = dp.IntValue()
					s.of[series] = seriesName{job, name, retry}
				}
			}
		}
	}
}

// get adds the last values of job's series of metric.
func (s *Sums) get(job, metric string) int64 {
	var n int64
	for series, v := range s.last {
		if of := s.of[series]; of.job == job && of.metric == metric {
			n += v
		}
	}
	return n
}

// byRetry adds the last values of job's series of metric by their
// xla.oom.retry label.
func (s *Sums) byRetry(job, metric string) map[string]int64 {
	out := map[string]int64{}
	for series, v := range s.last {
		if of := s.of[series]; of.job == job && of.metric == metric && v != 0 {
			out[of.retry] += v
		}
	}
	return out
}

// Observed is what the connector counted for job, with its records.
func (s *Sums) Observed(job string, records []Record) Observed {
	return Observed{
		Records:          records,
		Incidents:        s.get(job, "xla.oom.incidents"),
		IncidentsByRetry: s.byRetry(job, "xla.oom.incidents"),
		AttemptWarnings:  s.get(job, "xla.memory.warnings/"+AttemptWarning),
	}
}

// attrKey is a map's attributes in a stable form.
func attrKey(m pcommon.Map) string {
	keys := make([]string, 0, m.Len())
	for k, v := range m.All() {
		keys = append(keys, k+"="+v.AsString())
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}
