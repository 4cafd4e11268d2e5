// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
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
	desc      [numMetrics]descriptor
	version   string
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder
	next      consumer.Metrics
	now       func() time.Time // the wall clock; replaced in tests

	mu    sync.Mutex // guards state
	state *state

	emitMu sync.Mutex // one emission at a time, so delta points leave in order

	stopOnce sync.Once
	done     chan struct{}
	wg       sync.WaitGroup
	// cancelSends aborts a send of the ticker that a blocked downstream
	// holds, so Shutdown does not wait for it.
	cancelSends context.CancelFunc
}

var _ connector.Logs = (*xlaOOMConnector)(nil)

func newConnector(cfg *Config, finder *oomrecord.Finder, set connector.Settings, telemetry *metadata.TelemetryBuilder, next consumer.Metrics) *xlaOOMConnector {
	return &xlaOOMConnector{
		cfg:       cfg,
		finder:    finder,
		dims:      newDimensions(cfg.Dimensions),
		desc:      descriptors(set),
		version:   set.BuildInfo.Version,
		logger:    set.Logger,
		telemetry: telemetry,
		next:      next,
		now:       time.Now,
		state:     newState(cfg),
		done:      make(chan struct{}),
	}
}

// Capabilities: the input is only read.
func (*xlaOOMConnector) Capabilities() consumer.Capabilities {
	return consumer.Capabilities{MutatesData: false}
}

// Start begins emitting every emit_interval.
func (c *xlaOOMConnector) Start(context.Context, component.Host) error {
	ctx, cancel := context.WithCancel(context.Background())
	c.cancelSends = cancel
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		ticker := time.NewTicker(c.cfg.EmitInterval)
		defer ticker.Stop()
		for {
			select {
			case <-c.done:
				return
			case <-ticker.C:
				if err := c.emit(ctx); err != nil {
					c.logger.Warn("xla_oom connector: sending metrics failed", zap.Error(err))
				}
			}
		}
	}()
	return nil
}

// Shutdown stops the ticker and sends what is held one last time, so nothing
// counted is lost.
func (c *xlaOOMConnector) Shutdown(ctx context.Context) error {
	c.stopOnce.Do(func() {
		close(c.done)
		if c.cancelSends != nil {
			c.cancelSends()
		}
	})
	c.wg.Wait()
	err := c.emit(ctx)
	c.telemetry.Shutdown()
	return err
}

// ConsumeLogs adds every XLA OOM record to the series of its resource. The
// records are read (and, when untagged, recognised) before the lock is taken.
func (c *xlaOOMConnector) ConsumeLogs(ctx context.Context, ld plog.Logs) error {
	now := c.now()
	var fromAttrs, fromText, overflowed int64
	var obs []observation
	incidents := map[resourceKey]*jobBatch{}
	warnings := map[resourceKey]*jobBatch{}
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		obs = obs[:0]
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				lr := lrs.At(k)
				tagged, warned := oomattr.Marks(lr.Attributes())
				var texts oomrecord.Candidates
				if !tagged && (!c.cfg.RecognizeUntagged || !c.finder.Scan(lr, &texts)) {
					if warned {
						c.addWarning(warnings, rl, lr, now, nil) // tagged by the processor
					}
					continue // the 99.9 %: no Report is built
				}
				found, tagged := c.read(lr, &texts, tagged, warned)
				if found.Found != oom.FoundFailure {
					c.addWarning(warnings, rl, lr, now, &found) // no OOM: maybe a warning
					continue
				}
				r := found.Report
				if tagged {
					fromAttrs++
				} else {
					fromText++
				}
				ob := observation{measured: measure(r, c.dims), at: recordtime.Of(lr, now)}
				obs = append(obs, ob)
				if c.state.enabled[metricIncidents] {
					c.addIncident(incidents, rl, &r, ob.at)
				}
			}
		}
		if len(obs) == 0 {
			continue
		}
		key := resourceKeyOf(rl.Resource(), rl.SchemaUrl())
		c.mu.Lock()
		overflowed += c.state.add(key, rl.Resource(), rl.SchemaUrl(), obs, now)
		c.mu.Unlock()
	}
	overflowed += c.addWarnings(warnings, now)
	if fromAttrs+fromText == 0 && len(warnings) == 0 {
		return nil
	}
	if len(incidents) > 0 {
		keys := make([]resourceKey, 0, len(incidents))
		for k := range incidents {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		c.mu.Lock()
		for _, k := range keys {
			job := incidents[k]
			// In record order, so that the copies of one failure chain into
			// one incident whatever order the batch holds them in.
			slices.SortStableFunc(job.obs, func(a, b observation) int { return cmp.Compare(a.at, b.at) })
			fresh := job.obs[:0]
			for _, ob := range job.obs {
				if c.state.incidents.observe(k, ob.at, now) {
					fresh = append(fresh, ob)
				}
			}
			if len(fresh) > 0 {
				overflowed += c.state.add(k, job.resource, job.schemaURL, fresh, now)
			}
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	size := c.state.size()
	c.mu.Unlock()
	c.telemetry.ConnectorXlaOomSeries.Record(ctx, size)
	if fromAttrs > 0 {
		c.telemetry.ConnectorXlaOomRecords.Add(ctx, fromAttrs, sourceAttributes)
	}
	if fromText > 0 {
		c.telemetry.ConnectorXlaOomRecords.Add(ctx, fromText, sourceText)
	}
	if overflowed > 0 {
		c.telemetry.ConnectorXlaOomOverflowDataPoints.Add(ctx, overflowed)
	}
	return nil
}

// read returns what a record holds: its failure from its attributes when the
// xla_oom processor tagged it (no second parse), else read from the texts
// that passed the prefilter (the failure, else a warning when the warning
// metrics want one and the processor wrote none). marked and warned are the
// record's tags (oomattr.Marks); texts is what Scan found when not marked.
func (c *xlaOOMConnector) read(lr plog.LogRecord, texts *oomrecord.Candidates, marked, warned bool) (found oom.Finding, tagged bool) {
	if r, ok := oomattr.Get(lr.Attributes()); ok {
		return oom.Finding{Found: oom.FoundFailure, Report: r}, true
	}
	if !c.cfg.RecognizeUntagged {
		// A record that carries xla.error.code of another type or empty is
		// not a tag; its text is not read unless asked for.
		return oom.Finding{}, false
	}
	if marked {
		// Such a record was not scanned; it is read for a failure only.
		return c.finder.Find(lr, false), false
	}
	return c.finder.Read(texts, c.warningsWanted() && !warned), false
}

// jobBatch is what a batch holds for one job-level resource: the record's
// resource reduced to incident_resource_attributes, and the observations
// (incidents or warnings) filed under it.
type jobBatch struct {
	resource  pcommon.Resource
	schemaURL string
	obs       []observation
}

// jobOf returns the batch entry of rl's job, creating it on first use.
func (c *xlaOOMConnector) jobOf(into map[resourceKey]*jobBatch, rl plog.ResourceLogs) *jobBatch {
	res := pcommon.NewResource()
	src := rl.Resource().Attributes()
	for _, k := range c.cfg.IncidentResourceAttributes {
		if v, ok := src.Get(k); ok {
			v.CopyTo(res.Attributes().PutEmpty(k))
		}
	}
	key := resourceKeyOf(res, rl.SchemaUrl())
	job := into[key]
	if job == nil {
		job = &jobBatch{resource: res, schemaURL: rl.SchemaUrl()}
		into[key] = job
	}
	return job
}

// addIncident files the record under its job resource: the record's resource
// reduced to incident_resource_attributes. Whether it opens an incident is
// decided under the lock (see incidentMemory); the xla.oom.incident.id the
// processor wrote is a log-correlation key and is not needed here.
func (c *xlaOOMConnector) addIncident(into map[resourceKey]*jobBatch, rl plog.ResourceLogs, r *oom.Report, t pcommon.Timestamp) {
	job := c.jobOf(into, rl)
	m := measurement{attrs: attrKey{code: r.Code}, incident: true}
	job.obs = append(job.obs, observation{measured: m, at: t})
}

// emit sends the points due, if any, and settles them with the outcome of
// the send: delta values that did not arrive go back into their series.
func (c *xlaOOMConnector) emit(ctx context.Context) error {
	c.emitMu.Lock()
	defer c.emitMu.Unlock()
	c.mu.Lock()
	out := c.state.collect(c.now(), c.scope, &c.desc)
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

func (c *xlaOOMConnector) scope(sm pmetric.ScopeMetrics) {
	sm.Scope().SetName(metadata.ScopeName)
	sm.Scope().SetVersion(c.version)
}
