// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/internal/stage"
	"github.com/xlaoom/xlaoomprocessor/internal/ticker"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

type logsProcessor struct {
	cfg       *Config
	finder    *oomrecord.Finder
	telemetry *metadata.TelemetryBuilder
	now       func() time.Time // dates a record that carries no time; replaced in tests
	stage     *stage.Stage     // decides each record
	assembler *assembly.Assembler
	next      consumer.Logs // receives the failures that close outside a batch
	ticks     ticker.Loop
}

func newLogsProcessor(cfg *Config, finder *oomrecord.Finder, telemetry *metadata.TelemetryBuilder, next consumer.Logs) *logsProcessor {
	s := stage.New(stage.Config{Assembly: assembly.Config{Window: cfg.IncidentWindow, Quiet: cfg.FailureQuietInterval,
		HistoryTTL: cfg.Repeats.TTL, MaxJobs: cfg.Repeats.MaxJobs, RepeatsOff: !cfg.Repeats.Enabled},
		MemoryWarnings: cfg.MemoryWarnings, HostKillTails: cfg.HostKillTails, MaxScanSize: cfg.MaxScanSize})
	return &logsProcessor{cfg: cfg, finder: finder, telemetry: telemetry, now: time.Now, next: next,
		stage: s, assembler: s.Assembler}
}

// processLogs tags every XLA OOM record in place and adds a record per
// failure closed in the batch; no record is dropped, others are untouched.
func (p *logsProcessor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	var scanned, generic, hostKills int64
	var tagged codeCounts // failures by code and, marked warning, warnings by kind: one table, one allocation
	b := batch{now: p.now()}
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		rl := rls.At(i)
		sls := rl.ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			scanned += int64(lrs.Len())
			for k := 0; k < lrs.Len(); k++ {
				if p.cfg.Repeats.Enabled && lrs.At(k).EventName() == oomattr.EventFailure {
					p.arrived(rl, lrs.At(k), &b) // processor_repeat.go
					continue
				}
				label, t := p.tag(rl, lrs.At(k), &b)
				if t == taggedHost {
					hostKills++
				} else if t != untouched {
					tagged.add(label, t == taggedWarning)
					if t == taggedGeneric {
						generic++
					}
				}
			}
		}
	}
	if len(b.kills) > 0 {
		p.appendKills(ld, b.kills) // processor_hostkill.go
	}
	if hostKills > 0 {
		moveHostKills(ld) // processor_hostkill.go
	}
	if len(b.closed) > 0 {
		p.appendFailures(ctx, ld, b.closed)
	}
	if n := p.assembler.Evicted(); n > 0 {
		p.telemetry.ProcessorXlaOomStreamsEvicted.Add(ctx, n)
	}
	p.telemetry.ProcessorXlaOomRecordsScanned.Add(ctx, scanned)
	if generic > 0 {
		p.telemetry.ProcessorXlaOomRecordsGeneric.Add(ctx, generic)
	}
	for _, c := range tagged.counts {
		if c.warning {
			p.telemetry.ProcessorXlaOomRecordsWarned.Add(ctx, c.n,
				metric.WithAttributes(attribute.String(oomattr.WarningKind, c.code)))
			continue
		}
		p.telemetry.ProcessorXlaOomRecordsTagged.Add(ctx, c.n,
			metric.WithAttributes(attribute.String(oomattr.ErrorCode, c.code)))
	}
	return ld, nil
}

// tagging says what tag wrote on a record.
type tagging uint8

const (
	untouched tagging = iota
	taggedOOM
	taggedWarning
	taggedGeneric // an OOM tagged by the last-resort layer (counted as an OOM too)
)

// tag gives one record to the stage and writes what it decided.
func (p *logsProcessor) tag(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	var texts oomrecord.Candidates
	if !p.finder.Scan(lr, &texts) {
		// 99.9 % of records: no Report is zeroed or copied.
		return p.notCandidate(rl, lr, b)
	}
	var buf [4]string
	candidates := texts.Texts(buf[:0])
	read, closed := p.stage.StartupRecord(b.key(rl, lr), recordtime.Of(lr, b.now).AsTime(), b.now, candidates, b.closed)
	if b.closed = closed; read {
		return "", untouched // a start-up line: its facts are kept for the stream's failures
	}
	in := func(statement bool) stage.Input { return p.input(rl, lr, b, statement) }
	t := b.freshTags()
	b.closed = p.stage.Candidate(candidates, marksOf(lr.Attributes()), in, t, b.closed)
	return p.write(rl, lr, t, b)
}

// notCandidate reads a record the prefilter passed over for a host kill and,
// only while its resource has an open failure, for evidence.
func (p *logsProcessor) notCandidate(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	body := lr.Body()
	if body.Type() == pcommon.ValueTypeMap {
		return p.structured(rl, lr, b) // processor_hostkill.go
	}
	text := body.Str()
	if p.stage.Tail(text) {
		t := b.freshTags()
		b.closed = p.stage.Texts(p.input(rl, lr, b, true), marksOf(lr.Attributes()), []string{text}, t, b.closed)
		if label, tagged := p.write(rl, lr, t, b); tagged != untouched {
			return label, tagged
		}
	}
	if p.stage.Assembler.Open() && p.stage.Assembler.OpenIn(b.resource(rl)) { // no hash while no failure is open
		in := func(statement bool) stage.Input { return p.input(rl, lr, b, statement) }
		b.closed = p.stage.Evidence(in, text, b.closed)
	}
	return "", untouched
}

// marksOf reads what a record arrived with.
func marksOf(attrs pcommon.Map) stage.Marks {
	_, sent := attrs.Get(oomattr.Retry)
	_, host := attrs.Get(oomattr.HostSource)
	return stage.Marks{Tagged: oomattr.Tagged(attrs), Warned: oomattr.Warned(attrs), RetrySent: sent, HostRead: host}
}

// write writes on a record the tags the stage decided.
func (p *logsProcessor) write(rl plog.ResourceLogs, lr plog.LogRecord, t *stage.Tags, b *batch) (string, tagging) {
	attrs := lr.Attributes()
	switch t.Outcome {
	case stage.Untouched:
		return "", untouched
	case stage.Warning:
		oomattr.PutWarning(t.Warning, attrs)
		nameEvent(lr, oomattr.EventWarning)
		p.setSeverity(lr, plog.SeverityNumberWarn, "WARN")
		return t.Warning.Kind, taggedWarning
	case stage.HostStatement:
		oomattr.PutHostStatement(&t.Host, attrs)
		return "", untouched
	case stage.HostKill:
		return p.writeKill(rl, lr, t, b) // processor_hostkill.go
	case stage.Statement:
	}
	oomattr.PutTop(t.Report, attrs, p.cfg.TopAllocations)
	nameEvent(lr, oomattr.EventStatement)
	attrs.PutStr(oomattr.FailureID, t.FailureID)
	attrs.PutStr(oomattr.Incident, incident.ID(rl.Resource().Attributes(), p.cfg.IncidentResourceAttributes, pcommon.NewTimestampFromTime(t.Opened), p.cfg.IncidentWindow))
	p.setSeverity(lr, plog.SeverityNumberError, "ERROR")
	if t.Report.Family == oom.FamilyGeneric {
		return t.Report.Code, taggedGeneric
	}
	return t.Report.Code, taggedOOM
}

// setSeverity sets a tagged record's severity when it has none.
func (p *logsProcessor) setSeverity(lr plog.LogRecord, n plog.SeverityNumber, text string) {
	if p.cfg.SetSeverity && lr.SeverityNumber() == plog.SeverityNumberUnspecified {
		lr.SetSeverityNumber(n)
		if lr.SeverityText() == "" {
			lr.SetSeverityText(text)
		}
	}
}

// codeCounts counts tagged records per code (warnings per kind) without allocating.
type codeCounts struct {
	counts []codeCount
	inline [8]codeCount
}

type codeCount struct {
	code    string // the xla.error.code, or the xla.memory.warning kind
	warning bool
	n       int64
}

func (c *codeCounts) add(code string, warning bool) {
	for i := range c.counts {
		if c.counts[i].code == code && c.counts[i].warning == warning {
			c.counts[i].n++
			return
		}
	}
	if c.counts == nil {
		c.counts = c.inline[:0]
	}
	c.counts = append(c.counts, codeCount{code: code, warning: warning, n: 1})
}

// nameEvent names a tagged record's event, unless its sender already did.
func nameEvent(lr plog.LogRecord, name string) {
	if lr.EventName() == "" {
		lr.SetEventName(name)
	}
}

// origin is what a failure record (event xla.oom.failure) needs of its
// stream: the resource, its schema and its file.
type origin struct {
	resource  pcommon.Resource
	schemaURL string
	file      string // log.file.path, when the records carry it
}

// The record attributes that name a stream's file (incident.StreamOf).
const (
	fileAttribute     = "log.file.path"
	fileNameAttribute = "log.file.name"
)

// batch is what processLogs keeps of one batch: the failures that closed in
// it, its arrival, and the hash of the resource it is in (computed once).
type batch struct {
	closed []assembly.Failure
	kills  []assembly.EndedKill // ended at a record that carries another (writeKill)
	now    time.Time
	rl     plog.ResourceLogs // the resource hash is of
	hash   uint64
	hashed bool
	// file, fileName and fileKey are the last record's log.file.path and
	// log.file.name and its stream's key.
	file, fileName string
	fileKey        uint64
	fileKnown      bool
	tags           *stage.Tags // one record's at a time: allocated once per batch that needs it
}

// freshTags is an empty Tags for the next record.
func (b *batch) freshTags() *stage.Tags {
	if b.tags == nil {
		b.tags = new(stage.Tags)
	} else {
		*b.tags = stage.Tags{}
	}
	return b.tags
}

func (b *batch) resource(rl plog.ResourceLogs) uint64 {
	if !b.hashed || b.rl != rl {
		b.rl, b.hashed, b.fileKnown = rl, true, false
		b.hash = incident.ResourceHash(rl.Resource().Attributes())
	}
	return b.hash
}

func (b *batch) key(rl plog.ResourceLogs, lr plog.LogRecord) uint64 {
	b.resource(rl)
	attrs := lr.Attributes()
	path, name := oomattr.GetStr(attrs, fileAttribute), oomattr.GetStr(attrs, fileNameAttribute)
	if b.fileKnown && path == b.file && name == b.fileName {
		return b.fileKey // the stream of the record before it: file_log sends a file's lines together
	}
	key := incident.StreamOf(b.hash, attrs)
	b.file, b.fileName, b.fileKey, b.fileKnown = path, name, key, true
	return key
}

// input is a record's keys and times; a statement's also its job and origin.
func (p *logsProcessor) input(rl plog.ResourceLogs, lr plog.LogRecord, b *batch, statement bool) stage.Input {
	in := stage.Input{Resource: b.resource(rl), Stream: b.key(rl, lr), At: recordtime.Of(lr, b.now).AsTime(), Now: b.now}
	if statement {
		res := rl.Resource().Attributes()
		if job, ok := incident.JobKey(res, p.cfg.IncidentResourceAttributes); ok {
			in.Job = job
		}
		if p.cfg.Repeats.Enabled {
			in.RepeatJob, _ = incident.RepeatJobKey(res, p.cfg.Repeats.JobAttributes, p.cfg.IncidentResourceAttributes)
		}
		in.Origin = func() any {
			o := &origin{resource: pcommon.NewResource(), schemaURL: rl.SchemaUrl()}
			rl.Resource().CopyTo(o.resource)
			if v, ok := lr.Attributes().Get(fileAttribute); ok {
				o.file = v.AsString()
			}
			return o
		}
	}
	return in
}

// appendFailures adds to ld a record, in a resource of its own, per closed failure.
func (p *logsProcessor) appendFailures(ctx context.Context, ld plog.Logs, closed []assembly.Failure) {
	now := p.now()
	for i := range closed {
		f := &closed[i]
		p.telemetry.ProcessorXlaOomFailures.Add(ctx, 1,
			metric.WithAttributes(attribute.String(oomattr.FailureClosed, string(f.Closed))))
		if f.Closed == assembly.ClosedWentOn {
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

// failureRecord writes f as lr, dated at its first statement.
func (p *logsProcessor) failureRecord(f *assembly.Failure, o *origin, res pcommon.Map, lr plog.LogRecord, now time.Time) {
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
	p.ticks.Start(tick, "xla_oom processor: sending failure records failed", func(context.Context) error {
		return errors.Join(p.send(context.Background(), p.assembler.Expire(p.now(), nil)),
			p.sendKills(context.Background(), p.assembler.ExpireKills(p.now()))) // processor_hostkill.go
	})
	return nil
}

// shutdown stops the ticker and sends every failure still open.
func (p *logsProcessor) shutdown(ctx context.Context) error {
	p.ticks.Stop()
	err := errors.Join(p.sendKills(ctx, p.assembler.FlushAllKills()), p.send(ctx, p.assembler.Flush(nil)))
	p.telemetry.Shutdown()
	return err
}

// send gives failures that closed outside a batch to the next consumer.
func (p *logsProcessor) send(ctx context.Context, closed []assembly.Failure) error {
	if len(closed) == 0 {
		return nil
	}
	ld := plog.NewLogs()
	p.appendFailures(ctx, ld, closed)
	return p.next.ConsumeLogs(ctx, ld)
}
