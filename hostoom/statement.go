// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package hostoom reads the statements that a process was killed for host memory (the kernel's OOM killer,
// systemd-oomd, earlyoom, Kubernetes, Slurm, Ray), joins one kill's statements, and gives its owner, verdict and
// advice. Pure Go, no collector types; formats in docs/incidents.md.
package hostoom // import "github.com/xlaoom/xlaoomprocessor/hostoom"

// Kind is what one statement says.
type Kind uint8

// The kinds of statement, in the order the kernel prints one kill.
const (
	KindNone      Kind = iota
	KernelInvoked      // "<comm> invoked oom-killer: gfp_mask=…": a kill starts
	KernelTaskIn       // "Task in <memcg> killed as a result of limit of <memcg>" (before 4.19)
	KernelUsage        // "memory: usage NkB, limit NkB, failcnt N" (cgroup v1 and v2)
	KernelStats        // "Memory cgroup stats for <path>:"
	KernelGroup        // "Tasks in <path> are going to be killed due to memory.oom.group set"
	KernelSummary      // "oom-kill:constraint=…,task_memcg=…,task=…,pid=…,uid=…" (4.19+), or a pr_cont piece
	KernelSelect       // "…: Kill process N (comm) score N or sacrifice child" (before 5.1)
	KernelKilled       // "…: Killed process N (comm) total-vm:…kB, anon-rss:…"
	KernelReaped       // "oom_reaper: reaped process N (comm), now anon-rss:…"
	OomdKill           // systemd-oomd killed (or marked for killing) a cgroup
	UnitOOM            // systemd: a process of a unit was killed for memory
	EarlyoomKill       // earlyoom sent a signal to a process
	PodOOMKilled       // a container terminated with reason OOMKilled
	NodeSystemOOM      // kubelet's SystemOOM event (a victim outside every pod)
	Eviction           // kubelet evicted a pod: the node was low on memory
	SlurmOOM           // slurmstepd detected oom-kill events in a step's cgroup
	SrunOOM            // srun reports a task that ended Out Of Memory
	RayOOM             // Ray's memory monitor killed a task or actor
	SignalKilled       // a shell or PyTorch saw a process die of SIGKILL: lends its pid and command, no kill alone
)

var kindNames = [...]string{"", "kernel_invoked", "kernel_task_in", "kernel_usage", "kernel_stats",
	"kernel_group", "kernel_summary", "kernel_select", "kernel_killed", "kernel_reaped",
	"systemd_oomd", "systemd_unit", "earlyoom", "k8s_oomkilled", "k8s_system_oom", "k8s_eviction",
	"slurm_oom", "srun_oom", "ray_oom", "sigkill"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Kernel reports whether the kind is one of the kernel's lines (Joiner joins them).
func (k Kind) Kernel() bool { return k >= KernelInvoked && k <= KernelReaped }

// Echo reports whether the kind repeats a kill its source reports too (srun).
func (k Kind) Echo() bool { return k == SrunOOM }

// Lends reports whether the kind only lends its pid and command to a kill of its stream (Joiner): any SIGKILL prints it.
func (k Kind) Lends() bool { return k == SignalKilled }

// Source is the program that printed a statement (attribute value).
func (k Kind) Source() string {
	if k.Kernel() {
		return SourceKernel
	}
	return kindSources[min(int(k), len(kindSources)-1)]
}

// kindSources are the user-space kinds' sources; the last is any other kind's.
var kindSources = [...]string{OomdKill: SourceOomd, UnitOOM: SourceSystemd, EarlyoomKill: SourceEarlyoom,
	PodOOMKilled: SourceKubernetes, NodeSystemOOM: SourceKubernetes, Eviction: SourceKubernetes,
	SlurmOOM: SourceSlurm, SrunOOM: SourceSlurm, RayOOM: SourceRay, RayOOM + 1: ""}

// Sources (xla.oom.host.source).
const (
	SourceKernel     = "kernel"
	SourceOomd       = "systemd-oomd"
	SourceSystemd    = "systemd"
	SourceEarlyoom   = "earlyoom"
	SourceKubernetes = "kubernetes"
	SourceSlurm      = "slurm"
	SourceRay        = "ray"
)

// Constraint says what memory ran out.
type Constraint string

// Constraints: a cgroup's limit or node memory; others pass as printed.
const (
	ConstraintUnknown      Constraint = ""
	ConstraintCgroup       Constraint = "cgroup"
	ConstraintGlobal       Constraint = "global"
	ConstraintCpuset       Constraint = "cpuset"
	ConstraintMemoryPolicy Constraint = "memory_policy"
)

// KillReport is what one line says of a kill; sizes in bytes, 0 not printed.
type KillReport struct {
	Kind                    Kind
	PID                     int64
	Command                 string
	RSS                     int64 // resident when killed: anon+file+shmem (kernel), VmRSS (earlyoom), "memory used" (Ray)
	AnonRSS, FileRSS, Shmem int64
	Limit, Usage            int64
	Constraint              Constraint
	Cgroup                  string // the victim's (task_memcg)
	LimitCgroup             string // the one whose limit was hit (oom_memcg), when printed
	Count                   int64  // the kills it stands for (Slurm's events, Ray's workers); 0 means one
	Node, Container         string // the Kubernetes or Slurm node, the container's name
	Reason                  string // a short reason as printed (signal, pressure figure)
	ContainerID, PodUID     string // when named directly (a pod's status); else Owner reads Cgroup
	Job, Step               string // a Slurm job and step, when named
	Key                     string // one report of a kill its source repeats (a pod watch); "" otherwise
	Ref                     int64  // the caller's reference (a line number); a Kill keeps its first's
}
