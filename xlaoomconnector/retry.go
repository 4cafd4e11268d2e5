// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomconnector // import "github.com/xlaoom/xlaoomprocessor/xlaoomconnector"

import "github.com/xlaoom/xlaoomprocessor/oom"

// retryLabel is the xla.oom.retry of an incident: the record's verdict;
// for a record tagged without one (by a processor older than the verdict),
// the verdict its attributes imply (oom.RetryVerdict reads the code, phase,
// sizes and attempts a tag carries); unknown for a value outside the three,
// so the label never has more than three values.
func retryLabel(r *oom.Report) string {
	switch r.Retry {
	case oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown:
		return r.Retry
	case "":
		return oom.RetryVerdict(r, 0)
	}
	return oom.RetryUnknown
}

// settleRetry lets a record that joined an incident in the same batch give
// it the verdict its opening record did not: one failure is logged as
// several records (an allocator's warning, then the status), and the first
// that knows decides, as in xlaoom explain. The record joined within the
// incident window of the incident's last record and has its error code (a
// record of another code states another failure); a record that arrives in
// a later batch cannot change what was counted.
func settleRetry(opened *observation, joined observation) {
	o, j := &opened.measured.attrs, joined.measured.attrs
	if o.retry == oom.RetryUnknown && o.code == j.code {
		opened.measured.attrs.retry = joined.measured.attrs.retry
	}
}
