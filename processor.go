// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/xlaoom/xlaoomprocessor/internal/failure"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/metadata"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/oomrecord"
	"github.com/xlaoom/xlaoomprocessor/internal/stage"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

type logsProcessor struct {
	cfg       *Config
	finder    *oomrecord.Finder
	telemetry *metadata.TelemetryBuilder
	now       func() time.Time // dates a record that carries no time; replaced in tests
	// stage decides each record; next receives the failures that close
	// outside a batch (quiet, shutdown).
	stage    *stage.Stage
	failures *failure.Assembler
	next     consumer.Logs
	logger   *zap.Logger

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

func newLogsProcessor(cfg *Config, finder *oomrecord.Finder, telemetry *metadata.TelemetryBuilder, next consumer.Logs) *logsProcessor {
	s := stage.New(stage.Config{Failure: failure.Config{Window: cfg.IncidentWindow, Quiet: cfg.FailureQuietInterval},
		MemoryWarnings: cfg.MemoryWarnings, HostKillTails: cfg.HostKillTails, MaxScanSize: cfg.MaxScanSize})
	return &logsProcessor{cfg: cfg, finder: finder, telemetry: telemetry, now: time.Now, next: next, logger: zap.NewNop(), stop: make(chan struct{}),
		stage: s, failures: s.Failures}
}

// processLogs tags every XLA OOM record in place and adds a failure record
// for each failure that closed in the batch. Records are never dropped, and
// a record that is not an OOM is not touched at all.
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
	if hostKills > 0 {
		moveHostKills(ld) // processor_hostkill.go
	}
	if len(b.closed) > 0 {
		p.appendFailures(ctx, ld, b.closed)
	}
	if n := p.failures.Evicted(); n > 0 {
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

// tag gives one record to the stage and writes what it decided, returning
// the code (or a warning's kind) it was tagged with.
func (p *logsProcessor) tag(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	var texts oomrecord.Candidates
	if !p.finder.Scan(lr, &texts) {
		// 99.9 % of records: no Report is zeroed or copied.
		return p.notCandidate(rl, lr, b)
	}
	var buf [4]string
	candidates := buf[:0]
	for i := range texts.Len() {
		candidates = append(candidates, texts.Text(i))
	}
	in := func(statement bool) stage.Input { return p.input(rl, lr, b, statement) }
	var t stage.Tags
	b.closed = p.stage.Candidate(candidates, marksOf(lr.Attributes()), in, &t, b.closed)
	return p.write(rl, lr, &t, b)
}

// notCandidate reads a record the prefilter passed over: a map body or a
// host tail for a host kill, else, only while its resource has an open
// failure, its body for evidence (no key, no lock otherwise).
func (p *logsProcessor) notCandidate(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	body := lr.Body()
	if body.Type() == pcommon.ValueTypeMap {
		return p.structured(rl, lr, b) // processor_hostkill.go
	}
	text := body.Str()
	if p.stage.Tail(text) {
		var t stage.Tags
		b.closed = p.stage.Texts(p.input(rl, lr, b, false), marksOf(lr.Attributes()), []string{text}, &t, b.closed)
		if label, tagged := p.write(rl, lr, &t, b); tagged != untouched {
			return label, tagged
		}
	}
	if p.stage.OpenIn(b.resource(rl)) {
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
		return p.writeKill(rl, lr, &t.Kill, b) // processor_hostkill.go
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

// codeCounts counts tagged records per code (and warnings per kind) without
// allocating: a batch holds only a handful of distinct codes.
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
