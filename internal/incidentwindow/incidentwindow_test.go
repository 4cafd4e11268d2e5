// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package incidentwindow

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestValidate(t *testing.T) {
	assert.NoError(t, Validate(Default))
	assert.EqualError(t, Validate(0), "incident_window: must be positive, got 0s")
	assert.EqualError(t, Validate(-time.Second), "incident_window: must be positive, got -1s")
}
