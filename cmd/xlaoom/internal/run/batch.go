// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package run

import (
	"math"
	"strconv"
	"strings"
)

// smallerBatch is the --batch-env hook: for a futile failure whose fit
// fraction is known (the memory the job may use over the memory it needed),
// it scales the batch size the job reads from the environment variable by
// that fraction, rounded down and at least 1, and sets it for the next run.
// Not all memory scales with the batch (parameters and optimizer state do
// not), so the smaller run may fail again; the wrapper then stops. ok is
// false when the hook is off, the fraction unknown, or the variable unset,
// not a positive integer, or already 1.
func (w *wrapper) smallerBatch(v *verdict) (from, to int, ok bool) {
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

// lookupEnv returns the index and value of name in env, or -1; the last
// entry wins, as for exec.
func lookupEnv(env []string, name string) (int, string) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return i, v
		}
	}
	return -1, ""
}
