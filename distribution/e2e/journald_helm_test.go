// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/xlaoom/xlaoomprocessor/distribution/internal/collector"
)

// TestHelmJournaldChroot runs the Helm agent's journald/kernel receiver
// (deploy/helm/agent-values.yaml) as the DaemonSet runs it: journalctl at
// its journalctl_path inside root_path, through chroot, as root. The node's
// root is this machine's (root_path /hostfs becomes /: the chroot changes
// nothing else) and the journal a file of one real kill; the rest of the
// receiver (--dmesg, the filter, the cursor's storage) is the values' own. One kill record and only the kill's OOM lines come
// out. Needs root (chroot), journalctl and systemd-journal-remote.
func TestHelmJournaldChroot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the receiver runs journalctl through chroot (the DaemonSet's SYS_CHROOT)")
	}
	remote := journalTools(t)
	b, err := os.ReadFile(filepath.Join(deployDir, "helm", "agent-values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Config struct {
			Receivers map[string]map[string]any `yaml:"receivers"`
		} `yaml:"config"`
	}
	if err := yaml.Unmarshal(b, &values); err != nil {
		t.Fatal(err)
	}
	receiver := values.Config.Receivers["journald/kernel"]
	if receiver["root_path"] != "/hostfs" || !strings.HasPrefix(receiver["journalctl_path"].(string), "/") {
		t.Fatalf("journald/kernel: root_path %v, journalctl_path %v: want /hostfs and an absolute path", receiver["root_path"], receiver["journalctl_path"])
	}
	if _, err := os.Stat(receiver["journalctl_path"].(string)); err != nil {
		t.Skipf("needs journalctl at %s, where the values look for it on the node: %v", receiver["journalctl_path"], err)
	}
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal")
	raw, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	if err != nil {
		t.Fatal(err)
	}
	other := journalEntry{transport: "kernel", priority: 6, message: "usb 1-1: new high-speed USB device number 2 using xhci_hcd"}
	entries := append([]journalEntry{other}, kernelEntries(strings.Split(strings.TrimRight(string(raw), "\n"), "\n"))...)
	writeJournal(t, remote, filepath.Join(journal, "system.journal"), "0123456789abcdef0123456789abcd01", 1_796_000_000_000_000, 2_190_840_000, entries)

	receiver["root_path"] = "/"
	receiver["directory"] = journal // relative to root_path, as on the node
	records := filepath.Join(dir, "records.json")
	config, err := yaml.Marshal(map[string]any{
		"extensions": map[string]any{"file_storage": map[string]any{"directory": filepath.Join(dir, "storage"), "create_directory": true}},
		"receivers":  map[string]any{"journald/kernel": receiver},
		"processors": map[string]any{"xla_oom": map[string]any{}},
		"exporters":  map[string]any{"file": map[string]any{"path": records}},
		"service": map[string]any{
			"extensions": []string{"file_storage"},
			"telemetry":  map[string]any{"logs": map[string]any{"level": "warn"}, "metrics": map[string]any{"level": "none"}},
			"pipelines": map[string]any{"logs": map[string]any{
				"receivers": []string{"journald/kernel"}, "processors": []string{"xla_oom"}, "exporters": []string{"file"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent.yaml")
	if err := os.WriteFile(path, config, 0o600); err != nil {
		t.Fatal(err)
	}
	startProcess(t, "agent", collector.Command{
		Binary: collectorBin,
		Args:   func(*collector.Ports) []string { return []string{"--config", path} },
	})
	recs := journalKills(t, records, 29330)
	if n := len(recs); n != 5 {
		t.Errorf("%d records, want the kill's 5 OOM lines", n)
	}
	for _, r := range recs {
		if msg, transport := journalMessage(t, r); transport != "kernel" || !oomLine.MatchString(msg) {
			t.Errorf("a journal entry that is no kernel OOM line came out: %s", r.Body)
		}
	}
	k := oneKill(t, recs, 29330)
	if limit, _ := k.Int("xla.oom.host.limit.size"); limit != 64<<20 {
		t.Errorf("kill record: limit %d, %v", limit, k.Attributes.AsRaw())
	}
}
