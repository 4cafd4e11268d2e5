// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bytes"
	"cmp"

	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain"
)

type verdict struct { // the attributes of a failed run's last OOM failure
	code   string  // xla.error.code
	retry  string  // xla.oom.retry: oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown
	action string  // xla.oom.action, the kind of the first remediation step; "none" for none
	fit    float64 // capacity / demand: the factor the demand must shrink by; 0 unknown
}

// explainLog returns the verdict of the failure that ended a job's log, or nil.
func explainLog(log []byte) (*verdict, error) {
	f, err := explain.LastFailure("job log", bytes.NewReader(log))
	if err != nil || f == nil {
		return nil, err
	}
	return &verdict{code: f.Failure.Code, retry: f.Retry, action: cmp.Or(f.Failure.Action, "none"), fit: f.FitFraction}, nil
}

func (v *verdict) String() string { return "the XLA failure " + v.code }
