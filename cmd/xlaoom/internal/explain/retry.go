// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"strconv"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// exitStatus is the status for what t counted: ExitError when an input could
// not be read; ExitFutile when the last failure found (the one latest in the
// last input that has one) or the last host kill is futile; ExitFound for any
// other failure or kill; ExitNone when none was found.
func exitStatus(t *Totals) int {
	switch {
	case t.Unreadable > 0:
		return ExitError
	case t.Failures > 0 && t.LastRetry == oom.RetryFutile, t.HostKills > 0 && t.LastHostRetry == oom.RetryFutile:
		return ExitFutile
	case t.Failures > 0 || t.HostKills > 0:
		return ExitFound
	}
	return ExitNone
}

// retryText says the finding's verdict, the rule that gave it and, when
// known, how far the demand must shrink.
func retryText(f *Finding) string {
	s := f.Retry + retryMeaning[f.Retry] + ruleText(f.Whole.Rule)
	if f.FitFraction > 0 {
		s += "; fits at " + strconv.FormatFloat(f.FitFraction, 'f', 2, 64) + "× the per-device demand"
	}
	return s
}

// ruleText is " (rule: NAME)", or "" for no rule.
func ruleText(rule string) string {
	if rule == "" {
		return ""
	}
	return " (rule: " + rule + ")"
}

var retryMeaning = map[string]string{
	oom.RetryFutile:  ": the same program, unchanged, fails the same way again",
	oom.RetryMayHelp: ": it depended on something outside the program; a restart may succeed",
	oom.RetryUnknown: ": the log does not show whether a restart can succeed",
}
