// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
	"github.com/xlaoom/xlaoomprocessor/distribution/internal/records"
)

// jobLogs writes synthetic job logs, root/<service>/train.log, the way a
// training job does: step lines and, now and then, an XLA OOM with a traceback
// continuation (so multiline records are exercised). Every record carries a
// unique "seq=<service>/<n>" so deliveries can be counted one by one.
type jobLogs struct {
	root string
	next map[string]int
	oom  map[string]bool // seq -> is an OOM record
}

func newJobLogs(root string) *jobLogs {
	return &jobLogs{root: root, next: map[string]int{}, oom: map[string]bool{}}
}

func (j *jobLogs) glob() string { return filepath.Join(j.root, "*", "*.log") }

// write appends n records to service's log; every oomEvery-th one is an OOM.
func (j *jobLogs) write(t *testing.T, service string, n, oomEvery int) {
	t.Helper()
	var b strings.Builder
	for range n {
		i := j.next[service]
		j.next[service]++
		seq := fmt.Sprintf("%s/%d", service, i)
		ts := fmt.Sprintf("2025-09-12 07:%02d:%02d.%06d", (i/60)%60, i%60, i)
		if oomEvery > 0 && i%oomEvery == oomEvery-1 {
			j.oom[seq] = true
			fmt.Fprintf(&b, "%s: E external/xla/xla/pjrt/pjrt_stream_executor_client.cc:3045] seq=%s Execution of replica 0 failed: "+
				"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2110783616 bytes.\n"+
				"Traceback (most recent call last):\n  File \"/app/train.py\", line 241, in main\n", ts, seq)
		} else {
			fmt.Fprintf(&b, "%s: I train.py:88] seq=%s step %d loss=0.%03d\n", ts, seq, i, i%1000)
		}
	}
	appendFile(t, filepath.Join(j.root, service, "train.log"), b.String())
}

// ooms is how many OOM records were written for the services (all when none given).
func (j *jobLogs) ooms(services ...string) int {
	n := 0
	for seq, isOOM := range j.oom {
		if isOOM && (len(services) == 0 || contains(services, strings.Split(seq, "/")[0])) {
			n++
		}
	}
	return n
}

func (j *jobLogs) total() int {
	n := 0
	for _, c := range j.next {
		n += c
	}
	return n
}

var seqRE = regexp.MustCompile(`seq=(\S+)`)

// delivery counts, per seq, the copies among recs, and checks that every OOM
// copy is tagged. It returns the counts and a list of problems.
func (j *jobLogs) delivery(recs []records.Record) (copies map[string]int, problems []string) {
	copies = map[string]int{}
	for _, r := range recs {
		m := seqRE.FindStringSubmatch(r.Body)
		if m == nil {
			problems = append(problems, "record without seq: "+r.Body)
			continue
		}
		copies[m[1]]++
		if j.oom[m[1]] && r.Str("xla.error.code") == "" {
			problems = append(problems, "OOM record not tagged: "+m[1])
		}
		if !j.oom[m[1]] && r.Str("xla.error.code") != "" {
			problems = append(problems, "step record tagged: "+m[1])
		}
	}
	return copies, problems
}

// missing lists the written seqs of which copies holds none (at most 10).
func (j *jobLogs) missing(copies map[string]int) (n int, first []string) {
	for svc, count := range j.next {
		for i := range count {
			seq := fmt.Sprintf("%s/%d", svc, i)
			if copies[seq] == 0 {
				n++
				if len(first) < 10 {
					first = append(first, seq)
				}
			}
		}
	}
	sort.Strings(first)
	return n, first
}

// duplicates is the number of extra copies (copies beyond the first).
func duplicates(copies map[string]int) int {
	n := 0
	for _, c := range copies {
		if c > 1 {
			n += c - 1
		}
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// gateway is one examples/gateway.yaml process with its addresses.
type gateway struct {
	name, otlp, http, prom, records string
	proc                            *collector.Process
}

// startGateway runs examples/gateway.yaml with TLS from pki (client
// certificates required when clientAuth) on free loopback ports.
func startGateway(t *testing.T, name string, pki testPKI, clientAuth bool) *gateway {
	t.Helper()
	g := &gateway{name: name, records: filepath.Join(t.TempDir(), name+"-records.json")}
	var ports *collector.Ports
	g.proc, ports = startCollector(t, name, filepath.Join(examplesDir, "gateway.yaml"), func(p *collector.Ports) []string {
		return gatewayEnv(p, g.records, pki.gatewayTLSEnv(clientAuth))
	}, "otlp", "http", "prom")
	g.otlp, g.http, g.prom = ports.Addr("otlp"), ports.Addr("http"), ports.Addr("prom")
	return g
}

// gatewayEnv is the environment of examples/gateway.yaml on the ports p,
// writing the records it exports to records, with the TLS settings tls.
func gatewayEnv(p *collector.Ports, records string, tls []string) []string {
	return append(append(telemetryEnv(p),
		"XLAOOM_OTLP_GRPC_ENDPOINT="+p.Addr("otlp"), "XLAOOM_OTLP_HTTP_ENDPOINT="+p.Addr("http"),
		"XLAOOM_PROMETHEUS_ENDPOINT="+p.Addr("prom"), "XLAOOM_RECORDS_FILE="+records, "XLAOOM_EMIT_INTERVAL=1s",
	), tls...)
}

func (g *gateway) read(t *testing.T) []records.Record {
	t.Helper()
	recs, err := records.ReadFile(g.records)
	if err != nil {
		t.Fatalf("%s: %v", g.name, err)
	}
	lines, _ := records.Split(recs) // the processor's failure records are no input's
	return lines
}

// fleet is what the agent-to-gateway tests start from: a PKI, gateways
// serving TLS with it, and one node whose agent tails the job logs and keeps
// its checkpoints and export queue in storage, where an agent restarted on
// the node finds them again.
type fleet struct {
	pki      testPKI
	gateways []*gateway
	logs     *jobLogs
	storage  string
}

// newFleet starts one gateway per name (no client certificates required)
// and prepares the node's directories; no agent runs yet.
func newFleet(t *testing.T, gatewayNames ...string) *fleet {
	t.Helper()
	dir := t.TempDir()
	f := &fleet{pki: newTestPKI(t), logs: newJobLogs(filepath.Join(dir, "jobs")), storage: filepath.Join(dir, "storage")}
	for _, name := range gatewayNames {
		f.gateways = append(f.gateways, startGateway(t, name, f.pki, false))
	}
	return f
}

// startAgent runs the node's agent, which verifies the gateways' server
// certificate and presents none of its own (see the package startAgent).
func (f *fleet) startAgent(t *testing.T, name, startAt string, gateways ...*gateway) *collector.Process {
	t.Helper()
	return startAgent(t, name, f.logs, f.storage, startAt, f.pki, false, gateways...)
}

// startAgent runs examples/agent.yaml on the job logs, exporting through
// load_balancing to gateways, with its checkpoints and queue in storage.
// startAt is file_log's start_at for the files it finds at start-up: a
// restarted agent uses "end", the shipped default, so that only its
// checkpoints can bring back what was written while it was down.
func startAgent(t *testing.T, name string, logs *jobLogs, storage, startAt string, pki testPKI, clientCert bool, gateways ...*gateway) *collector.Process {
	t.Helper()
	addrs := make([]string, 0, len(gateways))
	for _, g := range gateways {
		addrs = append(addrs, g.otlp)
	}
	noPods := filepath.Join(t.TempDir(), "no-pods", "*", "*", "*.log")
	p, _ := startCollector(t, name, filepath.Join(examplesDir, "agent.yaml"), func(p *collector.Ports) []string {
		return append(append(telemetryEnv(p),
			"XLAOOM_JOB_LOGS="+logs.glob(), "XLAOOM_CONTAINER_LOGS="+noPods,
			"XLAOOM_START_AT="+startAt, "HOST_NAME=node-1", "XLAOOM_STORAGE_DIR="+storage,
			"XLAOOM_GATEWAYS=["+strings.Join(addrs, ",")+"]",
		), pki.agentTLSEnv(clientCert)...)
	}, "health")
	return p
}
