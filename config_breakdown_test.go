package xlaoomprocessor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
)

func TestBreakdownSettings(t *testing.T) {
	cfg := createDefaultConfig()
	assert.Equal(t, 5, cfg.topAllocations())
	assert.Equal(t, time.Minute, cfg.incidentWindow())

	zero, hundred, tooMany, negative := 0, 100, 101, -1
	for _, tc := range []struct {
		top     *int
		window  time.Duration
		wantErr string
	}{
		{top: &zero},
		{top: &hundred, window: 5 * time.Minute},
		{top: &tooMany, wantErr: "top_allocations: must be between 0 and 100, got 101"},
		{top: &negative, wantErr: "top_allocations: must be between 0 and 100, got -1"},
		{window: -time.Second, wantErr: "incident_window: must not be negative, got -1s"},
	} {
		c := createDefaultConfig()
		c.TopAllocations, c.IncidentWindow = tc.top, tc.window
		err := confmap.Validate(c)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, *tc.top, c.topAllocations())
	}
}
