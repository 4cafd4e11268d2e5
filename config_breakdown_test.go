package xlaoomprocessor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/confmap"
)

func TestBreakdownSettings(t *testing.T) {
	cfg := createDefaultConfig()
	assert.Equal(t, 5, cfg.TopAllocations)
	assert.Equal(t, time.Minute, cfg.IncidentWindow)

	for _, tc := range []struct {
		top     int
		window  time.Duration
		wantErr string
	}{
		{top: 0, window: time.Second},
		{top: 100, window: 5 * time.Minute},
		{top: 101, window: time.Minute, wantErr: "top_allocations: must be between 0 and 100, got 101"},
		{top: -1, window: time.Minute, wantErr: "top_allocations: must be between 0 and 100, got -1"},
		{top: 5, window: 0, wantErr: "incident_window: must be positive, got 0s"},
		{top: 5, window: -time.Second, wantErr: "incident_window: must be positive, got -1s"},
	} {
		c := createDefaultConfig()
		c.TopAllocations, c.IncidentWindow = tc.top, tc.window
		err := confmap.Validate(c)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			continue
		}
		assert.NoError(t, err)
	}
}
