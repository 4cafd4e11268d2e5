// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package hostoom

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The kernel log's line headers, as the tools that save it print them:
// /dev/kmsg ("6,1234,2190840616,-;msg"), dmesg ("[ 2190.840616] msg"),
// dmesg -T ("[Fri Nov 27 18:48:46 2026] msg"), journalctl -k and syslog
// ("Nov 27 18:48:46 host kernel: msg", short-precise and short-iso too),
// and a syslog line that carries dmesg's stamp after "kernel: ".
var (
	kmsgHeader   = regexp.MustCompile(`^\d+,\d+,(\d+),[^;]*;`)
	dmesgHeader  = regexp.MustCompile(`^\[\s*(\d+)\.(\d+)\] ?`)
	dmesgTHeader = regexp.MustCompile(`^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ?`)
	syslogHeader = regexp.MustCompile(`^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) \S+ kernel: `)
)

// Line is one kernel log line with its header taken off.
type Line struct {
	// Text is the message.
	Text string
	// At is the time the header gives (the monotonic seconds of dmesg and
	// /dev/kmsg as a duration since boot; a wall clock for dmesg -T and
	// journalctl, in UTC, the year 0 when the header has none). Zero: none.
	At time.Time
}

// SplitHeader takes a kernel log header off line. A line without a known
// header is returned whole, with no time.
func SplitHeader(line string) Line {
	if m := kmsgHeader.FindStringSubmatch(line); m != nil {
		us, _ := strconv.ParseInt(m[1], 10, 64)
		return Line{Text: line[len(m[0]):], At: time.Unix(0, 0).UTC().Add(time.Duration(us) * time.Microsecond)}
	}
	var l Line
	if m := syslogHeader.FindStringSubmatch(line); m != nil {
		line = line[len(m[0]):]
		l.At = parseWall(strings.TrimSpace(m[0][:len(m[0])-len(" kernel: ")]))
	}
	if m := dmesgHeader.FindStringSubmatch(line); m != nil {
		s, _ := strconv.ParseInt(m[1], 10, 64)
		frac := m[2] + "000000000"
		ns, _ := strconv.ParseInt(frac[:9], 10, 64)
		if l.At.IsZero() {
			l.At = time.Unix(s, ns).UTC()
		}
		line = line[len(m[0]):]
	} else if m := dmesgTHeader.FindStringSubmatch(line); m != nil {
		if t, err := time.Parse("Mon Jan _2 15:04:05 2006", m[1]); err == nil {
			l.At = t
		}
		line = line[len(m[0]):]
	}
	l.Text = line
	return l
}

// parseWall reads the time of a syslog or journalctl header (its last word
// is the host name).
func parseWall(h string) time.Time {
	if i := strings.LastIndexByte(h, ' '); i > 0 {
		h = h[:i]
	}
	for _, layout := range []string{"Jan _2 15:04:05.999999", "Jan _2 15:04:05", time.RFC3339Nano,
		"2006-01-02T15:04:05.999999-0700", "2006-01-02T15:04:05-0700", "2006-01-02 15:04:05.999999"} {
		if t, err := time.Parse(layout, h); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
