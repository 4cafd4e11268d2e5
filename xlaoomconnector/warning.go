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

// Memory-pressure warnings (oom.Warning) feed the warning metrics on the job
// resource, like incidents: a warning every host of a job prints once a step
// reads as one rising count per job. A warning never counts as a failure.

func (c *xlaOOMConnector) warningsWanted() bool {
	return c.state.enabled[metricWarnings] || c.state.enabled[metricWarningPressure]
}

// addWarning files the record's warning, if it has one, under its job: from
// the processor's attributes, else found in its text (found: nil when unread).
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
	if m, known := measureWarning(w, c.dims); known {
		c.fileUnderJob(into, rl, observation{measured: m, at: recordtime.Of(lr, now)})
	}
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
