// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import "github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"

// What the failure stage and explain read of a record's text the way the
// recogniser reads it: one definition each, in internal/logtext.

// Raised reports whether text holds a status the program raised: a Python
// traceback ("Traceback (most recent call last)") anywhere, or a line that
// starts with a dotted Python name ending in Error or Exception, then ": "
// ("jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: ...").
func Raised(text string) bool { return logtext.Raised(text) }

// HeaderTime reads the time of a record's log header (absl/glog "E1126
// 11:16:43.148", TSL/ISO "2025-09-12 07:02:43", vLLM "ERROR 09-12
// 07:23:02", behind a Ray prefix) from the month and day on, in seconds:
// only the gap between two records of one job means anything, as a year is
// not always printed (a gap across New Year reads as negative).
func HeaderTime(text string) (seconds int64, ok bool) { return logtext.HeaderTime(text) }
