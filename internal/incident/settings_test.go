// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incident

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestValidateWindow(t *testing.T) {
	assert.NoError(t, ValidateWindow(DefaultWindow))
	assert.EqualError(t, ValidateWindow(0), "incident_window: must be positive, got 0s")
	assert.EqualError(t, ValidateWindow(-time.Second), "incident_window: must be positive, got -1s")
}

func TestValidateResourceAttributes(t *testing.T) {
	assert.Empty(t, ValidateResourceAttributes(DefaultResourceAttributes()))
	assert.Empty(t, ValidateResourceAttributes([]string{"k8s.job.name"}))
	assert.EqualError(t, errors.Join(ValidateResourceAttributes(nil)...),
		"incident_resource_attributes: must name at least one attribute, or the incidents of every job would merge into one")
	assert.EqualError(t, errors.Join(ValidateResourceAttributes([]string{"service.name", "", "service.name"})...),
		"incident_resource_attributes[1]: must not be empty\nincident_resource_attributes[2]: \"service.name\" is listed twice")
}
