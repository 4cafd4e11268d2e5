// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import "io"

// LastFailure reads one log to its end and returns its last OOM failure, the
// one that ended the job when the job died of it, or nil when the log holds
// none. name is what the finding's Source says. `xlaoom run` decides on it.
func LastFailure(name string, r io.Reader) (*Finding, error) {
	var (
		t    Totals
		last *Finding
	)
	_, err := scan(name, r, &t, func(f *Finding) error {
		if f.Failure != nil {
			last = f
		}
		return nil
	})
	return last, err
}
