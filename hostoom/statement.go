// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package hostoom recognises the statements that a process was killed for
// host memory (the kernel's OOM killer, systemd-oomd, earlyoom, Kubernetes,
// Slurm, Ray) and joins the kernel's several records of one kill into one
// Kill. It is pure Go with no collector types: the processor, the connector
// and xlaoom explain share it. The formats, their sources and the versions
// they cover are listed in docs/incidents.md ("Host-memory kills") and
// beside each pattern.
package hostoom // import "github.com/xlaoom/xlaoomprocessor/hostoom"

// Kind is what one statement says.
type Kind uint8

// The kinds of statement, in the order the kernel prints one kill.
const (
	KindNone Kind = iota
	// KernelInvoked: "<comm> invoked oom-killer: gfp_mask=…": a kill starts.
	KernelInvoked
	// KernelTaskIn: "Task in <memcg> killed as a result of limit of <memcg>"
	// (kernels before 4.19).
	KernelTaskIn
	// KernelUsage: "memory: usage NkB, limit NkB, failcnt N" (cgroup v1 and v2).
	KernelUsage
	// KernelStats: "Memory cgroup stats for <path>:".
	KernelStats
	// KernelGroup: "Tasks in <path> are going to be killed due to memory.oom.group set".
	KernelGroup
	// KernelSummary: "oom-kill:constraint=…,task_memcg=…,task=…,pid=…,uid=…"
	// (4.19 and later), or one of its pr_cont pieces.
	KernelSummary
	// KernelSelect: "…: Kill process N (comm) score N or sacrifice child"
	// (kernels before 5.1).
	KernelSelect
	// KernelKilled: "…: Killed process N (comm) total-vm:…kB, anon-rss:…".
	KernelKilled
	// KernelReaped: "oom_reaper: reaped process N (comm), now anon-rss:…".
	KernelReaped
	// OomdKill: systemd-oomd killed (or marked for killing) a cgroup.
	OomdKill
	// UnitOOM: systemd says a process of a unit was killed for memory.
	UnitOOM
	// EarlyoomKill: earlyoom sent a signal to a process.
	EarlyoomKill
	// PodOOMKilled: a container terminated with reason OOMKilled.
	PodOOMKilled
	// NodeSystemOOM: kubelet's SystemOOM event (a victim outside every pod).
	NodeSystemOOM
	// Eviction: kubelet evicted a pod because the node was low on memory.
	Eviction
	// SlurmOOM: slurmstepd detected oom-kill events in a step's cgroup.
	SlurmOOM
	// SrunOOM: srun reports a task that ended Out Of Memory.
	SrunOOM
	// RayOOM: Ray's memory monitor killed a task or actor.
	RayOOM
)

var kindNames = [...]string{"", "kernel_invoked", "kernel_task_in", "kernel_usage", "kernel_stats",
	"kernel_group", "kernel_summary", "kernel_select", "kernel_killed", "kernel_reaped",
	"systemd_oomd", "systemd_unit", "earlyoom", "k8s_oomkilled", "k8s_system_oom", "k8s_eviction",
	"slurm_oom", "srun_oom", "ray_oom"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Kernel reports whether the kind is one of the kernel's lines, which
// Joiner joins into one kill.
func (k Kind) Kernel() bool { return k >= KernelInvoked && k <= KernelReaped }

// Echo reports whether the kind repeats a kill that another statement of
// its source always reports: srun's "Out Of Memory" follows slurmstepd's
// "Detected N oom_kill event(s)" line of the same step (slurm_ray.go), so
// that the processor tags it as a statement and counts the step's kill
// once.
func (k Kind) Echo() bool { return k == SrunOOM }

// Source is the program that printed a statement (attribute value).
func (k Kind) Source() string {
	switch {
	case k.Kernel():
		return SourceKernel
	case k == OomdKill:
		return SourceOomd
	case k == UnitOOM:
		return SourceSystemd
	case k == EarlyoomKill:
		return SourceEarlyoom
	case k == PodOOMKilled || k == NodeSystemOOM || k == Eviction:
		return SourceKubernetes
	case k == SlurmOOM || k == SrunOOM:
		return SourceSlurm
	case k == RayOOM:
		return SourceRay
	}
	return ""
}

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

// Constraints: a cgroup's limit, or the whole node (the kernel's
// CONSTRAINT_NONE; CPUSET and MEMORY_POLICY are node memory too, of some
// NUMA nodes). Unknown values pass through as the kernel printed them.
const (
	ConstraintUnknown      Constraint = ""
	ConstraintCgroup       Constraint = "cgroup"
	ConstraintGlobal       Constraint = "global"
	ConstraintCpuset       Constraint = "cpuset"
	ConstraintMemoryPolicy Constraint = "memory_policy"
)

// Statement is what one line (or record) says about a host-memory kill.
// Sizes are bytes; zero is "not printed".
type Statement struct {
	Kind    Kind
	PID     int64
	Command string
	// RSS is the victim's resident memory when killed (anon + file + shmem
	// for the kernel, VmRSS for earlyoom, "memory used" for Ray).
	RSS                     int64
	AnonRSS, FileRSS, Shmem int64
	Limit, Usage            int64
	Constraint              Constraint
	// Cgroup is the victim's cgroup (task_memcg); LimitCgroup the one whose
	// limit was hit (oom_memcg), when printed.
	Cgroup, LimitCgroup string
	// Count is how many kills the statement stands for (Slurm's event
	// count, Ray's worker count); 0 means one.
	Count int64
	// Node, Container, Reason: the Kubernetes node or Slurm node, container
	// name, a short reason (signal, pressure figure) as printed.
	Node, Container, Reason string
	// ContainerID and PodUID when the statement names them directly
	// (a pod's status); otherwise Owner reads them from Cgroup.
	ContainerID, PodUID string
	// Job and Step: a Slurm job and step, when the statement names them.
	Job, Step string
	// Key identifies one report of a kill that its source repeats (a pod
	// watch prints the same last state many times); empty otherwise.
	Key string
	// Ref is the caller's own reference to where the statement came from
	// (a line number); a Kill keeps its first statement's.
	Ref int64
}
