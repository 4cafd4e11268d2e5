// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package run is the `xlaoom run` command: it runs a job, passes its output through and, when the job fails,
// explains its log as `xlaoom explain` does and decides by the retry verdict: a futile failure exits with a
// status restart policies stop on, one a retry may help is retried, anything else exits with the job's status.
package run

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/cmd/xlaoom/internal/explain"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Exit statuses of the wrapper itself; the job's own status passes through otherwise.
const (
	DefaultFutileExit  = 78  // sysexits.h's EX_CONFIG: outside xpk's restart codes (42, 127-255) and Python's
	DefaultMayHelpExit = 42  // the code xpk restarts on by default
	ExitUsage          = 2   // a usage error of the wrapper: the job did not run
	ExitCannotRun      = 126 // the shell's status for a command not executable
	ExitNotFound       = 127 // and for one not found
)

const usage = `Usage: xlaoom run [flags] [--] COMMAND [ARG...]

Runs COMMAND, passing its standard output and error through unchanged,
and keeps the end of its log (both streams merged line by line). When
COMMAND fails, the log is explained as "xlaoom explain" does, and the
last XLA out-of-memory failure's retry verdict (xla.oom.retry) decides:

  futile    the same job fails the same way again: exit --futile-exit
            (78), or rerun once with a smaller batch (--batch-env)
  may_help  the failure depends on something outside the job (memory
            another process held, fragmentation): rerun up to --retries
            times, then exit --may-help-exit (42)
  unknown   or no OOM in the log: exit with the job's own status

Whatever its exit, the job's memory cgroup's OOM-kill count (cgroup v2
memory.events oom_kill, v1 memory.oom_control oom_kill) is read before
and after it: a job the kernel's OOM killer hit (exit 137, or 1 when only
a worker was killed) is a host-memory kill, decided before the log is
read: futile when the cgroup reached its own limit (v2 memory.events oom
rose; v1 peak usage at the limit), else may_help. A plain SIGKILL moves no
counter and is never called an OOM.

A job that succeeds exits 0. The decision is one line on standard error,
starting "xlaoom run:", naming the rule that decided and, for unknown, the
rule that would have and the fact it lacked, e.g. "unknown (rule own pool
filled lacks pool_basis; action none)". docs/explain.md shows how a
Kubernetes Job's podFailurePolicy, a JobSet's failurePolicy and a Slurm
script act on it.

With --state DIR, each OOM failure is kept in DIR (the last 8, for 72h),
in a file named by the job's identity, so that the job's next attempt
finds it: the same failure again (same code and program, a request within
1%) is futile (rule repeat) unless memory held elsewhere or a rule before
it decides. Only failures written before this xlaoom run started count:
another host's of the same attempt does not. The identity is --job, else
$XLAOOM_JOB, else $SLURM_JOB_ID (with $SLURM_ARRAY_TASK_ID), else
$K8S_JOB_NAME (the Downward API's
metadata.labels['batch.kubernetes.io/job-name']) with
$JOB_COMPLETION_INDEX when set. Reruns of one xlaoom run are later
attempts too, with or without --state. DIR must outlive the pod or the
node: a PVC or a shared path (an emptyDir only with restartPolicy
OnFailure). A state that cannot be read is said and ignored.

Flags:
  --retries N          reruns of a failure a retry may help (default 0:
                       exit --may-help-exit and let the restart policy
                       rerun it)
  --retry-delay D      wait before a rerun (default 30s), e.g. for the
                       process that held the memory to end
  --batch-env NAME     on a futile failure whose fit fraction is known,
                       rerun once with the environment variable NAME (a
                       positive integer: the batch size) multiplied by it,
                       rounded down, at least 1
  --futile-exit N      status of a futile failure (default 78)
  --may-help-exit N    status of a failure a retry may help (default 42)
  --keep-bytes N       bytes of the end of the log kept (default 16777216)
  --termination-log F  write the decision on an OOM to F too (Kubernetes
                       reads /dev/termination-log into the pod's status)
  --state DIR          keep the job's failures in DIR for its next attempt
  --job NAME           the job's identity for --state
  --dry-run            shadow mode: run the job once, say the decision as
                       it would be ("xlaoom run: dry run: ..."), keep the
                       state, and exit with the job's own status
  -h                   print this help

Exit status: 0 the job succeeded; 78 futile; 42 a retry may help; 2 a
usage error (the job did not run); 126 or 127 COMMAND could not run;
otherwise the job's own status (128+N when signal N ended it). A dry run
exits 0, 2, 126, 127 or the job's own status.
`

// options are the flags.
type options struct {
	retries        int
	retryDelay     time.Duration
	batchEnv       string
	futileExit     int
	mayHelpExit    int
	keepBytes      int
	terminationLog string
	stateDir       string
	job            string
	dryRun         bool
	command        []string
}

func parse(args []string, stderr io.Writer) (*options, int, bool) {
	o := &options{}
	flags := flag.NewFlagSet("xlaoom run", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.IntVar(&o.retries, "retries", 0, "")
	flags.DurationVar(&o.retryDelay, "retry-delay", 30*time.Second, "")
	flags.StringVar(&o.batchEnv, "batch-env", "", "")
	flags.IntVar(&o.futileExit, "futile-exit", DefaultFutileExit, "")
	flags.IntVar(&o.mayHelpExit, "may-help-exit", DefaultMayHelpExit, "")
	flags.IntVar(&o.keepBytes, "keep-bytes", 16<<20, "")
	flags.StringVar(&o.terminationLog, "termination-log", "", "")
	flags.StringVar(&o.stateDir, "state", "", "")
	flags.StringVar(&o.job, "job", "", "")
	flags.BoolVar(&o.dryRun, "dry-run", false, "")
	// Parsing stops at the first non-flag or "--": the job's own flags are never the wrapper's.
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0, true
		}
		return nil, usageError(stderr, err.Error()), false
	}
	o.command = flags.Args()
	switch {
	case len(o.command) == 0:
		return nil, usageError(stderr, "no command to run"), false
	case o.retries < 0:
		return nil, usageError(stderr, "--retries must be 0 or more"), false
	case o.retryDelay < 0:
		return nil, usageError(stderr, "--retry-delay must be 0 or more"), false
	case o.keepBytes < 64<<10:
		return nil, usageError(stderr, "--keep-bytes must be at least 65536"), false
	case min(o.futileExit, o.mayHelpExit) < 1 || max(o.futileExit, o.mayHelpExit) > 255:
		return nil, usageError(stderr, "--futile-exit and --may-help-exit must be from 1 to 255"), false
	case o.batchEnv != "" && (strings.ContainsAny(o.batchEnv, "= \x00")):
		return nil, usageError(stderr, "--batch-env must name an environment variable"), false
	}
	return o, 0, false
}

func usageError(stderr io.Writer, msg string) int {
	_, _ = fmt.Fprintf(stderr, "xlaoom run: %s\n\n%s", msg, usage)
	return ExitUsage
}

// Main runs `xlaoom run` with args (after "run") and returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, status, help := parse(args, stderr)
	if help {
		_, _ = fmt.Fprint(stdout, usage)
		return 0
	}
	if o == nil {
		return status
	}
	w := &wrapper{o: o, stdin: stdin, stdout: stdout, stderr: stderr, log: newLogCopy(o.keepBytes)}
	return w.run()
}

// say writes the wrapper's line about a run, worded so the xla_oom agent never takes it for an OOM (run_test.go).
func (w *wrapper) say(format string, a ...any) {
	_, _ = io.WriteString(w.stderr, w.line(format, a...))
}

// line is one line of the wrapper's; a dry run's say so.
func (w *wrapper) line(format string, a ...any) string {
	prefix := "xlaoom run: "
	if w.o.dryRun {
		prefix += "dry run: "
	}
	return prefix + fmt.Sprintf(format, a...) + "\n"
}

func quoteCommand(c []string) string {
	q := make([]string, len(c))
	for i, a := range c {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'\\$") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}

type outcome struct { // the attributes of a failed run's last OOM failure
	code      string       // xla.error.code
	retry     string       // xla.oom.retry: oom.RetryFutile, oom.RetryMayHelp, oom.RetryUnknown
	decision  oom.Decision // the rule that decided retry and, for unknown, the fact it lacked
	action    string       // xla.oom.action, the kind of the first remediation step; "none" for none
	fit       float64      // capacity / demand: the factor the demand must shrink by; 0 unknown
	program   string       // xla.program
	requested oom.Size     // the failing request
}

// explainLog returns the verdict of the failure that ended a job's log, or nil; past are the job's failures
// of earlier attempts.
func explainLog(log []byte, past []assembly.Past) (*outcome, error) {
	f, err := explain.LastFailure("job log", bytes.NewReader(log), past)
	if err != nil || f == nil {
		return nil, err
	}
	v := &outcome{code: f.Report.Code, retry: f.Retry, action: cmp.Or(f.Report.Action, "none"), fit: f.FitFraction,
		program: f.Report.Program, requested: f.Report.Requested, decision: oom.Decision{Verdict: f.Retry}}
	if f.Whole != nil {
		v.decision = f.Whole.Decision
	}
	return v, nil
}

func (v *outcome) String() string { return "the XLA failure " + v.code }

// why is the rule and the action of v's verdict, as "(rule: R; action A)", or "(rule R lacks F; action A)" for
// unknown, as `xlaoom explain` names them; noJob adds that the repeat rule lacks the job's identity.
func (v *outcome) why(noJob bool) string {
	d := v.decision
	s := "("
	switch {
	case d.Missing != "":
		s += "rule " + d.Rule + " lacks " + d.Missing + "; "
	case d.Rule != "":
		s += "rule: " + d.Rule + "; "
	}
	if noJob && d.Verdict == oom.RetryUnknown && d.Missing != oom.MissingJobIdentity {
		s += "rule " + oom.RuleRepeat + " lacks " + oom.MissingJobIdentity + "; "
	}
	return s + "action " + v.action + ")"
}

// failure is what the state keeps of v, decided at at.
func (v *outcome) failure(at time.Time, host string) pastFailure {
	p := pastFailure{At: at.UTC(), Host: host, Code: v.code, Program: v.program, Verdict: v.retry, Rule: v.decision.Rule,
		Missing: v.decision.Missing}
	if v.requested.Known {
		b := v.requested.Bytes
		p.RequestedBytes = &b
	}
	return p
}
