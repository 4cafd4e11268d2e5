// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import "github.com/xlaoom/xlaoomprocessor/oom"

// retryLabel is the xla.oom.retry of an incident: the record's verdict, the
// one its attributes imply when a processor older than the verdict tagged
// it, unknown for a value outside the three (the label's only values).
func retryLabel(r *oom.Report) string {
	switch r.Retry {
	case oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown:
		return r.Retry
	case "":
		return oom.RetryVerdict(r, 0)
	}
	return oom.RetryUnknown
}

// settleRetry lets a record that joined an incident (or a kill) in the same
// batch give it the verdict its opening record did not: one failure is
// logged as several records, and the first that knows decides, as in xlaoom
// explain. A record of another code states another failure; one of a later
// batch cannot change what was counted.
func settleRetry(opened *observation, joined observation) {
	if o := &opened.measured.attrs; o.retry == oom.RetryUnknown && o.code == joined.measured.attrs.code {
		o.retry = joined.measured.attrs.retry
	}
}
