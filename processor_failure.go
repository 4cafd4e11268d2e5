// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/internal/stage"
)

// One record (event xla.oom.failure) per closed failure: appended to the
// batch it closed in, in a resource of its own; one closed by the quiet
// interval or at shutdown is sent on its own, as logdedup sends its records.

// origin is what a failure record needs of its stream: the resource, its
// schema and the file the stream was read from.
type origin struct {
	resource  pcommon.Resource
	schemaURL string
	file      string // log.file.path, when the records carry it
}

const fileAttribute = "log.file.path"

func originOf(rl plog.ResourceLogs, lr plog.LogRecord) func() any {
	return func() any {
		o := &origin{resource: pcommon.NewResource(), schemaURL: rl.SchemaUrl()}
		rl.Resource().CopyTo(o.resource)
		if v, ok := lr.Attributes().Get(fileAttribute); ok {
			o.file = v.AsString()
		}
		return o
	}
}

// batch is what processLogs keeps while it reads one batch: the failures
// that closed in it, its arrival, and the hash of the resource it is in
// (computed once, when a record of it first needs its stream).
type batch struct {
	closed []failure.Failure
	now    time.Time
	rl     plog.ResourceLogs // the resource hash is of
	hash   uint64
	hashed bool
	// file and fileKey are the last record's log.file.path and its key:
	// the records of one resource come from one file or a few.
	file    string
	fileKey uint64
}

func (b *batch) resource(rl plog.ResourceLogs) uint64 {
	if !b.hashed || b.rl != rl {
		b.rl, b.hashed, b.file = rl, true, ""
		b.hash = incident.ResourceHash(rl.Resource().Attributes())
		b.fileKey = incident.StreamOf(b.hash, pcommon.NewMap())
	}
	return b.hash
}

func (b *batch) key(rl plog.ResourceLogs, lr plog.LogRecord) uint64 {
	b.resource(rl)
	attrs := lr.Attributes()
	file, ok := attrs.Get(fileAttribute)
	if ok && file.Type() == pcommon.ValueTypeStr && file.Str() == b.file {
		return b.fileKey
	}
	key := incident.StreamOf(b.hash, attrs)
	if ok && file.Type() == pcommon.ValueTypeStr {
		b.file, b.fileKey = file.Str(), key
	}
	return key
}

// input is what the stage needs of a record beyond its texts: its keys
// and times; statement: it states a failure, whose job and origin count.
func (p *logsProcessor) input(rl plog.ResourceLogs, lr plog.LogRecord, b *batch, statement bool) stage.Input {
	in := stage.Input{Resource: b.resource(rl), Stream: b.key(rl, lr), At: recordtime.Of(lr, b.now).AsTime(), Now: b.now}
	if statement {
		if job, ok := incident.JobKey(rl.Resource().Attributes(), p.cfg.IncidentResourceAttributes); ok {
			in.Job = job
		}
		in.Origin = originOf(rl, lr)
	}
	return in
}

// appendFailures adds a record for each closed failure to ld.
func (p *logsProcessor) appendFailures(ctx context.Context, ld plog.Logs, closed []failure.Failure) {
	now := p.now()
	for i := range closed {
		f := &closed[i]
		p.telemetry.ProcessorXlaOomFailures.Add(ctx, 1,
			metric.WithAttributes(attribute.String(oomattr.FailureClosed, string(f.Closed))))
		if f.Closed == failure.ClosedWentOn {
			continue // the job did not fail of it: no record, no incident
		}
		o, _ := f.Origin.(*origin)
		rl := ld.ResourceLogs().AppendEmpty()
		if o != nil {
			o.resource.CopyTo(rl.Resource())
			rl.SetSchemaUrl(o.schemaURL)
		}
		sl := rl.ScopeLogs().AppendEmpty()
		sl.Scope().SetName(metadata.ScopeName)
		p.failureRecord(f, o, rl.Resource().Attributes(), sl.LogRecords().AppendEmpty(), now)
	}
}

// failureRecord writes failure f as lr: dated at its first statement, with
// the incident id its statements have.
func (p *logsProcessor) failureRecord(f *failure.Failure, o *origin, res pcommon.Map, lr plog.LogRecord, now time.Time) {
	ts := pcommon.NewTimestampFromTime(now)
	if !f.First.IsZero() {
		ts = pcommon.NewTimestampFromTime(f.First)
	}
	lr.SetTimestamp(ts)
	lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(now))
	lr.SetEventName(oomattr.EventFailure)
	lr.SetSeverityNumber(plog.SeverityNumberError)
	lr.SetSeverityText("ERROR")
	lr.Body().SetStr(oomattr.FailureBody(f))
	attrs := lr.Attributes()
	oomattr.PutFailure(f, attrs, p.cfg.TopAllocations)
	attrs.PutStr(oomattr.Incident, incident.ID(res, p.cfg.IncidentResourceAttributes, pcommon.NewTimestampFromTime(f.Opened), p.cfg.IncidentWindow))
	if o != nil && o.file != "" {
		attrs.PutStr(fileAttribute, o.file)
	}
}

// start closes quiet failures on a ticker until shutdown.
func (p *logsProcessor) start(context.Context, component.Host) error {
	tick := max(min(p.cfg.FailureQuietInterval/2, time.Second), 10*time.Millisecond)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(tick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				if err := p.send(context.Background(), p.failures.Expire(p.now(), nil)); err != nil {
					p.logger.Warn("xla_oom processor: sending failure records failed", zap.Error(err))
				}
			}
		}
	}()
	return nil
}

// shutdown stops the ticker and sends every failure still open.
func (p *logsProcessor) shutdown(ctx context.Context) error {
	p.stopOnce.Do(func() { close(p.stop) })
	p.wg.Wait()
	err := p.send(ctx, p.failures.Flush(nil))
	p.telemetry.Shutdown()
	return err
}

// send gives failures that closed outside a batch to the next consumer.
func (p *logsProcessor) send(ctx context.Context, closed []failure.Failure) error {
	if len(closed) == 0 {
		return nil
	}
	ld := plog.NewLogs()
	p.appendFailures(ctx, ld, closed)
	return p.next.ConsumeLogs(ctx, ld)
}
