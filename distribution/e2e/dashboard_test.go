// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dashboardPath is the Grafana dashboard shipped for on-call engineers.
var dashboardPath = filepath.Join(examplesDir, "grafana", "xla-oom-dashboard.json")

// dashboardQueries returns every Prometheus query of the dashboard, by panel
// title, with its template variables replaced as Grafana would for "All".
func dashboardQueries(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID    string `json:"uid"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	if dash.UID == "" || len(dash.Panels) == 0 {
		t.Fatalf("%s: no uid or no panels", dashboardPath)
	}
	vars := strings.NewReplacer("$service", ".*", "$__rate_interval", "1m", "$__range", "1h")
	out := map[string][]string{}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if tg.Expr != "" {
				out[p.Title] = append(out[p.Title], vars.Replace(tg.Expr))
			}
		}
	}
	return out
}

// TestDashboardParses runs without Prometheus: the file is a dashboard and
// has queries.
func TestDashboardParses(t *testing.T) {
	if n := len(dashboardQueries(t)); n < 6 {
		t.Fatalf("%d panels with queries, want at least 6", n)
	}
}

// checkDashboard runs every query of the dashboard against each server and
// requires data from each.
func checkDashboard(t *testing.T, servers map[string]*prometheus) {
	t.Helper()
	for title, queries := range dashboardQueries(t) {
		for _, q := range queries {
			for name, p := range servers {
				r, err := p.query(q)
				if err != nil || len(r) == 0 {
					t.Errorf("dashboard panel %q on %s: %s returned %v (%v)", title, name, q, r, err)
				}
			}
		}
	}
}
