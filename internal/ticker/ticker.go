// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package ticker runs the processor's and the connector's periodic work.
package ticker // import "github.com/xlaoom/xlaoomprocessor/internal/ticker"

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Loop calls a function on a ticker, in a goroutine of its own, until Stop.
type Loop struct {
	Logger *zap.Logger // warns of a tick's error; nil: none
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start calls tick every period, warning failed when it fails; tick's context
// ends at Stop, so that a send blocked downstream does not hold Stop up.
func (l *Loop) Start(period time.Duration, failed string, tick func(context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := tick(ctx); err != nil && l.Logger != nil {
					l.Logger.Warn(failed, zap.Error(err))
				}
			}
		}
	}()
}

// Stop ends the loop, if started, and waits for a tick in progress.
func (l *Loop) Stop() {
	if l.cancel != nil {
		l.cancel()
	}
	l.wg.Wait()
}
