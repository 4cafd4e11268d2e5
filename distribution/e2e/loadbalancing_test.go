// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/promtext"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// TestTwoGatewaysLoadBalancing runs one agent (examples/agent.yaml) that
// exports through load_balancing (static resolver, routing by service.name)
// to two gateways (examples/gateway.yaml, TLS). It checks that every job's
// records and metric series land on exactly one gateway and that the OOM
// totals across gateways equal the OOMs written. Then one gateway is killed
// (SIGKILL): the records of its jobs wait in the agent's persistent queue, and
// when the agent is restarted with the surviving gateway only (what the k8s
// resolver does by itself when a pod goes away) they are re-routed there.
//
// What is lost with the killed gateway: the cumulative counters it had built
// (its jobs' series start again at the surviving gateway; Prometheus'
// increase() sees a new series, not a reset). No log record is lost.
func TestTwoGatewaysLoadBalancing(t *testing.T) {
	started := time.Now()
	f := newFleet(t, "gateway-a", "gateway-b")
	gwA, gwB, logs := f.gateways[0], f.gateways[1], f.logs
	// 16 jobs: the ring places each on either gateway, so the chance that all
	// land on one (and the test cannot check the split) is 2 in 65536.
	var services []string
	for i := range 16 {
		svc := fmt.Sprintf("train-job-%02d", i)
		services = append(services, svc)
		logs.write(t, svc, 10+2*i, 3+i%3) // different OOM counts per job
	}
	agent := f.startAgent(t, "agent", "beginning", gwA, gwB)

	readAll := func() (a, b []records.Record) { return gwA.read(t), gwB.read(t) }
	eventually(t, 90*time.Second, func() string {
		a, b := readAll()
		if len(a)+len(b) < logs.total() {
			return fmt.Sprintf("gateways wrote %d + %d records, want %d", len(a), len(b), logs.total())
		}
		return ""
	})
	a, b := readAll()
	onA, onB := servicesOf(a), servicesOf(b)
	for svc := range onA {
		if onB[svc] {
			t.Errorf("job %s has records on both gateways", svc)
		}
	}
	if len(onA) == 0 || len(onB) == 0 {
		t.Fatalf("one gateway got every job (a: %v, b: %v): nothing was balanced", keysOf(onA), keysOf(onB))
	}
	copies, problems := logs.delivery(append(a, b...))
	for _, p := range problems {
		t.Error(p)
	}
	if n, first := logs.missing(copies); n > 0 {
		t.Errorf("%d records missing, e.g. %v", n, first)
	}
	t.Logf("phase 1: %d records, %d OOMs; gateway-a has %v, gateway-b has %v; duplicates %d (%.1fs)",
		logs.total(), logs.ooms(), keysOf(onA), keysOf(onB), duplicates(copies), time.Since(started).Seconds())

	// Metrics: each job's series on one gateway only, totals = OOMs written.
	eventually(t, 30*time.Second, func() string {
		var total float64
		for _, g := range []*gateway{gwA, gwB} {
			m, err := promtext.Scrape("http://"+g.prom+"/metrics", 5*time.Second)
			if err != nil {
				return err.Error()
			}
			for _, svc := range services {
				v := promtext.Sum(m, "xla_oom_errors_total", map[string]string{"service_name": svc})
				mine := (g == gwA && onA[svc]) || (g == gwB && onB[svc])
				if !mine && v != 0 {
					return fmt.Sprintf("%s has xla_oom_errors_total{service_name=%s} = %v, but the job is routed to the other gateway", g.name, svc, v)
				}
				if mine && v != float64(logs.ooms(svc)) {
					return fmt.Sprintf("%s: xla_oom_errors_total{service_name=%s} = %v, want %d", g.name, svc, v, logs.ooms(svc))
				}
				total += v
			}
		}
		if total != float64(logs.ooms()) {
			return fmt.Sprintf("xla_oom_errors_total across gateways = %v, want %d", total, logs.ooms())
		}
		return ""
	})

	// Phase 2: gateway-b dies. New lines for every job: gateway-a's jobs go on,
	// gateway-b's wait in the agent's queue (the static resolver keeps routing
	// them to gateway-b).
	gwB.proc.Kill()
	killedAt := time.Now()
	aBefore := len(gwA.read(t))
	phase1OOMs := map[string]int{}
	for _, svc := range services {
		phase1OOMs[svc] = logs.ooms(svc)
		logs.write(t, svc, 10, 3)
	}
	wantOnA := 10 * len(onA)
	eventually(t, 60*time.Second, func() string {
		if got := len(gwA.read(t)) - aBefore; got < wantOnA {
			return fmt.Sprintf("gateway-a got %d new records, want %d (its own jobs)", got, wantOnA)
		}
		return ""
	})

	// Restart the agent with the surviving gateway only: the queued records of
	// gateway-b's jobs are routed again, to gateway-a.
	if err := agent.Stop(30 * time.Second); err != nil {
		t.Errorf("agent stop: %v", err)
	}
	f.startAgent(t, "agent-restarted", "end", gwA)
	eventually(t, 90*time.Second, func() string {
		copies, _ := logs.delivery(append(gwA.read(t), b...))
		if n, first := logs.missing(copies); n > 0 {
			return fmt.Sprintf("%d records not delivered after re-routing, e.g. %v", n, first)
		}
		return ""
	})
	a = gwA.read(t)
	copies, problems = logs.delivery(append(a, b...))
	for _, p := range problems {
		t.Error(p)
	}
	movedJobs := 0
	for svc := range servicesOf(a) {
		if onB[svc] {
			movedJobs++
		}
	}
	if movedJobs != len(onB) {
		t.Errorf("%d of gateway-b's %d jobs re-routed to gateway-a", movedJobs, len(onB))
	}
	// Duplicates: while gateway-b is down, a request that held records for
	// both gateways fails as a whole and is retried as a whole, so gateway-a
	// receives its part again at every retry.
	t.Logf("phase 2: gateway-b killed; %d records of its %d jobs re-routed to gateway-a after %.1fs; total %d records, "+
		"0 lost, %d duplicates", 10*len(onB), len(onB), time.Since(killedAt).Seconds(), logs.total(), duplicates(copies))

	// gateway-a now counts the moved jobs too (their new OOMs only: the counts
	// gateway-b held died with it).
	eventually(t, 30*time.Second, func() string {
		m, err := promtext.Scrape("http://"+gwA.prom+"/metrics", 5*time.Second)
		if err != nil {
			return err.Error()
		}
		tagged := map[string]int{}
		for _, r := range gwA.read(t) {
			if r.Str("xla.error.code") != "" {
				tagged[r.ResourceStr("service.name")]++
			}
		}
		for svc := range onB {
			// Every tagged copy gateway-a received, duplicates included, is
			// counted; at least the OOMs written since the move.
			want := tagged[svc]
			if want < logs.ooms(svc)-phase1OOMs[svc] {
				return fmt.Sprintf("gateway-a holds %d OOM records of %s, want >= %d", want, svc, logs.ooms(svc)-phase1OOMs[svc])
			}
			if v := promtext.Sum(m, "xla_oom_errors_total", map[string]string{"service_name": svc}); v != float64(want) {
				return fmt.Sprintf("gateway-a: xla_oom_errors_total{service_name=%s} = %v, want %d (the OOM records it received)", svc, v, want)
			}
		}
		return ""
	})
	t.Logf("two-gateway test took %.1fs", time.Since(started).Seconds())
}

// servicesOf is the set of service.name values among recs.
func servicesOf(recs []records.Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		out[r.ResourceStr("service.name")] = true
	}
	return out
}

func keysOf(m map[string]bool) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
