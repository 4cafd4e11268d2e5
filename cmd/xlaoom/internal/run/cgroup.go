// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Where the wrapper finds its own memory cgroup; tests point them at a
// fake tree.
var (
	procSelfCgroup = "/proc/self/cgroup"
	cgroupRoot     = "/sys/fs/cgroup"
)

// memcgCounts are the memory cgroup's counters that tell a host-memory kill
// apart, read before and after each run.
type memcgCounts struct {
	path    string // the cgroup's directory
	v2      bool
	oomKill int64 // processes the OOM killer killed in it (v2 memory.events oom_kill, v1 memory.oom_control oom_kill)
	// oomAtLimit: v2 memory.events "oom", the times the cgroup's own limit
	// made it OOM; v1 has no such counter.
	oomAtLimit int64
	limit      int64 // memory.max / memory.limit_in_bytes; 0 none
	peak       int64 // memory.peak / memory.max_usage_in_bytes; 0 unknown
}

// readMemcg reads the counters of the wrapper's memory cgroup: the
// "memory" controller's line of /proc/self/cgroup under cgroupRoot/memory
// (v1), else the unified line "0::" under cgroupRoot (v2). The job runs in
// the wrapper's cgroup (or below it), so its kills are counted there.
func readMemcg() (memcgCounts, error) {
	f, err := os.Open(procSelfCgroup)
	if err != nil {
		return memcgCounts{}, err
	}
	defer func() { _ = f.Close() }() // read only
	var v1, v2 string
	for sc := bufio.NewScanner(f); sc.Scan(); {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case hasController(parts[1], "memory"):
			v1 = parts[2]
		}
	}
	if v1 != "" {
		dir := filepath.Join(cgroupRoot, "memory", v1)
		if _, err := os.Stat(filepath.Join(dir, "memory.oom_control")); err == nil {
			return readV1(dir)
		}
	}
	if v2 != "" {
		dir := filepath.Join(cgroupRoot, v2)
		if _, err := os.Stat(filepath.Join(dir, "memory.events")); err == nil {
			return readV2(dir)
		}
	}
	return memcgCounts{}, errors.New("no memory cgroup: neither memory.oom_control (v1) nor memory.events (v2) of this process's cgroup is readable")
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

func readV2(dir string) (memcgCounts, error) {
	c := memcgCounts{path: dir, v2: true}
	kv, err := readKeyed(filepath.Join(dir, "memory.events"))
	if err != nil {
		return c, err
	}
	var ok bool
	if c.oomKill, ok = kv["oom_kill"]; !ok {
		return c, fmt.Errorf("%s: no oom_kill counter", filepath.Join(dir, "memory.events"))
	}
	c.oomAtLimit = kv["oom"]
	c.limit = readNumber(filepath.Join(dir, "memory.max"))
	c.peak = readNumber(filepath.Join(dir, "memory.peak"))
	return c, nil
}

func readV1(dir string) (memcgCounts, error) {
	c := memcgCounts{path: dir}
	kv, err := readKeyed(filepath.Join(dir, "memory.oom_control"))
	if err != nil {
		return c, err
	}
	var ok bool
	// oom_kill is in memory.oom_control since Linux 4.13.
	if c.oomKill, ok = kv["oom_kill"]; !ok {
		return c, fmt.Errorf("%s: no oom_kill counter (Linux before 4.13)", filepath.Join(dir, "memory.oom_control"))
	}
	c.limit = readNumber(filepath.Join(dir, "memory.limit_in_bytes"))
	c.peak = readNumber(filepath.Join(dir, "memory.max_usage_in_bytes"))
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

// readNumber reads a one-number file; 0 for "max", a missing file, or the
// v1 "no limit" (a number near 2^63).
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
