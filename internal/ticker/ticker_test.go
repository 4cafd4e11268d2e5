// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package ticker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestLoopWarnsAndStops(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	l := Loop{Logger: zap.New(core)}
	ticked := make(chan struct{})
	var ctxs []context.Context
	l.Start(time.Millisecond, "tick failed", func(ctx context.Context) error {
		if len(ctxs) == 0 {
			close(ticked)
		}
		ctxs = append(ctxs, ctx)
		return errors.New("downstream gone")
	})
	<-ticked
	l.Stop()
	assert.NotEmpty(t, logs.FilterMessage("tick failed").All(), "a failed tick is warned of")
	assert.Error(t, ctxs[0].Err(), "Stop ends the tick's context")
	n := len(ctxs)
	l.Stop()
	assert.Len(t, ctxs, n, "no tick after Stop")
}

func TestStopWithoutStart(t *testing.T) {
	var l Loop
	l.Stop()
}
