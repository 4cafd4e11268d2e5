// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package incident is the processor's and the connector's one definition
// of an incident, one failure of one job: its settings, the job identity
// they select from a resource, and xla.oom.incident.id.
package incident // import "github.com/xlaoom/xlaoomprocessor/internal/incident"

import (
	"errors"
	"fmt"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
)

// DefaultWindow: a failure's records arrive within seconds of each other,
// while a restarted job takes longer than a minute to fail again.
const DefaultWindow = time.Minute

// DefaultResourceAttributes identify a job, not a host, so that every
// host's copy of one failure is one incident.
func DefaultResourceAttributes() []string {
	return []string{
		"service.name", "service.namespace", "deployment.environment.name", "deployment.environment",
		"k8s.cluster.name", "k8s.namespace.name", "k8s.job.name", "k8s.cronjob.name", "cloud.account.id", "cloud.region",
	}
}

// ValidateWindow checks an incident_window value.
func ValidateWindow(window time.Duration) error {
	if window <= 0 {
		return fmt.Errorf("incident_window: must be positive, got %s", window)
	}
	return nil
}

// ValidateResourceAttributes checks incident_resource_attributes.
func ValidateResourceAttributes(keys []string) []error {
	var errs []error
	if len(keys) == 0 {
		errs = append(errs, errors.New("incident_resource_attributes: must name at least one attribute, "+
			"or the incidents of every job would merge into one"))
	}
	return append(errs, keylist.Validate("incident_resource_attributes", keys)...)
}
