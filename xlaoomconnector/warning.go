// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// Memory-pressure warnings (oom.Warning) feed xla.memory.warnings and
// xla.memory.warning.pressure. Like incidents they belong to the job, not the
// host: their series live under the record's resource reduced to
// incident_resource_attributes, so a warning every host of a job prints once
// a step reads as one rising count per job. A warning never counts in the
// failure metrics, and a failure never counts here.

// warningsWanted reports whether any warning metric is on.
func (c *xlaOOMConnector) warningsWanted() bool {
	return c.state.enabled[metricWarnings] || c.state.enabled[metricWarningPressure]
}

// addWarning files the record's warning, if it has one, under its job
// resource: read from the attributes the xla_oom processor wrote, else the
// warning read from its text (found, when the record was read and holds no
// OOM).
func (c *xlaOOMConnector) addWarning(into map[resourceKey]*jobBatch, rl plog.ResourceLogs, lr plog.LogRecord, now time.Time, found *oom.Finding) {
	if !c.warningsWanted() {
		return
	}
	w, ok := oomattr.GetWarning(lr.Attributes())
	if !ok && found != nil && found.Found == oom.FoundWarning {
		w, ok = found.Warning, true
	}
	if !ok {
		return
	}
	m, ok := measureWarning(w, c.dims)
	if !ok {
		return
	}
	job := c.jobOf(into, rl)
	job.obs = append(job.obs, observation{measured: m, at: recordtime.Of(lr, now)})
}

// addWarnings adds a batch's warnings to the state, jobs in key order, and
// returns how many measurements went to an overflow series.
func (c *xlaOOMConnector) addWarnings(from map[resourceKey]*jobBatch, now time.Time) (overflowed int64) {
	if len(from) == 0 {
		return 0
	}
	keys := make([]resourceKey, 0, len(from))
	for k := range from {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		jw := from[k]
		overflowed += c.state.add(k, jw.resource, jw.schemaURL, jw.obs, now)
	}
	return overflowed
}

// measureWarning turns a warning into its measurement. A kind outside the
// enum (possible only on a hand-made tag) is not counted rather than let an
// arbitrary string become a dimension.
func measureWarning(w oom.Warning, dims dimensions) (measurement, bool) {
	if _, ok := metadata.MapAttributeXlaMemoryWarning[w.Kind]; !ok {
		return measurement{}, false
	}
	m := measurement{attrs: attrKey{warning: w.Kind}, warning: true}
	if dims.backend {
		m.attrs.backend = w.Backend
	}
	m.pressure, m.hasPressure = w.Pressure()
	return m, true
}

// hasWarning reports whether a warning's measurement counts in metric id.
func (m *measurement) hasWarning(id metricID) bool {
	switch id {
	case metricWarnings:
		return true
	case metricWarningPressure:
		return m.hasPressure
	}
	return false
}
