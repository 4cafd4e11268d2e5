// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"cmp"

	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain"
)

// verdict is what the log of a failed run says about its last OOM failure:
// the attributes the xla_oom processor writes on its record.
type verdict struct {
	code   string  // xla.error.code
	retry  string  // xla.oom.retry: oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown
	action string  // xla.oom.action, the kind of the first remediation step; "none" for none
	fit    float64 // capacity / demand: the factor the demand must shrink by; 0 unknown
}

// explainLog explains a job's log as `xlaoom explain` does and returns the
// verdict of the failure that ended it, or nil when it holds no OOM failure.
func explainLog(log []byte) (*verdict, error) {
	f, err := explain.LastFailure("job log", bytes.NewReader(log))
	if err != nil || f == nil {
		return nil, err
	}
	// The finding's verdict is read from all the records of the failure and
	// the attempts before it, not from its first record alone.
	return &verdict{code: f.Failure.Code, retry: f.Retry, action: cmp.Or(f.Failure.Action, "none"), fit: f.FitFraction}, nil
}

// String names the failure in the wrapper's line: "the XLA failure E1000".
func (v *verdict) String() string { return "the XLA failure " + v.code }
