// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// wrapper runs the job until it succeeds or the verdict says to stop.
type wrapper struct {
	o              *options
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *logCopy
	env            []string // the job's environment; --batch-env changes it
	state          *jobState
	// past are the job's failures of earlier attempts: the state's, then this wrapper's own runs'.
	past []assembly.Past
	// noIdentity: --state was given but nothing names the job, so no attempt before this wrapper's is known.
	noIdentity bool
}

// openState reads the job's state (--state) as the attempt that started at started: a state that cannot be
// read is said and ignored, never a reason not to run the job.
func (w *wrapper) openState(started time.Time) {
	if w.o.stateDir == "" {
		return
	}
	job, _ := jobIdentity(w.o.job, w.env)
	if job == "" {
		w.noIdentity = true
		return
	}
	w.state = newJobState(w.o.stateDir, job)
	failures, err := w.state.read()
	if err != nil {
		w.say("the state %s is ignored: %v", w.state.path, err)
		return
	}
	w.past = earlier(failures, started)
}

// remember keeps v, the failure of the run that just ended, for the reruns and the job's next attempt.
func (w *wrapper) remember(v *outcome) {
	p := v.failure(time.Now(), hostname())
	w.past = append(w.past, p.past())
	w.past = w.past[max(0, len(w.past)-stateDepth):]
	if w.state == nil {
		return
	}
	if err := w.state.add(p); err != nil {
		w.say("cannot write the state %s: %v", w.state.path, err)
	}
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

func (w *wrapper) run() int {
	sigs := watchSignals()
	defer sigs.close()
	w.env = os.Environ()
	w.openState(time.Now())
	retries, smaller := 0, false
	for attempt := 1; ; attempt++ {
		w.log.reset()
		before, beforeErr := readMemcg() // cgroup.go: the host kills of this run
		status, err := runJob(w.o.command, w.env, w.stdin, w.stdout, w.stderr, w.log, sigs)
		if err != nil {
			w.say("cannot run %s: %v", quoteCommand(w.o.command[:1]), err)
			return status
		}
		kill := hostKillBetween(before, beforeErr) // hostkill.go; a plain SIGKILL is none
		if status == 0 {
			if kill != nil {
				w.say("the job exited 0: %s; it succeeded regardless", kill)
			}
			return 0
		}
		if sig := sigs.stopped(); sig != nil {
			w.say("stopped by %v: exit %d, the job's status", sig, status)
			return status
		}
		var exit int
		var rerun bool
		if kill != nil {
			exit, rerun = w.decideHostKill(kill, status, &retries, sigs)
		} else {
			exit, rerun = w.decide(status, attempt, &retries, &smaller, sigs)
		}
		switch {
		case w.o.dryRun: // the decision is said; the job's own status goes to the restart policy
			return status
		case !rerun:
			return exit
		}
	}
}

// decide decides on a failed run by its log's last OOM failure: an exit status, or a rerun.
func (w *wrapper) decide(status, attempt int, retries *int, smaller *bool, sigs *signals) (exit int, rerun bool) {
	v, err := explainLog(w.log.log(), w.past)
	switch {
	// Without an OOM the termination log is left to the job's own message.
	case err != nil:
		w.say("the job exited %d; its log could not be read (%v): exit %d, the job's status", status, err, status)
		return status, false
	case v == nil:
		w.say("the job exited %d with no XLA out-of-memory failure in its log: exit %d, the job's status", status, status)
		return status, false
	}
	// --state without a job's identity: no earlier attempt of another wrapper can be known.
	noJob := w.noIdentity && len(w.past) == 0
	if d := &v.decision; noJob && d.Rule == oom.RuleRepeat && d.Missing == oom.MissingEarlier {
		d.Missing = oom.MissingJobIdentity
	}
	w.remember(v)
	switch v.retry {
	case oom.RetryFutile:
		if !*smaller {
			if from, to, ok := w.smallerBatch(v); ok {
				*smaller = true
				w.say("the job exited %d: %s is futile %s, a rerun fails the same way; it fits in %.2f of the memory it needed: run %d with %s=%d instead of %d",
					status, v, v.why(noJob), v.fit, attempt+1, w.o.batchEnv, to, from)
				return 0, true
			}
		}
		w.decided("the job exited %d: %s is futile %s, a restart fails the same way; change the configuration: exit %d",
			status, v, v.why(noJob), w.o.futileExit)
		return w.o.futileExit, false
	case oom.RetryMayHelp:
		what, note := fmt.Sprintf("the job exited %d: %s may pass on a rerun", status, v), " "+v.why(noJob)
		return w.mayHelp(what, note, note, status, retries, sigs)
	}
	w.decided("the job exited %d: %s, whether a rerun helps is unknown %s: exit %d, the job's status",
		status, v, v.why(noJob), status)
	return status, false
}

// decided says the decision on an OOM, and writes it to the termination log.
func (w *wrapper) decided(format string, a ...any) {
	w.say(format, a...)
	if w.o.terminationLog == "" {
		return
	}
	if err := os.WriteFile(w.o.terminationLog, []byte(w.line(format, a...)), 0o644); err != nil {
		w.say("cannot write the termination log: %v", err)
	}
}

// mayHelp reruns a failure a retry may help while --retries allow, else decides --may-help-exit; rerunNote and
// exitNote end the line of each outcome.
func (w *wrapper) mayHelp(what, rerunNote, exitNote string, status int, retries *int, sigs *signals) (exit int, rerun bool) {
	if *retries < w.o.retries {
		*retries++
		w.say("%s%s: rerun %d of %d in %v", what, rerunNote, *retries, w.o.retries, w.o.retryDelay)
		if w.o.dryRun {
			return 0, true
		}
		if !w.wait(sigs) {
			w.say("stopped by %v before the rerun: exit %d, the job's status", sigs.stopped(), status)
			return status, false
		}
		return 0, true
	}
	w.decided("%s%s%s: exit %d", what, exitNote, w.retriesSpent(*retries), w.o.mayHelpExit)
	return w.o.mayHelpExit, false
}

func (w *wrapper) retriesSpent(n int) string {
	if w.o.retries == 0 {
		return ""
	}
	if n == 1 {
		return ", after 1 rerun"
	}
	return fmt.Sprintf(", after %d reruns", n)
}

// wait waits --retry-delay before a rerun; false when a terminating signal came first.
func (w *wrapper) wait(sigs *signals) bool {
	if w.o.retryDelay == 0 {
		return sigs.stopped() == nil
	}
	t := time.NewTimer(w.o.retryDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-sigs.stop:
		return false
	}
}

// smallerBatch is the --batch-env hook: for a futile failure of known fit fraction it scales the batch size in
// the environment variable by it (rounded down, at least 1) for the next run. Not all memory scales with the
// batch, so that run may fail again; the wrapper then stops. ok is false when nothing can be scaled.
func (w *wrapper) smallerBatch(v *outcome) (from, to int, ok bool) {
	name := w.o.batchEnv
	if name == "" || !(v.fit > 0 && v.fit < 1) {
		return 0, 0, false
	}
	i, cur := lookupEnv(w.env, name)
	if i < 0 {
		return 0, 0, false
	}
	from, err := strconv.Atoi(strings.TrimSpace(cur))
	if err != nil || from <= 1 {
		return 0, 0, false
	}
	to = max(1, int(math.Floor(float64(from)*v.fit)))
	if to >= from {
		return 0, 0, false
	}
	w.env[i] = name + "=" + strconv.Itoa(to)
	return from, to, true
}

// lookupEnv returns the index and value of name in env, or -1; the last entry wins, as for exec.
func lookupEnv(env []string, name string) (int, string) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return i, v
		}
	}
	return -1, ""
}
