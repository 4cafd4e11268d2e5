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
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

type logsProcessor struct {
	cfg       *Config
	finder    *oomrecord.Finder
	telemetry *metadata.TelemetryBuilder
	now       func() time.Time // dates a record that carries no time; replaced in tests
	// failures assembles each stream's failures (processor_failure.go);
	// next receives those that close outside a batch (quiet, shutdown).
	failures *failure.Assembler
	next     consumer.Logs
	logger   *zap.Logger

	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
}

func newLogsProcessor(cfg *Config, finder *oomrecord.Finder, telemetry *metadata.TelemetryBuilder, next consumer.Logs) *logsProcessor {
	return &logsProcessor{cfg: cfg, finder: finder, telemetry: telemetry, now: time.Now, next: next, logger: zap.NewNop(), stop: make(chan struct{}),
		failures: failure.New(failure.Config{Window: cfg.IncidentWindow, Quiet: cfg.FailureQuietInterval})}
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

// tag recognises and tags one record, returning the code (or, for a memory
// warning, the kind) it was tagged with, and gives it to the failure stage.
// A record that already carries xla.error.code (tagged by an upstream
// collector) is left as it is, so processing twice equals processing once.
// The record's resource names its stream and, in xla.oom.incident.id, its
// job. Failures that close are appended to closed.
func (p *logsProcessor) tag(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	var texts oomrecord.Candidates
	if !p.finder.Scan(lr, &texts) {
		// 99.9 % of records: no Report is zeroed or copied; a string body
		// while no failure is open anywhere costs one atomic load more.
		return p.notCandidate(rl, lr, b)
	}
	return p.tagCandidate(rl, lr, &texts, b)
}

// notCandidate reads a record the prefilter passed over: a map body for a
// host kill (processor_hostkill.go: a journald entry, a k8sobjects Pod or
// Event), a string body that ends like a host kill (host_kill_tails), and,
// while a failure is open, any other body for its evidence.
func (p *logsProcessor) notCandidate(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) (string, tagging) {
	body := lr.Body()
	if body.Type() == pcommon.ValueTypeMap {
		return p.hostStructured(rl, lr, b)
	}
	text := body.Str()
	if text != "" && p.cfg.HostKillTails && oom.EndsWithHostTail(text) {
		if label, t := p.hostTail(rl, lr, text, b); t != untouched {
			return label, t
		}
	}
	if p.openHere(rl, b) && len(text) <= p.cfg.MaxScanSize {
		p.evidence(rl, lr, text, b)
	}
	return "", untouched
}

// tagCandidate recognises and tags a record whose texts passed the prefilter.
func (p *logsProcessor) tagCandidate(rl plog.ResourceLogs, lr plog.LogRecord, texts *oomrecord.Candidates, b *batch) (string, tagging) {
	if oomattr.Tagged(lr.Attributes()) {
		return "", untouched
	}
	found := p.finder.Read(texts, p.cfg.MemoryWarnings)
	switch found.Found {
	case oom.FoundNothing:
		if label, t := p.hostText(rl, lr, texts, b); t != untouched {
			return label, t // processor_hostkill.go
		}
		if p.openHere(rl, b) {
			p.evidence(rl, lr, texts.First(), b)
		}
		return "", untouched
	case oom.FoundWarning:
		return p.warn(rl, lr, &found.Warning, texts.First(), b)
	case oom.FoundFailure:
	}
	report := found.Report
	if oomattr.Warned(lr.Attributes()) {
		return "", untouched // tagged as a warning upstream: leave it as it is
	}
	ts := recordtime.Of(lr, b.now)
	_, sent := lr.Attributes().Get(oomattr.Retry)
	step := p.statement(rl, lr, &report, ts, texts.First(), sent, b)
	if sent {
		report.Retry = "" // a verdict the record arrived with is kept
	} else {
		report.Retry = step.Verdict
	}
	oomattr.PutTop(report, lr.Attributes(), p.cfg.TopAllocations)
	nameEvent(lr, oomattr.EventStatement)
	lr.Attributes().PutStr(oomattr.FailureID, step.ID)
	lr.Attributes().PutStr(oomattr.Incident, incident.ID(rl.Resource().Attributes(), p.cfg.IncidentResourceAttributes, pcommon.NewTimestampFromTime(step.Opened), p.cfg.IncidentWindow))
	p.setSeverity(lr, plog.SeverityNumberError, "ERROR")
	if report.Family == oom.FamilyGeneric {
		return report.Code, taggedGeneric
	}
	return report.Code, taggedOOM
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
