// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
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
func (c *xlaOOMConnector) addWarning(into map[resourceKey]*resourceBatch, rl plog.ResourceLogs, lr plog.LogRecord, now time.Time, found *oom.Finding) {
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

// measureWarning turns a warning into its measurement. A kind outside the
// enum (possible only on a hand-made tag) is not counted rather than let an
// arbitrary string become a dimension.
func measureWarning(w oom.Warning, dims dimensions) (measurement, bool) {
	if _, ok := metadata.MapAttributeXlaMemoryWarning[w.Kind]; !ok {
		return measurement{}, false
	}
	m := measurement{attrs: attrKey{warning: w.Kind}, kind: memoryWarning}
	if dims.backend {
		m.attrs.backend = w.Backend
	}
	m.pressure, m.hasPressure = w.Pressure()
	return m, true
}
