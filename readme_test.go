// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package xlaoomprocessor_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/internal/oomattr"
)

func readDoc(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeReadInFiveMinutes: the README stays short, and its status table
// holds no template leftovers.
func TestReadmeReadInFiveMinutes(t *testing.T) {
	readme := readDoc(t, "README.md")
	if words := len(strings.Fields(readme)); words > 1500 {
		t.Errorf("README.md has %d words (wc -w), want at most 1,500: move depth to docs/", words)
	}
	for _, leftover := range []string{"| Distributions | [] |", "becoming-a-code-owner)    |  |"} {
		if strings.Contains(readme, leftover) {
			t.Errorf("README.md's status table holds %q: fix metadata.yaml and run make generate", leftover)
		}
	}
}

// TestReadmeInstallsWhatExists: no release is published, so the README
// installs only the packages make release-snapshot writes to dist/.
func TestReadmeInstallsWhatExists(t *testing.T) {
	for _, m := range regexp.MustCompile(`(?m)apt(?:-get)? install (?:-y )?(\S+\.deb)`).FindAllStringSubmatch(readDoc(t, "README.md"), -1) {
		if !strings.HasPrefix(m[1], "./dist/") {
			t.Errorf("README.md installs %s, which no build writes", m[1])
		}
	}
}

// hostKillAttributes are the attributes of a host-memory kill's record
// (internal/oomattr, PutHostKill).
var hostKillAttributes = []string{
	"xla.oom.host.source", "xla.oom.host.statement", "xla.oom.host.constraint", "xla.oom.host.rss.size",
	"xla.oom.host.limit.size", "xla.oom.host.usage.size", "xla.oom.host.cgroup", "xla.oom.host.limit_cgroup",
	"xla.oom.host.owner", "xla.oom.host.tasks", "xla.oom.host.systemd_unit", "xla.oom.host.slurm.job_id",
	"xla.oom.host.slurm.step_id", "xla.oom.host.node", "process.pid", "process.command", "k8s.pod.uid",
	"k8s.container.name", "container.id",
}

// TestContractHasHostKills: the stable contract names the host-kill
// attributes, in full in docs/attributes.md and by name in the README.
func TestContractHasHostKills(t *testing.T) {
	contract, readme := readDoc(t, "docs/attributes.md"), readDoc(t, "README.md")
	for _, a := range hostKillAttributes {
		if !strings.Contains(contract, "`"+a+"`") {
			t.Errorf("docs/attributes.md does not define %s", a)
		}
		short := "`." + strings.TrimPrefix(a, "xla.oom.host.") + "`"
		if !strings.Contains(readme, "`"+a+"`") && (!strings.HasPrefix(a, "xla.oom.host.") || !strings.Contains(readme, short)) {
			t.Errorf("README.md does not name %s", a)
		}
	}
}

// TestContractHasFailureFacts: the stable contract defines the attributes
// that say why a failure's verdict, and the README names them.
func TestContractHasFailureFacts(t *testing.T) {
	contract, readme := readDoc(t, "docs/attributes.md"), readDoc(t, "README.md")
	for _, a := range []string{oomattr.RetryRule, oomattr.RetryMissing, oomattr.Framework, oomattr.EarlierFailures,
		oomattr.StartModel, oomattr.StartCapacity, oomattr.StartCapacitySource, oomattr.StartFree, oomattr.StartHeld,
		oomattr.StartSource, oomattr.StartHolders, oomattr.StartPoolLimit, oomattr.StartPoolBasis,
		oomattr.PlanPeak, oomattr.PlanLimit, oomattr.PlanSource} {
		if !strings.Contains(contract, "`"+a+"`") {
			t.Errorf("docs/attributes.md does not define %s", a)
		}
		if !namedIn(readme, a) {
			t.Errorf("README.md does not name %s", a)
		}
	}
}

// namedIn: doc names attribute a in full or by a suffix after one of its
// dots (`.held.size` after `xla.oom.start.free.size`).
func namedIn(doc, a string) bool {
	for i := range a {
		if (i == 0 || a[i] == '.') && strings.Contains(doc, "`"+a[i:]+"`") {
			return true
		}
	}
	return false
}

// TestSlurmDeployment: Slurm has a deployment section that says how a job's
// output reaches the agent and where xlaoom comes from.
func TestSlurmDeployment(t *testing.T) {
	doc := readDoc(t, "docs/deployment.md")
	_, section, ok := strings.Cut(doc, "\n## Slurm\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, want := range []string{"#SBATCH --output=", "XLAOOM_JOB_LOGS", "make xlaoom", "xlaoom_VERSION_linux_amd64.tar.gz"} {
		if !ok || !strings.Contains(section, want) {
			t.Errorf("docs/deployment.md's Slurm section (found: %v) does not say %q", ok, want)
		}
	}
}
