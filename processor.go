// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/xlaoom/xlaoomprocessor/internal/attemptmemory"
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
	// attempts are the allocation attempts each job logged before its
	// failures (processor_attempts.go).
	attempts *attemptmemory.Memory
	hosts    hostStreams // the joiners of host-memory kill statements (processor_hostkill.go)
}

func newLogsProcessor(cfg *Config, finder *oomrecord.Finder, telemetry *metadata.TelemetryBuilder) *logsProcessor {
	return &logsProcessor{cfg: cfg, finder: finder, telemetry: telemetry, now: time.Now,
		attempts: attemptmemory.New(cfg.IncidentWindow, attemptmemory.DefaultMaxJobs, attemptmemory.DefaultTTL)}
}

// processLogs tags every XLA OOM record in place. Records are never dropped,
// and a record that is not an OOM is not touched at all.
func (p *logsProcessor) processLogs(ctx context.Context, ld plog.Logs) (plog.Logs, error) {
	var scanned, generic, hostKills int64
	var tagged codeCounts // failures by code and, marked warning, warnings by kind: one table, one allocation
	rls := ld.ResourceLogs()
	for i := 0; i < rls.Len(); i++ {
		res := rls.At(i).Resource().Attributes()
		sls := rls.At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			scanned += int64(lrs.Len())
			for k := 0; k < lrs.Len(); k++ {
				if label, t := p.tag(res, lrs.At(k)); t == taggedHost {
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
// warning, the kind) it was tagged with. A record that already carries
// xla.error.code (tagged by an upstream collector) is left as it is, so
// processing twice equals processing once. res is the attributes of the
// record's resource, which name its job in xla.oom.incident.id.
func (p *logsProcessor) tag(res pcommon.Map, lr plog.LogRecord) (string, tagging) {
	var texts oomrecord.Candidates
	if !p.finder.Scan(lr, &texts) {
		if lr.Body().Type() == pcommon.ValueTypeMap {
			return p.hostStructured(res, lr) // processor_hostkill.go: a journald entry, a k8sobjects Pod or Event
		}
		return "", untouched // 99.9 % of records: no Report is zeroed or copied
	}
	return p.tagCandidate(res, lr, &texts)
}

// tagCandidate recognises and tags a record whose texts passed the prefilter.
func (p *logsProcessor) tagCandidate(res pcommon.Map, lr plog.LogRecord, texts *oomrecord.Candidates) (string, tagging) {
	if oomattr.Tagged(lr.Attributes()) {
		return "", untouched
	}
	found := p.finder.Read(texts, p.cfg.MemoryWarnings)
	switch found.Found {
	case oom.FoundNothing:
		return p.hostText(res, lr, texts) // processor_hostkill.go
	case oom.FoundWarning:
		return p.warn(res, lr, &found.Warning)
	case oom.FoundFailure:
	}
	report := found.Report
	if oomattr.Warned(lr.Attributes()) {
		return "", untouched // tagged as a warning upstream: leave it as it is
	}
	now := p.now()
	ts := recordtime.Of(lr, now)
	p.decideRetry(res, lr, &report, ts, now)
	oomattr.PutTop(report, lr.Attributes(), p.cfg.TopAllocations)
	nameEvent(lr, oomattr.EventFailure)
	lr.Attributes().PutStr(oomattr.Incident, incident.ID(res, p.cfg.IncidentResourceAttributes, ts, p.cfg.IncidentWindow))
	if p.cfg.SetSeverity && lr.SeverityNumber() == plog.SeverityNumberUnspecified {
		lr.SetSeverityNumber(plog.SeverityNumberError)
		if lr.SeverityText() == "" {
			lr.SetSeverityText("ERROR")
		}
	}
	if report.Family == oom.FamilyGeneric {
		return report.Code, taggedGeneric
	}
	return report.Code, taggedOOM
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
