// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package recordtime

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

func TestOf(t *testing.T) {
	now := time.Date(2025, 11, 22, 10, 0, 0, 0, time.UTC)
	lr := plog.NewLogRecord()
	assert.Equal(t, pcommon.NewTimestampFromTime(now), Of(lr, now), "neither time: the arrival")
	lr.SetObservedTimestamp(20)
	assert.Equal(t, pcommon.Timestamp(20), Of(lr, now))
	lr.SetTimestamp(10)
	assert.Equal(t, pcommon.Timestamp(10), Of(lr, now))
}
