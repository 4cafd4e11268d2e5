// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/internal/incident"
	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
	"github.com/xlaoom/xlaoomprocessor/internal/recordtime"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// arrived reads a failure record another processor made (an agent's, at
// the gateway every record of its job is routed to) into its job's history,
// and makes it futile by the repeat rule where it repeats an earlier attempt
// that ran on another node, which its agent could not see.
func (p *logsProcessor) arrived(rl plog.ResourceLogs, lr plog.LogRecord, b *batch) {
	job, ok := incident.RepeatJobKey(rl.Resource().Attributes(), p.cfg.Repeats.JobAttributes, p.cfg.IncidentResourceAttributes)
	if !ok {
		return
	}
	attrs := lr.Attributes()
	r, _ := oomattr.Get(attrs)
	past := assembly.Past{ID: oomattr.GetStr(attrs, oomattr.FailureID), Code: r.Code, Program: r.Program, Requested: r.Requested,
		At: recordtime.Of(lr, b.now).AsTime(), Stream: b.key(rl, lr)}
	n := p.assembler.Arrived(job, past, b.now)
	if n == 0 {
		return
	}
	was := oom.Decision{Verdict: oomattr.GetStr(attrs, oomattr.Retry), Rule: oomattr.GetStr(attrs, oomattr.RetryRule), Missing: oomattr.GetStr(attrs, oomattr.RetryMissing)}
	d := oom.WithRepeat(was)
	if d == was {
		return
	}
	attrs.PutStr(oomattr.Retry, d.Verdict)
	attrs.PutStr(oomattr.RetryRule, d.Rule)
	attrs.Remove(oomattr.RetryMissing)
	attrs.PutInt(oomattr.EarlierFailures, int64(n))
	if lr.Body().Type() == pcommon.ValueTypeStr {
		lr.Body().SetStr(oomattr.WithDecision(lr.Body().Str(), d))
	}
}
