// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"regexp"
	"strings"
	"time"
)

// The two header formats config.yaml's regex_parser operators date a record
// by, with the same expressions and layouts: glog/absl (E0912 07:01:12.118224)
// and TSL/Python/vLLM (2025-09-12 07:00:03,118; INFO 09-12 07:20:14 behind an
// optional process prefix). Neither keeps a year.
var (
	glogHeader  = regexp.MustCompile(`^[IWEF](\d{4} \d\d:\d\d:\d\d(?:\.\d+)?)`)
	otherHeader = regexp.MustCompile(`^(?:\([A-Za-z0-9_]+ pid=\d+\) )?(?:\d{4}-|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) )(\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?)`)
)

// HeaderTime is when a record's log header says it was logged, in UTC, in
// year (file_log gives every header the current year), as config.yaml's
// operators read it; false for a record without one.
func HeaderTime(text string, year int) (time.Time, bool) {
	layout, m := "0102 15:04:05", glogHeader.FindStringSubmatch(text)
	if m == nil {
		layout, m = "01-02 15:04:05", otherHeader.FindStringSubmatch(text)
	}
	if m == nil {
		return time.Time{}, false
	}
	// time.Parse reads a fractional second after the seconds, with a dot or a comma.
	t, err := time.ParseInLocation(layout, strings.TrimSpace(m[1]), time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	return t.AddDate(year-t.Year(), 0, 0), true
}
