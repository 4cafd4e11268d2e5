// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// What the alerting tests read of the alerts a Prometheus holds.

// waitAlert waits until alert is in state for the job "trainer" ("" for
// not active at all).
func waitAlert(t *testing.T, name string, p *prometheus, alert, state string) {
	t.Helper()
	waitJobAlert(t, name, p, "trainer", alert, state)
}

// waitJobAlert waits until alert is in state for job ("" for not active).
func waitJobAlert(t *testing.T, name string, p *prometheus, job, alert, state string) {
	t.Helper()
	eventually(t, 60*time.Second, func() string {
		as, err := p.alerts()
		if err != nil {
			return err.Error()
		}
		got := ""
		for _, a := range as {
			if a.Labels["alertname"] == alert && a.Labels["service_name"] == job {
				got = a.State
			}
		}
		if got != state {
			return fmt.Sprintf("%s: %s is %q, want %q", name, alert, got, state)
		}
		return ""
	})
}

// assertOneAlert checks that exactly one alert named alert is active.
func assertOneAlert(t *testing.T, name string, p *prometheus, alert string) {
	t.Helper()
	as, err := p.alerts()
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]string
	for _, a := range as {
		if a.Labels["alertname"] == alert {
			got = append(got, a.Labels)
		}
	}
	if len(got) != 1 {
		t.Errorf("%s: %d %s alerts active, want exactly 1: %v", name, len(got), alert, got)
	}
}

// waitValue waits until the instant query q returns one sample of value want,
// or none when want is "".
func waitValue(t *testing.T, name string, p *prometheus, q, want string) {
	t.Helper()
	eventually(t, 60*time.Second, func() string {
		r, err := p.query(q)
		if err != nil {
			return err.Error()
		}
		switch {
		case want == "" && len(r) == 0, len(r) == 1 && r[0].Value == want:
			return ""
		}
		return fmt.Sprintf("%s: %s = %v, want %q", name, q, r, want)
	})
}

// alertWatch records, per server, how many times each alert of the job
// "trainer" went from not firing to firing, and each of futileJob's, named
// "finetune:ALERT".
type alertWatch struct {
	mu       sync.Mutex
	episodes map[string]map[string]int
	done     chan struct{}
	wg       sync.WaitGroup
}

func watchAlerts(t *testing.T, servers map[string]*prometheus) *alertWatch {
	w := &alertWatch{episodes: map[string]map[string]int{}, done: make(chan struct{})}
	for name, p := range servers {
		w.episodes[name] = map[string]int{}
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			firing := map[string]bool{}
			for {
				select {
				case <-w.done:
					return
				case <-time.After(200 * time.Millisecond):
				}
				as, err := p.alerts()
				if err != nil {
					continue
				}
				now := map[string]bool{}
				for _, a := range as {
					switch job := a.Labels["service_name"]; {
					case a.State != "firing":
					case job == "trainer":
						now[a.Labels["alertname"]] = true
					case job == futileJob:
						now[job+":"+a.Labels["alertname"]] = true
					}
				}
				w.mu.Lock()
				for alert := range now {
					if !firing[alert] {
						w.episodes[name][alert]++
					}
				}
				w.mu.Unlock()
				firing = now
			}
		}()
	}
	t.Cleanup(func() { w.stop() })
	return w
}

// stop ends the watch and returns the episodes per server as
// "Alert=n Alert=n".
func (w *alertWatch) stop() map[string]string {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]string{}
	for name, e := range w.episodes {
		var parts []string
		for alert, n := range e {
			parts = append(parts, fmt.Sprintf("%s=%d", alert, n))
		}
		sort.Strings(parts)
		out[name] = strings.Join(parts, " ")
	}
	return out
}
