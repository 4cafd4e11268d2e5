// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"testing"
	"time"
)

// TestAgentRestartWithoutLoss kills the agent (SIGKILL, as when its node or
// container dies) in the middle of a log stream and starts it again on the
// same storage directory. With file_log's checkpoints and the export queue in
// file_storage, every line written before, during and after the outage reaches
// the gateway at least once and every OOM in it is tagged. Lines the agent had
// read but whose checkpoint or acknowledgement it had not yet stored are sent
// again: those are the duplicates, reported below.
func TestAgentRestartWithoutLoss(t *testing.T) {
	started := time.Now()
	f := newFleet(t, "gateway")
	gw, logs := f.gateways[0], f.logs
	services := []string{"llama-pretrain", "gemma-sft", "t5-eval"}

	// The restarted agent has start_at: end, the shipped default: without the
	// checkpoints in file_storage it would skip every line written while it
	// was down (the first start reads from the beginning only because the
	// logs may appear before its first poll).
	agent := f.startAgent(t, "agent", "beginning", gw)
	// The stream: rounds of records appended to every job's log; the agent is
	// killed once a good part of it has been delivered, while writing goes on.
	const rounds, perRound = 30, 20
	killed := false
	for round := range rounds {
		for _, svc := range services {
			logs.write(t, svc, perRound, 7)
		}
		if !killed && round >= rounds/3 {
			// Wait until the gateway has something, so the kill lands mid-stream.
			eventually(t, 60*time.Second, func() string {
				if n := len(gw.read(t)); n < logs.total()/4 {
					return fmt.Sprintf("gateway has %d of %d records before the kill", n, logs.total())
				}
				return ""
			})
			agent.Kill()
			killed = true
			t.Logf("agent killed after %d of %d records written, %d delivered", logs.total(), rounds*perRound*len(services), len(gw.read(t)))
		}
		if killed && round == rounds/2 {
			agent = f.startAgent(t, "agent-restarted", "end", gw)
		}
		time.Sleep(50 * time.Millisecond) // a stream, not one burst
	}

	eventually(t, 90*time.Second, func() string {
		copies, _ := logs.delivery(gw.read(t))
		if n, first := logs.missing(copies); n > 0 {
			return fmt.Sprintf("%d of %d records not delivered, e.g. %v", n, logs.total(), first)
		}
		return ""
	})
	copies, problems := logs.delivery(gw.read(t))
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("restart: %d records (%d OOMs) written, all delivered, every OOM tagged; %d duplicates after the SIGKILL; %.1fs",
		logs.total(), logs.ooms(), duplicates(copies), time.Since(started).Seconds())
}
