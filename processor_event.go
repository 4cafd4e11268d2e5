// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor // import "github.com/xlaoom/xlaoomprocessor"

import "go.opentelemetry.io/collector/pdata/plog"

// nameEvent gives a tagged record its log event name (oomattr.EventStatement
// or oomattr.EventWarning), so that backends that route or count by event
// name see XLA OOMs as such. A record that already has an event name keeps
// it: its sender knew better what it is.
func nameEvent(lr plog.LogRecord, name string) {
	if lr.EventName() == "" {
		lr.SetEventName(name)
	}
}
