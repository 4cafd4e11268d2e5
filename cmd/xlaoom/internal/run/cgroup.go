// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Where the wrapper finds its memory cgroup (tests: a fake tree).
var (
	procSelfCgroup = "/proc/self/cgroup"
	cgroupRoot     = "/sys/fs/cgroup"
)

// memcgCounts are the memory cgroup's kill counters, read around each run.
type memcgCounts struct {
	path       string // the cgroup's directory
	v2         bool
	oomKill    int64 // processes the OOM killer killed in it (oom_kill of v2 memory.events, v1 memory.oom_control)
	oomAtLimit int64 // v2 memory.events "oom": the times its own limit made it OOM
	limit      int64 // memory.max / memory.limit_in_bytes; 0 none
	peak       int64 // memory.peak / memory.max_usage_in_bytes; 0 unknown
}

// readMemcg reads the counters of the wrapper's (and job's) memory cgroup.
func readMemcg() (memcgCounts, error) {
	f, err := os.Open(procSelfCgroup)
	if err != nil {
		return memcgCounts{}, err
	}
	defer func() { _ = f.Close() }() // read only
	var rel [2]string                // the cgroup's path in the v1 memory hierarchy, in the v2 one
	for sc := bufio.NewScanner(f); sc.Scan(); {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			rel[1] = parts[2]
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			rel[0] = parts[2]
		}
	}
	for i, files := range memcgLayouts {
		if rel[i] == "" {
			continue // the process is in no cgroup of this hierarchy
		}
		dir := filepath.Join(cgroupRoot, files.root, rel[i])
		if _, err := os.Stat(filepath.Join(dir, files.counters)); err == nil {
			return readCounts(dir, i == 1, files)
		}
	}
	return memcgCounts{}, errors.New("no memory cgroup: neither memory.oom_control (v1) nor memory.events (v2) of this process's cgroup is readable")
}

// memcgLayout names a memory cgroup hierarchy's counter files.
type memcgLayout struct {
	root, counters, limit, peak string
	note                        string // why counters may lack oom_kill
}

// memcgLayouts are v1's and v2's.
var memcgLayouts = [2]memcgLayout{
	{"memory", "memory.oom_control", "memory.limit_in_bytes", "memory.max_usage_in_bytes", " (Linux before 4.13)"},
	{"", "memory.events", "memory.max", "memory.peak", ""},
}

func readCounts(dir string, v2 bool, files memcgLayout) (memcgCounts, error) {
	c := memcgCounts{path: dir, v2: v2}
	path := filepath.Join(dir, files.counters)
	kv, err := readKeyed(path)
	if err != nil {
		return c, err
	}
	var ok bool
	if c.oomKill, ok = kv["oom_kill"]; !ok {
		return c, fmt.Errorf("%s: no oom_kill counter%s", path, files.note)
	}
	c.oomAtLimit = kv["oom"] // v2 only: v1's oom_control has no such key
	c.limit = readNumber(filepath.Join(dir, files.limit))
	c.peak = readNumber(filepath.Join(dir, files.peak))
	return c, nil
}

// readKeyed reads a flat-keyed file ("oom_kill 1" lines).
func readKeyed(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	kv := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				kv[k] = n
			}
		}
	}
	return kv, nil
}

// readNumber reads a one-number file; 0 for "max", none, or v1's "no limit".
func readNumber(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n >= 1<<62 {
		return 0
	}
	return n
}

// hostKill is what the memory cgroup's counters say of one run's kills.
type hostKill struct {
	kills int64
	after memcgCounts
	// ownLimit: the cgroup reached its own limit, not the node or an ancestor.
	ownLimit bool
}

// hostKillBetween compares the counters around a run; nil: no kill, or unread.
func hostKillBetween(before memcgCounts, beforeErr error) *hostKill {
	if beforeErr != nil {
		return nil
	}
	after, err := readMemcg()
	if err != nil || after.path != before.path || after.oomKill <= before.oomKill {
		return nil
	}
	k := &hostKill{kills: after.oomKill - before.oomKill, after: after}
	if after.v2 {
		k.ownLimit = after.oomAtLimit > before.oomAtLimit
	} else {
		// v1 has no "oom" counter: a peak at the limit (to a charge batch) shows it.
		k.ownLimit = after.limit > 0 && after.peak >= after.limit-2<<20
	}
	return k
}

// kill is the counters' kill as hostoom reads the kernel's.
func (k *hostKill) kill() *hostoom.Kill {
	s := hostoom.KillReport{Kind: hostoom.KernelKilled, Constraint: hostoom.ConstraintGlobal, Count: k.kills}
	if k.ownLimit {
		s.Constraint, s.Limit = hostoom.ConstraintCgroup, k.after.limit
	}
	return &hostoom.Kill{KillReport: s, Complete: true}
}

func (k *hostKill) String() string {
	where := "the node ran out of memory (not the cgroup's own limit)"
	if k.ownLimit {
		where = "it reached its cgroup's memory limit"
		if k.after.limit > 0 {
			where += " of " + oom.HumanBytes(k.after.limit)
		}
	}
	return fmt.Sprintf("the kernel's OOM killer killed %d process(es) of the job in %s: %s", k.kills, k.after.path, where)
}

// decideHostKill decides by hostoom's verdict, as for an XLA failure of it.
func (w *wrapper) decideHostKill(k *hostKill, status int, retries *int, sigs *signals) (exit int, rerun bool) {
	kill := k.kill()
	if verdict, _ := kill.Retry(); verdict == oom.RetryFutile {
		w.decided("the job exited %d: %s; futile, a restart fails the same way with the same limit (%s): exit %d",
			status, k, kill.Hint(), w.o.futileExit)
		return w.o.futileExit, false
	}
	what := fmt.Sprintf("the job exited %d: %s; may pass on a rerun", status, k)
	return w.mayHelp(what, "", " ("+kill.Hint()+")", status, retries, sigs)
}
