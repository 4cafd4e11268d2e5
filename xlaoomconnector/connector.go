// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/internal/ticker"
	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/xlaoomconnector/internal/metadata"
)

// Values of the source attribute of connector_xla_oom_records.
var (
	sourceAttributes = metric.WithAttributeSet(attribute.NewSet(attribute.String("source", "attributes")))
	sourceText       = metric.WithAttributeSet(attribute.NewSet(attribute.String("source", "text")))
)

type xlaOOMConnector struct {
	cfg       *Config
	finder    *oomrecord.Finder
	dims      dimensions
	version   string
	telemetry *metadata.TelemetryBuilder
	next      consumer.Metrics
	now       func() time.Time // the wall clock; replaced in tests

	mu    sync.Mutex // guards state
	state *state

	emitMu sync.Mutex // one emission at a time, so delta points leave in order

	ticks ticker.Loop
}

var _ connector.Logs = (*xlaOOMConnector)(nil)

func newConnector(cfg *Config, finder *oomrecord.Finder, set connector.Settings, telemetry *metadata.TelemetryBuilder, next consumer.Metrics) *xlaOOMConnector {
	return &xlaOOMConnector{
		cfg:       cfg,
		finder:    finder,
		dims:      newDimensions(cfg.Dimensions),
		version:   set.BuildInfo.Version,
		ticks:     ticker.Loop{Logger: set.Logger},
		telemetry: telemetry,
		next:      next,
		now:       time.Now,
		state:     newState(cfg),
	}
}

// Capabilities: the input is only read.
func (*xlaOOMConnector) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

// Start begins emitting every emit_interval.
func (c *xlaOOMConnector) Start(context.Context, component.Host) error {
	c.ticks.Start(c.cfg.EmitInterval, "xla_oom connector: sending metrics failed", c.emit)
	return nil
}

// Shutdown stops the ticker and sends what is held one last time, so nothing counted is lost.
func (c *xlaOOMConnector) Shutdown(ctx context.Context) error {
	c.ticks.Stop()
	err := c.emit(ctx)
	c.telemetry.Shutdown()
	return err
}

// ConsumeLogs reads a batch before the lock and applies it under it once: an emission holds all of it or none.
func (c *xlaOOMConnector) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	b := c.gather(ld, c.now())
	if b.fromAttrs+b.fromText == 0 && len(b.warnings) == 0 && len(b.incidents) == 0 && len(b.hostKills) == 0 {
		return nil
	}
	c.mu.Lock()
	// The clock is read under the lock, as emit reads it, so the state's times never go back.
	overflowed := c.apply(&b, c.now())
	size := c.state.size()
	c.mu.Unlock()

	c.telemetry.ConnectorXlaOomSeries.Record(ctx, size)
	if b.fromAttrs > 0 {
		c.telemetry.ConnectorXlaOomRecords.Add(ctx, b.fromAttrs, sourceAttributes)
	}
	if b.fromText > 0 {
		c.telemetry.ConnectorXlaOomRecords.Add(ctx, b.fromText, sourceText)
	}
	if overflowed > 0 {
		c.telemetry.ConnectorXlaOomOverflowDataPoints.Add(ctx, overflowed)
	}
	return nil
}

type batch struct {
	records []*resourceBatch // the OOM records of each record resource
	// incidents, warnings and host kills, filed under job resources (byKey)
	incidents, warnings, hostKills []*resourceBatch

	fromAttrs, fromText int64 // OOM records read from tags, and recognised in text
}

// gather reads every record of ld without the lock; arrival dates a record that carries no time.
func (c *xlaOOMConnector) gather(ld plog.Logs, arrival time.Time) batch {
	var b batch
	incidents, warnings, hostKills := map[resourceKey]*resourceBatch{}, map[resourceKey]*resourceBatch{}, map[resourceKey]*resourceBatch{}
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		var obs []observation
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				lr := lrs.At(k)
				tagged, warned, host := oomattr.MarksAll(lr.Attributes())
				if host {
					c.addHostKill(hostKills, rl, lr, arrival) // hostkill.go
					continue
				}
				var texts oomrecord.Candidates
				if !tagged && (!c.cfg.RecognizeUntagged || !c.finder.Scan(lr, &texts)) {
					if warned {
						c.addWarning(warnings, rl, lr, arrival, nil) // tagged by the processor
					}
					continue // the 99.9 %: no Report is built
				}
				found, tagged := c.read(lr, &texts, tagged, warned)
				if found.Found != oom.FoundReport {
					c.addWarning(warnings, rl, lr, arrival, &found) // no OOM: maybe a warning
					continue
				}
				r := found.Report
				at := recordtime.Of(lr, arrival)
				if countsIncident(lr) && c.state.enabled[metricIncidents] {
					// Whether it opens an incident is decided under the lock (incidentMemory).
					m := measurement{attrs: attrKey{code: r.Code, retry: retryLabel(&r)}, kind: newIncident}
					c.fileUnderJob(incidents, rl, observation{measured: m, at: at})
				}
				if lr.EventName() == oomattr.EventFailure {
					continue // its facts are its statements': measured there
				}
				if tagged {
					b.fromAttrs++
				} else {
					b.fromText++
				}
				obs = append(obs, observation{measured: measure(r, c.dims), at: at})
			}
		}
		if len(obs) > 0 {
			b.records = append(b.records, &resourceBatch{
				key: resourceKeyOf(rl.Resource(), rl.SchemaUrl()), resource: rl.Resource(), schemaURL: rl.SchemaUrl(), obs: obs,
			})
		}
	}
	b.incidents = byKey(incidents)
	b.warnings = byKey(warnings)
	b.hostKills = byKey(hostKills)
	for _, job := range slices.Concat(b.incidents, b.hostKills) {
		// In record order, so the copies of one failure or kill chain into one whatever the batch's order.
		slices.SortStableFunc(job.obs, func(a, b observation) int { return cmp.Compare(a.at, b.at) })
	}
	return b
}

// byKey returns the entries of m sorted by key, so the state sees them in one order.
func byKey(m map[resourceKey]*resourceBatch) []*resourceBatch {
	return slices.SortedFunc(maps.Values(m), func(a, b *resourceBatch) int { return cmp.Compare(a.key, b.key) })
}

// apply adds a batch to the state at now and returns how many measurements overflowed; the caller holds mu.
func (c *xlaOOMConnector) apply(b *batch, now time.Time) (overflowed int64) {
	for _, r := range slices.Concat(b.records, b.warnings) {
		overflowed += c.state.add(r, r.obs, now)
	}
	for _, job := range b.hostKills {
		overflowed += c.state.add(job, c.freshKills(job.obs, now), now) // hostkill.go
	}
	for _, job := range b.incidents {
		fresh := job.obs[:0]
		var last pcommon.Timestamp // of the latest record of the last incident opened
		for _, ob := range job.obs {
			if c.state.incidents.observe(job.key, ob.at, now) {
				fresh, last = append(fresh, ob), ob.at
			} else if n := len(fresh); n > 0 && within(last, ob.at, c.state.incidents.window) {
				settleRetry(&fresh[n-1], ob)
				last = ob.at
			}
		}
		overflowed += c.state.add(job, fresh, now)
	}
	return overflowed
}

// read returns the record's failure from its tag (no second parse), else from Scan's texts; marked, warned: MarksAll.
func (c *xlaOOMConnector) read(lr plog.LogRecord, texts *oomrecord.Candidates, marked, warned bool) (found oom.Finding, tagged bool) {
	if r, ok := oomattr.Get(lr.Attributes()); ok {
		return oom.Finding{Found: oom.FoundReport, Report: r}, true
	}
	if !c.cfg.RecognizeUntagged {
		// xla.error.code of another type, or empty, is not a tag; the text is read only when asked for.
		return oom.Finding{}, false
	}
	if marked {
		// Such a record was not scanned; it is read for a failure only.
		return c.finder.Find(lr, false), false
	}
	return c.finder.Read(texts, c.warningsWanted() && !warned), false
}

// countsIncident: a failure record counts its incident, a statement only when it names no failure (an old sender).
func countsIncident(lr plog.LogRecord) bool {
	if lr.EventName() == oomattr.EventFailure {
		return true
	}
	_, named := lr.Attributes().Get(oomattr.FailureID)
	return !named
}

// resourceBatch is what a batch holds for one resource: a record's, or its job's.
type resourceBatch struct {
	key       resourceKey
	resource  pcommon.Resource
	schemaURL string
	obs       []observation
}

func (c *xlaOOMConnector) fileUnderJob(into map[resourceKey]*resourceBatch, rl plog.ResourceLogs, ob observation) {
	res := pcommon.NewResource()
	for k, v := range incident.Job(rl.Resource().Attributes(), c.cfg.IncidentResourceAttributes) {
		v.CopyTo(res.Attributes().PutEmpty(k))
	}
	key := resourceKeyOf(res, rl.SchemaUrl())
	job := into[key]
	if job == nil {
		job = &resourceBatch{key: key, resource: res, schemaURL: rl.SchemaUrl()}
		into[key] = job
	}
	job.obs = append(job.obs, ob)
}

// emit sends the points due and settles them with the send's outcome: undelivered deltas go back into their series.
func (c *xlaOOMConnector) emit(ctx context.Context) error {
	c.emitMu.Lock()
	defer c.emitMu.Unlock()
	c.mu.Lock()
	out := c.state.collect(c.now(), c.version)
	size := c.state.size()
	c.mu.Unlock()

	c.telemetry.ConnectorXlaOomSeries.Record(ctx, size)
	if out.expired > 0 {
		c.telemetry.ConnectorXlaOomSeriesExpired.Add(ctx, out.expired)
	}
	if out.md.DataPointCount() == 0 {
		return nil
	}
	err := c.next.ConsumeMetrics(ctx, out.md)
	c.mu.Lock()
	c.state.settle(out, err == nil)
	c.mu.Unlock()
	return err
}

// resourceKey encodes a resource exactly (sorted, typed, length-prefixed): equal resources alone share series.
type resourceKey string

func resourceKeyOf(res pcommon.Resource, schemaURL string) resourceKey {
	var b strings.Builder
	writeString(&b, schemaURL)
	writeMap(&b, res.Attributes())
	return resourceKey(b.String())
}

func writeString(b *strings.Builder, s string) {
	b.WriteString(strconv.Itoa(len(s)))
	b.WriteByte(':')
	b.WriteString(s)
}

func writeMap(b *strings.Builder, m pcommon.Map) {
	keys := make([]string, 0, m.Len())
	for k := range m.All() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('{')
	for _, k := range keys {
		v, _ := m.Get(k)
		writeString(b, k)
		writeValue(b, v)
	}
	b.WriteByte('}')
}

func writeValue(b *strings.Builder, v pcommon.Value) {
	b.WriteByte(byte('0' + v.Type()))
	switch v.Type() {
	case pcommon.ValueTypeMap:
		writeMap(b, v.Map())
	case pcommon.ValueTypeSlice:
		b.WriteByte('[')
		for _, e := range v.Slice().All() {
			writeValue(b, e)
		}
		b.WriteByte(']')
	default:
		writeString(b, v.AsString())
	}
}
