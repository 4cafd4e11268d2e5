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

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// wrapper runs the job until it succeeds or the verdict says to stop.
type wrapper struct {
	o              *options
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *logCopy
	env            []string // the job's environment; --batch-env changes it
}

func (w *wrapper) run() int {
	sigs := watchSignals()
	defer sigs.close()
	w.env = os.Environ()
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
		if kill != nil {
			if exit, rerun := w.decideHostKill(kill, status, &retries, sigs); !rerun {
				return exit
			}
			continue
		}
		v, err := explainLog(w.log.log())
		switch {
		// Without an OOM the termination log is left to the job's own message.
		case err != nil:
			w.say("the job exited %d; its log could not be read (%v): exit %d, the job's status", status, err, status)
			return status
		case v == nil:
			w.say("the job exited %d with no XLA out-of-memory failure in its log: exit %d, the job's status", status, status)
			return status
		}
		switch v.retry {
		case oom.RetryFutile:
			if !smaller {
				if from, to, ok := w.smallerBatch(v); ok {
					smaller = true
					w.say("the job exited %d: %s is futile (a rerun fails the same way); it fits in %.2f of the memory it needed: run %d with %s=%d instead of %d",
						status, v, v.fit, attempt+1, w.o.batchEnv, to, from)
					continue
				}
			}
			w.decided("the job exited %d: %s is futile, a restart fails the same way; change the configuration (action %s): exit %d",
				status, v, v.action, w.o.futileExit)
			return w.o.futileExit
		case oom.RetryMayHelp:
			what, action := fmt.Sprintf("the job exited %d: %s may pass on a rerun", status, v), " (action "+v.action+")"
			if exit, rerun := w.mayHelp(what, action, action, status, &retries, sigs); !rerun {
				return exit
			}
			continue
		}
		w.decided("the job exited %d: %s, whether a rerun helps is unknown (action %s): exit %d, the job's status",
			status, v, v.action, status)
		return status
	}
}

// decided says the decision on an OOM, and writes it to the termination log.
func (w *wrapper) decided(format string, a ...any) {
	w.say(format, a...)
	if w.o.terminationLog == "" {
		return
	}
	msg := fmt.Sprintf("xlaoom run: "+format+"\n", a...)
	if err := os.WriteFile(w.o.terminationLog, []byte(msg), 0o644); err != nil {
		w.say("cannot write the termination log: %v", err)
	}
}

// mayHelp reruns a failure a retry may help while --retries allow, else decides --may-help-exit; rerunNote and
// exitNote end the line of each outcome.
func (w *wrapper) mayHelp(what, rerunNote, exitNote string, status int, retries *int, sigs *signals) (exit int, rerun bool) {
	if *retries < w.o.retries {
		*retries++
		w.say("%s%s: rerun %d of %d in %v", what, rerunNote, *retries, w.o.retries, w.o.retryDelay)
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
