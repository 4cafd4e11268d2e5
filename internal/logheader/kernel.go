// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import (
	"strconv"
	"strings"
	"time"
)

// KernelLine is one kernel log line with its header taken off.
type KernelLine struct {
	Text string
	// At: since boot from 1970 (dmesg, /dev/kmsg), else UTC wall clock (year 0 if unprinted).
	At time.Time
}

// SplitKernel takes a kernel log header off line: /dev/kmsg's, dmesg's, dmesg -T's, syslog's or journalctl's.
func SplitKernel(line string) KernelLine {
	if n, us := kmsgLen(line); n > 0 {
		return KernelLine{Text: line[n:], At: time.Unix(0, 0).UTC().Add(time.Duration(us) * time.Microsecond)}
	}
	var l KernelLine
	if n := kernelSyslogLen(line); n > 0 {
		l.At = parseWall(strings.TrimSpace(line[:n-len(" kernel: ")]))
		line = line[n:]
	}
	if n, at := dmesgLen(line); n > 0 {
		if l.At.IsZero() {
			l.At = at
		}
		line = line[n:]
	} else if shapeAt(line, 0, "[^~~ ^~~ *# ##:##:## ####]") { // dmesg -T
		if t, err := time.Parse("Mon Jan _2 15:04:05 2006", line[1:25]); err == nil {
			l.At = t
		}
		line = line[26:]
		if HasAt(line, 0, " ") {
			line = line[1:]
		}
	}
	l.Text = line
	return l
}

// kmsgLen matches "level,seq,usec,flags;": its length and usec.
func kmsgLen(l string) (n int, us int64) {
	i := DigitsEnd(l, 0)
	if i == 0 || !HasAt(l, i, ",") {
		return 0, 0
	}
	j := DigitsEnd(l, i+1)
	if j == i+1 || !HasAt(l, j, ",") {
		return 0, 0
	}
	k := DigitsEnd(l, j+1)
	e := strings.IndexByte(l[min(k+1, len(l)):], ';')
	if k == j+1 || !HasAt(l, k, ",") || e < 0 {
		return 0, 0
	}
	us, _ = strconv.ParseInt(l[j+1:k], 10, 64)
	return k + 1 + e + 1, us
}

// dmesgLen matches "[ seconds.fraction] ": its length and time.
func dmesgLen(l string) (n int, at time.Time) {
	if !HasAt(l, 0, "[") {
		return 0, at
	}
	i := 1
	for i < len(l) && isSpace(l[i]) {
		i++
	}
	j := DigitsEnd(l, i)
	if j == i || !HasAt(l, j, ".") {
		return 0, at
	}
	k := DigitsEnd(l, j+1)
	if k == j+1 || !HasAt(l, k, "]") {
		return 0, at
	}
	s, _ := strconv.ParseInt(l[i:j], 10, 64)
	ns, _ := strconv.ParseInt((l[j+1:k] + "000000000")[:9], 10, 64)
	if n = k + 1; HasAt(l, n, " ") {
		n++
	}
	return n, time.Unix(s, ns).UTC()
}

// kernelSyslogLen returns the length of syslog's kernel header ("Nov 27 18:48:46 host kernel: ", or ISO time).
func kernelSyslogLen(l string) int {
	if n := syslogHeader(l); n > 0 {
		if strings.HasSuffix(l[:n], " kernel: ") {
			return n
		}
		return 0
	}
	i := dateEnd(l, 0)
	if i < 0 || !HasAt(l, i, "T") && !HasAt(l, i, " ") {
		return 0
	}
	if i = timeEnd(l, i+1); i < 0 || !HasAt(l, zoneEnd(l, i), " ") {
		return 0
	}
	i = zoneEnd(l, i) + 1
	e := i
	for e < len(l) && !isSpace(l[e]) {
		e++
	}
	if e == i || !HasAt(l, e, " kernel: ") {
		return 0
	}
	return e + len(" kernel: ")
}

// isSpace is a regular expression's \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// parseWall reads a syslog header's time (its last word is the host).
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
