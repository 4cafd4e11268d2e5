// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package incident is the one definition of an XLA OOM incident that the
// processor and the connector share: one failure of one job. A job is named
// by incident_resource_attributes and a failure is a burst of records within
// incident_window; this package holds both settings (defaults, validation),
// the job identity they select from a resource, and the processor's
// xla.oom.incident.id.
package incident // import "github.com/xlaoom/xlaoomprocessor/internal/incident"

import (
	"errors"
	"fmt"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/keylist"
)

// DefaultWindow groups the records that the hosts of one job log for one
// failure: they arrive within seconds of each other, while a restarted job
// takes longer than a minute to fail again.
const DefaultWindow = time.Minute

// DefaultResourceAttributes identify a job, not a host: host.name,
// k8s.pod.name, service.instance.id and the like are left out, so the copies
// that the 64 hosts of one job log of one failure are one incident.
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

// ValidateResourceAttributes checks an incident_resource_attributes value:
// at least one name, none blank or repeated.
func ValidateResourceAttributes(keys []string) []error {
	var errs []error
	if len(keys) == 0 {
		errs = append(errs, errors.New("incident_resource_attributes: must name at least one attribute, "+
			"or the incidents of every job would merge into one"))
	}
	return append(errs, keylist.Validate("incident_resource_attributes", keys)...)
}
