// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package incidentwindow holds the incident_window setting shared by the
// processor and the connector: its default and its validation.
package incidentwindow // import "github.com/xlaoom/xlaoomprocessor/internal/incidentwindow"

import (
	"fmt"
	"time"
)

// Default groups the records that the hosts of one job log for one failure:
// they arrive within seconds of each other, while a restarted job takes
// longer than a minute to fail again.
const Default = time.Minute

// Validate checks an incident_window value.
func Validate(window time.Duration) error {
	if window <= 0 {
		return fmt.Errorf("incident_window: must be positive, got %s", window)
	}
	return nil
}
