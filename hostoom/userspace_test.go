// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import "testing"

// A SIGKILL's report, as each source prints it: read, but only to lend.
func TestLenderLines(t *testing.T) {
	for _, c := range []struct {
		source, line string
		pid          int64
		command      string
	}{
		// bash 4.2-5.3 jobs.c print_pipeline: "%s: line %d: " + "%5ld" + " " + "Killed" padded to 27 + command
		{"bash 5.1, a Slurm batch script", "/var/spool/slurmd/job1667068/slurm_script: line 46: 1667068 Killed                  python3 train.py --epochs 3",
			1667068, "python3 train.py --epochs 3"},
		{"bash 4.2, a pid under five digits", "/bin/sh: line 1:  4242 Killed                  python train.py", 4242, "python train.py"},
		// PyTorch torch/csrc/DataLoader.cpp (1.x-2.x): "DataLoader worker (pid N) is killed by signal: <strsignal>."
		{"PyTorch DataLoader.cpp", "RuntimeError: DataLoader worker (pid 31337) is killed by signal: Killed. ", 31337, "DataLoader worker"},
		// PyTorch torch/utils/data/dataloader.py (1.x-2.x): "DataLoader worker (pid(s) {pids_str}) exited unexpectedly"
		{"PyTorch dataloader.py", "RuntimeError: DataLoader worker (pid(s) 31337, 31338) exited unexpectedly", 31337, "DataLoader worker"},
		// torch/distributed/elastic/multiprocessing/api.py (torchrun, 1.10-2.x)
		{"torchrun api.py", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 5219) of binary: /usr/bin/python3",
			5219, "/usr/bin/python3"},
		// torch/distributed/elastic/multiprocessing/errors (torchrun's summary, 1.10-2.x)
		{"torchrun error summary", "  traceback : Signal 9 (SIGKILL) received by PID 5219", 5219, ""},
	} {
		s, ok := Parse(c.line)
		if !ok || !s.Kind.Lends() || s.PID != c.pid || s.Command != c.command {
			t.Errorf("%s: got %+v, %v; want a lender of pid %d, %q", c.source, s, ok, c.pid, c.command)
		}
	}
	for _, l := range []string{
		"Killed", "worker 3 Killed by user request", "DataLoader worker (pid 31337) exited with code 1",
		"failed (exitcode: 1) local_rank: 0 (pid: 5219) of binary: /usr/bin/python3", // not a SIGKILL
		"Signal 15 (SIGTERM) received by PID 5219",
	} {
		if s, ok := Parse(l); ok {
			t.Errorf("%q: read as %v", l, s.Kind)
		}
	}
}

// A lender alone is no kill; it lends its pid and command to the next kill
// of its stream that names none, within Quiet; one systemd-oomd kill is one
// kill; a selection line with no kill line becomes a kill marked selected.
func TestJoinerLendsAndDedupes(t *testing.T) {
	const bash = "/var/spool/slurmd/job1667068/slurm_script: line 46: 1667068 Killed                  python3 train.py"
	const slurm = "slurmstepd: error: Detected 1 oom_kill event in StepId=1667068.batch. Some of the step tasks have been OOM Killed."                                              // Slurm 23.02+
	const oomd = "Killed /system.slice/train.service due to memory used (16372150272) / total (16642998272) and swap used (4294967296) / total (4294967296) being more than 90.00%" // systemd-oomd v250+
	const unit = "train.service: systemd-oomd killed 3 process(es) in this unit."                                                                                                   // systemd v248+
	const sel = "[ 3920.118511] Memory cgroup out of memory: Kill process 9120 (python3) score 998 or sacrifice child"                                                              // 4.4-5.0
	for _, c := range []struct {
		name  string
		lines []string
		want  []Kill // the fields compared: Kind, PID, Command, Complete
	}{
		{"bash alone", []string{bash}, nil},
		{"bash lends to slurmstepd", []string{bash, slurm}, []Kill{{KillReport: KillReport{Kind: SlurmOOM, PID: 1667068, Command: "python3 train.py"}, Complete: true}}},
		{"slurmstepd before bash", []string{slurm, bash}, []Kill{{KillReport: KillReport{Kind: SlurmOOM}, Complete: true}}},
		{"oomd and systemd: one kill", []string{oomd, unit}, []Kill{{KillReport: KillReport{Kind: OomdKill}, Complete: true}}},
		{"selection line alone", []string{sel}, []Kill{{KillReport: KillReport{Kind: KernelSelect, PID: 9120, Command: "python3"}}}},
	} {
		got := joinLines(&Joiner{}, c.lines)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d kills, want %d: %+v", c.name, len(got), len(c.want), got)
			continue
		}
		for i, w := range c.want {
			g := got[i]
			if g.Kind != w.Kind || g.PID != w.PID || g.Command != w.Command || g.Complete != w.Complete {
				t.Errorf("%s: kill %d = %v pid %d %q complete %v, want %v pid %d %q complete %v", c.name, i,
					g.Kind, g.PID, g.Command, g.Complete, w.Kind, w.PID, w.Command, w.Complete)
			}
		}
	}
}

// The selection line holds no prefilter key: the processor reads it by its
// tail, on every kernel that prints it.
func TestSelectionLineTail(t *testing.T) {
	for _, c := range []struct{ source, line string }{
		{"RHEL 7.9 3.10.0-1160 oom_kill_process, %d score", "Memory cgroup out of memory: Kill process 42453 (memcg_test_1) score 1000 or sacrifice child"},
		{"4.4.121-5.0.1 oom_kill_process, %u score, dmesg", "[ 3920.118511] Out of memory: Kill process 9120 (python3) score 998 or sacrifice child"},
		{"4.14.67, rsyslog RFC 3164", "Mar  3 04:11:52 gpu-node-3 kernel: Memory cgroup out of memory: Kill process 9120 (python3) score 998 or sacrifice child\n"},
	} {
		if !MayEndWithTail(c.line) || !EndsWithTail(c.line) {
			t.Errorf("%s: tail not found in %q", c.source, c.line)
		}
		if s, ok := Parse(c.line); !ok || s.Kind != KernelSelect {
			t.Errorf("%s: read as %v, %v", c.source, s.Kind, ok)
		}
	}
}
