// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"slices"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// metricID names one of the connector's metrics; it is also their order in the output.
type metricID uint8

const (
	metricErrors metricID = iota
	metricRequested
	metricShortfall
	metricPressure
	metricIncidents
	metricWarnings        // xla.memory.warnings (warning.go)
	metricWarningPressure // xla.memory.warning.pressure (warning.go)
	metricHostKills       // xla.oom.host.kills (hostkill.go)
	numMetrics
)

// overflowAttribute marks each metric's series that takes the data beyond series_limit (the SDKs' name).
const overflowAttribute = "otel.metric.overflow"

type descriptor struct {
	name, description, unit string
}

// descriptors repeat metadata.yaml (TestDescriptorsMatchMetadata). The generated MetricsBuilder is not used: it
// has one start time for every point, a fixed temporality and no histograms.
var descriptors = [numMetrics]descriptor{
	metricErrors: {
		name: metadata.MetricsInfo.XlaOomErrors.Name,
		description: "XLA out-of-memory log records (tagged by the processor, or recognised here), per resource: " +
			"every line and every host's copy of a failure counts. Alert on xla.oom.incidents instead.",
		unit: "{error}",
	},
	// The histograms are not in metadata.yaml (mdatagen v0.158.0 cannot generate them).
	metricRequested: {
		name:        "xla.oom.requested.size",
		description: "Size of the allocation, reservation or program that did not fit, per XLA out-of-memory failure.",
		unit:        "By",
	},
	metricShortfall: {
		name: "xla.oom.shortfall.size",
		description: "How much memory was missing, per XLA out-of-memory failure: requested - free at run time, " +
			"the excess over capacity at compile time. Fragmentation failures (requested <= free) have none.",
		unit: "By",
	},
	metricPressure: {
		name: metadata.MetricsInfo.XlaOomPressure.Name,
		description: "Memory demand of the last XLA out-of-memory failure divided by what was available: " +
			"used / capacity at compile time, requested / free (or requested / capacity) at run time. " +
			"Above 1 means the program did not fit.",
		unit: "1",
	},
	metricIncidents: {
		name: metadata.MetricsInfo.XlaOomIncidents.Name,
		description: "XLA out-of-memory failures per job-level resource (a failure is the status a program fails with, " +
			"or an allocator's report of the request it could not serve; allocation attempts the driver refused and the " +
			"allocator retried are warnings and never count here) (the record resource reduced to " +
			"incident_resource_attributes): the records a job's hosts log about one failure, every line of it, " +
			"count once; records more than incident_window apart from the job's recent ones start a new incident.",
		unit: "{incident}",
	},
	metricWarnings: {
		name: metadata.MetricsInfo.XlaMemoryWarnings.Name,
		description: "Memory-pressure warnings (XLA could not rematerialize under its limit, allocator retries, " +
			"allocation attempts the driver refused such as a memory pool backing off at start-up, autotuner fallbacks, cuDNN memory figures) seen in log records, per job-level " +
			"resource (the record resource reduced to incident_resource_attributes). They are not failures and " +
			"are not counted in xla.oom.errors.",
		unit: "{warning}",
	},
	metricWarningPressure: {
		name: metadata.MetricsInfo.XlaMemoryWarningPressure.Name,
		description: "Memory demand of the last memory-pressure warning divided by its limit, per job-level " +
			"resource: peak over the limit after rematerialization, scratch request over the autotuner's limit, " +
			"used over total for cuDNN's figures. Only warnings that print a limit set it; above 1 means the " +
			"demand did not fit.",
		unit: "1",
	},
	metricHostKills: hostKillsDescriptor,
}

func (id metricID) metricType() pmetric.MetricType {
	switch id {
	case metricErrors, metricIncidents, metricWarnings, metricHostKills:
		return pmetric.MetricTypeSum
	case metricPressure, metricWarningPressure:
		return pmetric.MetricTypeGauge
	default:
		return pmetric.MetricTypeHistogram
	}
}

func (m *MetricsConfig) enabled() [numMetrics]bool {
	return [numMetrics]bool{
		metricErrors:          m.XlaOomErrors.Enabled,
		metricRequested:       m.XlaOomRequestedSize.Enabled,
		metricShortfall:       m.XlaOomShortfallSize.Enabled,
		metricPressure:        m.XlaOomPressure.Enabled,
		metricIncidents:       m.XlaOomIncidents.Enabled,
		metricWarnings:        m.XlaMemoryWarnings.Enabled,
		metricWarningPressure: m.XlaMemoryWarningPressure.Enabled,
		metricHostKills:       m.XlaOomIncidents.Enabled, // counted where incidents are
	}
}

// attrKey is the attribute set of a series, comparable to key maps; empty fields are not written.
type attrKey struct {
	code, phase, cause            string // phase and cause: xla.oom.errors only
	program, backend, memorySpace string // opt-in dimensions
	warning                       string // xla.memory.warning: warning metrics only
	retry                         string // xla.oom.retry: xla.oom.incidents and xla.oom.host.kills
	hostSource, hostConstraint    string // xla.oom.host.kills only
}

// attrNames are the attributes of attrKey's fields, in values' order.
var attrNames = [...]string{oomattr.ErrorCode, oomattr.ErrorPhase, oomattr.Cause, oomattr.Program, oomattr.Backend,
	oomattr.MemorySpace, oomattr.WarningKind, oomattr.Retry, oomattr.HostSource, oomattr.HostConstraint}

func (k attrKey) values() []string {
	return []string{k.code, k.phase, k.cause, k.program, k.backend, k.memorySpace, k.warning, k.retry, k.hostSource, k.hostConstraint}
}

func (k attrKey) putAttributes(dst pcommon.Map) {
	for i, v := range k.values() {
		if v != "" {
			dst.PutStr(attrNames[i], v)
		}
	}
}

// compare orders attribute sets field by field, for a stable output order.
func (k attrKey) compare(o attrKey) int {
	return slices.Compare(k.values(), o.values())
}

type dimensions struct {
	program, backend, memorySpace bool
}

func newDimensions(names []string) dimensions {
	return dimensions{
		program:     slices.Contains(names, oomattr.Program),
		backend:     slices.Contains(names, oomattr.Backend),
		memorySpace: slices.Contains(names, oomattr.MemorySpace),
	}
}

type measurement struct {
	attrs attrKey // the xla.oom.errors set; the others drop phase and cause (attrsFor)

	requested    int64
	hasRequested bool
	shortfall    int64
	hasShortfall bool
	pressure     float64
	hasPressure  bool

	kind measurementKind // which metrics it feeds (see feeds)
}

// measurementKind is what a measurement stands for; each kind feeds its own metrics only (feeds).
type measurementKind uint8

const (
	oomRecord     measurementKind = iota // on the record's resource
	newIncident                          // the record that opened an incident, on the job resource
	memoryWarning                        // on the job resource
	hostKill                             // on the job resource (hostkill.go)
)

// feeds reports whether the measurement's kind feeds metric id and it holds the value the metric needs.
func (m *measurement) feeds(id metricID) bool {
	switch m.kind {
	case newIncident:
		return id == metricIncidents
	case memoryWarning:
		return id == metricWarnings || (id == metricWarningPressure && m.hasPressure)
	case hostKill:
		return id == metricHostKills
	case oomRecord:
		return [numMetrics]bool{metricErrors: true, metricRequested: m.hasRequested, metricShortfall: m.hasShortfall,
			metricPressure: m.hasPressure}[id]
	}
	return false
}

// measure leaves out a phase or cause outside its enum (a hand-made tag): no arbitrary string becomes a dimension.
func measure(r oom.Report, dims dimensions) measurement {
	m := measurement{attrs: attrKey{code: r.Code, program: kept(dims.program, r.Program),
		backend: kept(dims.backend, r.Backend), memorySpace: kept(dims.memorySpace, r.MemorySpace)}, kind: oomRecord}
	if _, ok := metadata.MapAttributeXlaErrorPhase[r.Phase]; ok {
		m.attrs.phase = r.Phase
	}
	if r.Cause == oom.CauseExhaustion || r.Cause == oom.CauseFragmentation {
		m.attrs.cause = r.Cause
	}
	m.requested, m.hasRequested = bytesOf(r.Requested)
	m.shortfall, m.hasShortfall = shortfall(r)
	m.pressure, m.hasPressure = pressure(r)
	return m
}

// kept is v where its dimension is on.
func kept(on bool, v string) string {
	if on {
		return v
	}
	return ""
}

func (m measurement) attrsFor(id metricID) attrKey {
	k := m.attrs
	if id != metricErrors {
		k.phase, k.cause = "", ""
	}
	return k
}

// shortfall is how much memory was missing: the compile-time excess, else requested - free; none for
// fragmentation. Sizes are known and not negative, so nothing overflows.
func shortfall(r oom.Report) (int64, bool) {
	exceeded, hasExceeded := bytesOf(r.Exceeded)
	used, hasUsed := bytesOf(r.Used)
	capacity, hasCapacity := bytesOf(r.Capacity)
	requested, hasRequested := bytesOf(r.Requested)
	free, hasFree := bytesOf(r.Free)
	switch {
	case hasExceeded && exceeded > 0:
		return exceeded, true
	case hasUsed && hasCapacity && used > capacity:
		return used - capacity, true
	case hasRequested && hasFree && requested > free:
		return requested - free, true
	}
	return 0, false
}

// pressure is used / capacity, else requested / free, else requested / capacity.
func pressure(r oom.Report) (float64, bool) {
	used, hasUsed := bytesOf(r.Used)
	capacity, hasCapacity := bytesOf(r.Capacity)
	requested, hasRequested := bytesOf(r.Requested)
	free, hasFree := bytesOf(r.Free)
	switch {
	case hasUsed && hasCapacity && capacity > 0:
		return float64(used) / float64(capacity), true
	case hasRequested && hasFree && free > 0:
		return float64(requested) / float64(free), true
	case hasRequested && hasCapacity && capacity > 0:
		return float64(requested) / float64(capacity), true
	}
	return 0, false
}

func bytesOf(s oom.Size) (int64, bool) {
	return s.Bytes, s.Known && s.Bytes >= 0
}

func (c *xlaOOMConnector) warningsWanted() bool {
	return c.state.enabled[metricWarnings] || c.state.enabled[metricWarningPressure]
}

// addWarning files the record's warning under its job: from the processor's attributes, else found in its text.
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

// measureWarning turns a warning into its measurement; a kind outside the enum (a hand-made tag) is not counted.
func measureWarning(w oom.Warning, dims dimensions) (measurement, bool) {
	if _, ok := metadata.MapAttributeXlaMemoryWarning[w.Kind]; !ok {
		return measurement{}, false
	}
	m := measurement{attrs: attrKey{warning: w.Kind, backend: kept(dims.backend, w.Backend)}, kind: memoryWarning}
	m.pressure, m.hasPressure = w.Pressure()
	return m, true
}
