// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// KernelLine is one kernel log line with its header taken off.
type KernelLine struct {
	Text string
	// At: since boot from 1970 (dmesg, /dev/kmsg), else UTC wall clock (year 0 if unprinted); zero where the header
	// holds no time of its own (dmesg's reltime and delta), so that every line of such a log takes its record's.
	At time.Time
}

// SplitKernel takes a kernel log header off line: /dev/kmsg's; dmesg's in every --time-format, with -x and -r;
// journalctl -k's (short, short-precise, short-iso, short-iso-precise, short-monotonic, short-unix, json, json-seq);
// syslog's (RFC 3164 in any locale's month, RFC 5424, RFC 3339), with the kernel's own stamp after "kernel:" or not.
// Another program's line (another syslog tag, journal transport or dmesg facility) keeps its header: no kernel line.
func SplitKernel(line string) KernelLine {
	if n, us := kmsgLen(line); n > 0 {
		return KernelLine{Text: line[n:], At: time.Unix(0, 0).UTC().Add(time.Duration(us) * time.Microsecond)}
	}
	if HasAt(line, 0, "{") {
		return journalJSON(line)
	}
	if HasAt(line, 0, "\x1e{") { // journalctl -o json-seq: RFC 7464's record separator
		return journalJSON(line[1:])
	}
	var l KernelLine
	rest := line[priLen(line):]
	if n, at, kernel := journalLen(rest); n > 0 {
		if !kernel {
			return KernelLine{Text: line}
		}
		l.At, rest = at, rest[n:]
	} else if n, kernel := decodeLen(rest); n > 0 {
		if !kernel {
			return KernelLine{Text: line}
		}
		rest = rest[n:]
	}
	if n, at := dmesgLen(rest); n > 0 {
		if l.At.IsZero() {
			l.At = at
		}
		rest = rest[n:]
	}
	rest = rest[callerLen(rest):]
	l.Text = rest
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

// priLen matches a syslog priority "<N>" (dmesg -r, a forwarded or RFC 5424 line).
func priLen(l string) int {
	if !HasAt(l, 0, "<") {
		return 0
	}
	if i := DigitsEnd(l, 1); i > 1 && i <= 4 && HasAt(l, i, ">") {
		return i + 1
	}
	return 0
}

// dmesgLen matches dmesg's stamps and its length, with the time it gives:
//
//	[ 1234.567890]                          default, -r after "<N>", journalctl short-monotonic
//	[ 1234.567890 <    0.000003>]           -d
//	[<    0.000003>]                        --time-format delta (no time)
//	[Mon Apr 29 14:55:41 2024]              -T, any locale's names
//	[Mon Apr 29 14:55:41 2024 <    0.000003>]
//	[Apr29 14:55]  [  +0.000003]            reltime, -H, -e (no time)
//	2024-04-29T14:55:41,678628+02:00        --time-format iso
//
// journalctl's short-monotonic and short-delta put "host kernel: " after it.
func dmesgLen(l string) (n int, at time.Time) {
	if !HasAt(l, 0, "[") {
		if n, at = dmesgISOLen(l); n == 0 {
			return 0, at
		}
	} else if e := strings.IndexByte(l[:min(len(l), 96)], ']'); e < 0 {
		return 0, at
	} else {
		in := l[1:e]
		if d := strings.Index(in, " <"); d >= 0 && strings.HasSuffix(in, ">") && isDelta(in[d+2:len(in)-1]) {
			in = in[:d] // -d
		} else if HasAt(in, 0, "<") && strings.HasSuffix(in, ">") && isDelta(in[1:len(in)-1]) {
			in = "" // delta alone
		}
		switch {
		case in == "":
			if !HasAt(l, 1, "<") {
				return 0, at
			}
		case isSeconds(in):
			at = monotonic(strings.TrimLeft(in, " \t"))
		case isDelta(in): // reltime within a minute
		case isRelMinute(in):
		default:
			var ok bool
			if at, ok = ctime(in); !ok {
				return 0, at
			}
		}
		n = e + 1
	}
	if HasAt(l, n, " ") {
		n++
	}
	if h := hostKernelLen(l[n:]); h > 0 {
		n += h
	}
	return n, at
}

// isSeconds matches "[ ]*seconds.fraction".
func isSeconds(s string) bool {
	s = strings.TrimLeft(s, " \t")
	i := DigitsEnd(s, 0)
	return i > 0 && HasAt(s, i, ".") && DigitsEnd(s, i+1) == len(s) && len(s) > i+1
}

// isDelta matches printf's "%12.06f" or reltime's "%+8.06f": spaces, an optional sign, seconds.fraction.
func isDelta(s string) bool {
	s = strings.TrimLeft(s, " ")
	if HasAt(s, 0, "+") || HasAt(s, 0, "-") {
		s = s[1:]
	}
	return isSeconds(s) && !HasAt(s, 0, " ")
}

// isRelMinute matches reltime's strftime("%b%e %H:%M"), any locale's month: "Apr29 14:55", "Apr 9 14:55".
func isRelMinute(s string) bool {
	sp := strings.LastIndexByte(s, ' ')
	if sp < 0 || !shapeAt(s, sp+1, "##:##") || len(s) != sp+6 {
		return false
	}
	head := strings.TrimRight(s[:sp], " ")
	d := len(head)
	for d > 0 && IsDigit(head[d-1]) {
		d--
	}
	return d > 0 && len(head)-d >= 1 && len(head)-d <= 2 && isMonthWord(strings.TrimRight(head[:d], " "))
}

// ctime reads dmesg -T's strftime("%a %b %e %H:%M:%S %Y"); a month in another locale's words from monthOf.
func ctime(s string) (time.Time, bool) {
	var f [5]string
	n := 0
	for w := range strings.FieldsSeq(s) {
		if n == len(f) {
			return time.Time{}, false
		}
		f[n], n = w, n+1
	}
	if n != 5 || !isMonthWord(f[0]) || !isMonthWord(f[1]) || len(f[4]) != 4 || DigitsEnd(f[4], 0) != 4 {
		return time.Time{}, false
	}
	day := DigitsEnd(f[2], 0)
	if day == 0 || day > 2 || day != len(f[2]) || len(f[3]) != 8 || timeEnd(f[3], 0) != 8 {
		return time.Time{}, false
	}
	m := monthOf(f[1])
	if m == 0 {
		return time.Time{}, true // the shape, in a month not known: no time
	}
	num := func(s string) int { v, _ := strconv.Atoi(s); return v }
	return time.Date(num(f[4]), time.Month(m), num(f[2]), num(f[3][:2]), num(f[3][3:5]), num(f[3][6:]), 0, time.UTC), true
}

// dmesgISOLen matches dmesg --time-format iso's "2024-04-29T14:55:41,678628+02:00 " (a comma, a zone; "+0200" read
// too, as strftime's %z prints it).
func dmesgISOLen(l string) (int, time.Time) {
	if !shapeAt(l, 0, "####-##-##T##:##:##,######") || !HasAt(l, 26, "+") && !HasAt(l, 26, "-") {
		return 0, time.Time{}
	}
	layout, n := "2006-01-02T15:04:05,999999-07:00", 32
	if !shapeAt(l, 27, "##:## ") {
		if layout, n = "2006-01-02T15:04:05,999999-0700", 31; !shapeAt(l, 27, "#### ") {
			return 0, time.Time{}
		}
	}
	t, err := time.Parse(layout, l[:n])
	if err != nil {
		return 0, time.Time{}
	}
	return n, t.UTC()
}

// monotonic reads "seconds.fraction" as a time since 1970.
func monotonic(s string) time.Time {
	i := strings.IndexByte(s, '.')
	sec, _ := strconv.ParseInt(s[:i], 10, 64)
	ns, _ := strconv.ParseInt((s[i+1:] + "000000000")[:9], 10, 64)
	return time.Unix(sec, ns).UTC()
}

// callerLen matches the caller id that CONFIG_PRINTK_CALLER adds after the time: "[  T1234] " (dmesg 2.40+) or the
// console's "[  T1234]" joined to the stamp.
func callerLen(l string) int {
	if !HasAt(l, 0, "[") {
		return 0
	}
	i := 1
	for i < len(l) && l[i] == ' ' {
		i++
	}
	if !HasAt(l, i, "T") && !HasAt(l, i, "C") {
		return 0
	}
	j := DigitsEnd(l, i+1)
	if j == i+1 || !HasAt(l, j, "]") {
		return 0
	}
	if HasAt(l, j+1, " ") {
		return j + 2
	}
	return j + 1
}

// decodeLen matches dmesg -x's "%-6s:%-6s: " (facility, level), and whether the facility is the kernel's
// (a "user" record is another program's, written to /dev/kmsg).
func decodeLen(l string) (int, bool) {
	c := strings.IndexByte(l[:min(len(l), 16)], ':')
	if c < 4 {
		return 0, false
	}
	facility := strings.TrimRight(l[:c], " ")
	e := strings.IndexByte(l[c+1:min(len(l), c+16)], ':')
	if e < 4 || !HasAt(l, c+1+e, ": ") {
		return 0, false
	}
	switch strings.TrimRight(l[c+1:c+1+e], " ") {
	case "emerg", "alert", "crit", "err", "warn", "notice", "info", "debug":
	default:
		return 0, false
	}
	for i := range len(facility) {
		if facility[i] < 'a' || facility[i] > 'z' {
			if !IsDigit(facility[i]) {
				return 0, false
			}
		}
	}
	return c + 1 + e + 2, facility == "kern"
}

// journalLen matches a syslog or journal header that names its program, and whether the program is the kernel:
//
//	Apr 29 14:55:41 host kernel:                 RFC 3164, journalctl short; апр 28 …, 4月 28 … in other locales
//	Apr 29 14:55:41.678628 host kernel:          journalctl short-precise
//	2024-04-29T14:55:41+0200 host kernel:        journalctl short-iso (+02:00 from v255), rsyslog RFC 3339
//	1714395341.678628 host kernel:               journalctl short-unix
//	1 2024-04-29T14:55:41.678628+02:00 host kernel - - -    RFC 5424, after "<PRI>"
func journalLen(l string) (n int, at time.Time, kernel bool) {
	var i int
	switch {
	case shapeAt(l, 0, "1 ####-##-##T"):
		i = zoneEnd(l, timeEnd(l, dateEnd(l, 2)+1))
		if i < 0 || !HasAt(l, i, " ") {
			return 0, at, false
		}
		return syslog5424(l, i+1, l[2:i])
	case dateEnd(l, 0) > 0:
		if n, _ := dmesgISOLen(l); n > 0 || !HasAt(l, 10, "T") && !HasAt(l, 10, " ") {
			return 0, at, false
		}
		if i = timeEnd(l, 11); i < 0 {
			return 0, at, false
		}
		i = zoneEnd(l, i)
	case DigitsEnd(l, 0) >= 9:
		d := DigitsEnd(l, 0)
		if i = DigitsEnd(l, d+1); !HasAt(l, d, ".") || i == d+1 {
			return 0, at, false
		}
	default:
		if i = monthDayTimeEnd(l); i < 0 {
			return 0, at, false
		}
	}
	if !HasAt(l, i, " ") {
		return 0, at, false
	}
	if HasAt(l, i+1, "kernel: ") { // journalctl --no-hostname
		return i + 1 + len("kernel: "), wallTime(l[:i]), true
	}
	h := strings.IndexByte(l[i+1:min(len(l), i+1+256)], ' ')
	if h <= 0 {
		return 0, at, false
	}
	tag := i + 1 + h + 1
	if HasAt(l, tag, "kernel: ") {
		return tag + len("kernel: "), wallTime(l[:i]), true
	}
	e := strings.Index(l[tag:min(len(l), tag+256)], ": ")
	if e <= 0 || strings.IndexByte(l[tag:tag+e], ' ') >= 0 {
		return 0, at, false
	}
	return tag + e + 2, at, false
}

// syslog5424 reads RFC 5424's "HOST APP-NAME PROCID MSGID SD " from i.
func syslog5424(l string, i int, stamp string) (int, time.Time, bool) {
	var f [4]string
	for k := range f {
		e := strings.IndexByte(l[min(i, len(l)):], ' ')
		if e <= 0 {
			return 0, time.Time{}, false
		}
		f[k], i = l[i:i+e], i+e+1
	}
	if HasAt(l, i, "-") {
		i++
	} else {
		for HasAt(l, i, "[") { // structured data: "]" and "\]" inside a value
			j := i + 1
			for j < len(l) && l[j] != ']' {
				if l[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(l) {
				return 0, time.Time{}, false
			}
			i = j + 1
		}
	}
	if HasAt(l, i, " ") {
		i++
	} else if i != len(l) {
		return 0, time.Time{}, false
	}
	if HasAt(l, i, "\uFEFF") {
		i += len("\uFEFF")
	}
	return i, wallTime(stamp), f[1] == "kernel"
}

// monthDayTimeEnd matches strftime("%b %d %H:%M:%S") with an optional fraction, the month a word of any script
// (journalctl writes the locale's), and returns its end or -1.
func monthDayTimeEnd(l string) int {
	sp := strings.IndexByte(l[:min(len(l), 24)], ' ')
	if sp <= 0 || !isMonthWord(l[:sp]) {
		return -1
	}
	i := sp + 1
	if HasAt(l, i, " ") {
		i++
	}
	d := DigitsEnd(l, i)
	if d == i || d > i+2 || !HasAt(l, d, " ") {
		return -1
	}
	return timeEnd(l, d+1)
}

// isMonthWord: a word of 2 to 12 bytes, not all digits, holding neither ':' nor brackets (a month or a weekday
// in some locale: "Apr", "апр", "4月", "avr.").
func isMonthWord(w string) bool {
	if len(w) < 2 || len(w) > 12 || DigitsEnd(w, 0) == len(w) {
		return false
	}
	return !strings.ContainsAny(w, ":[]{}<>()=/\"' \t")
}

// hostKernelLen matches "host kernel: " or "kernel: " after journalctl's short-monotonic stamp.
func hostKernelLen(l string) int {
	if HasAt(l, 0, "kernel: ") { // --no-hostname
		return len("kernel: ")
	}
	h := strings.IndexByte(l[:min(len(l), 256)], ' ')
	if h <= 0 || !HasAt(l, h+1, "kernel: ") || strings.ContainsAny(l[:h], ":[]") {
		return 0
	}
	return h + 1 + len("kernel: ")
}

// wallTime reads a journal or syslog stamp; year 0 where none is printed, zero for a month not known.
func wallTime(h string) time.Time {
	if d := DigitsEnd(h, 0); d >= 9 && HasAt(h, d, ".") { // short-unix
		return monotonic(h)
	}
	layout := "Jan _2 15:04:05" // a fraction after the seconds is read without a layout of its own
	switch {
	case dateEnd(h, 0) > 0:
		layout = "2006-01-02T15:04:05"
		if HasAt(h, 10, " ") {
			layout = "2006-01-02 15:04:05"
		}
		switch n := len(h); {
		case strings.HasSuffix(h, "Z") || n > 6 && (h[n-6] == '+' || h[n-6] == '-') && shapeAt(h, n-5, "##:##"):
			layout += "Z07:00"
		case n > 5 && (h[n-5] == '+' || h[n-5] == '-') && shapeAt(h, n-4, "####"):
			layout += "Z0700" // journalctl's short-iso before v255
		}
	default:
		sp := strings.IndexByte(h, ' ')
		m := monthOf(h[:sp])
		if m == 0 {
			return time.Time{}
		}
		if !isMonth(h[:sp]) {
			h = time.Month(m).String()[:3] + h[sp:]
		}
	}
	t, err := time.Parse(layout, h)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// monthNames are strftime's %b in the locales a fleet's consoles use most (C, de, es, fr, it, nl, pl, pt, ru, uk);
// "4月" and "4월" (zh, ja, ko) are read by their number.
var monthNames = [12]string{
	"jan ene gen jan. janv. sty янв січ",
	"feb fév févr. lut фев лют",
	"mar mär mrt mars мар бер",
	"apr abr avr. avril kwi апр кві",
	"may mai mag mei maj мая май тра",
	"jun juin giu cze июн чер",
	"jul juil. lug lip июл лип",
	"aug ago août sie авг сер",
	"sep set sept. wrz сен вер",
	"oct okt ott out paź окт жов",
	"nov lis ноя лис",
	"dec dez dic déc. déc gru дек гру",
}

// monthOf is a month word's number, 0 if not known.
func monthOf(w string) int {
	if isMonth(w) {
		return strings.Index("JanFebMarAprMayJunJulAugSepOctNovDec", w)/3 + 1
	}
	if d := DigitsEnd(w, 0); d > 0 && (w[d:] == "月" || w[d:] == "월") {
		if m, err := strconv.Atoi(w[:d]); err == nil && m >= 1 && m <= 12 {
			return m
		}
	}
	w = strings.ToLower(w)
	for m, names := range monthNames {
		for name := range strings.FieldsSeq(names) {
			if name == w {
				return m + 1
			}
		}
	}
	return 0
}

// journalJSON reads a journalctl -o json line: its MESSAGE, dated by __REALTIME_TIMESTAMP. A record of another
// transport than the kernel's keeps its whole line (a program quoting a kernel line is no kernel line).
func journalJSON(line string) KernelLine {
	msg, ok := jsonField(line, "MESSAGE")
	if !ok {
		return KernelLine{Text: line}
	}
	if t, ok := jsonField(line, "_TRANSPORT"); ok && t != "kernel" {
		return KernelLine{Text: line}
	}
	l := KernelLine{Text: msg}
	if us, ok := jsonField(line, "__REALTIME_TIMESTAMP"); ok {
		if n, err := strconv.ParseInt(us, 10, 64); err == nil {
			l.At = time.UnixMicro(n).UTC()
		}
	}
	return l
}

// jsonField returns the string value of a top-level key of a one-line JSON object ("KEY":"v" or "KEY" : "v").
func jsonField(line, key string) (string, bool) {
	for from := 0; ; {
		i := strings.Index(line[from:], `"`+key+`"`)
		if i < 0 {
			return "", false
		}
		i += from + len(key) + 2
		from = i
		for HasAt(line, i, " ") {
			i++
		}
		if !HasAt(line, i, ":") {
			continue
		}
		for i++; HasAt(line, i, " "); i++ {
		}
		if !HasAt(line, i, `"`) {
			return "", false // null, or an array of bytes
		}
		escaped := false
		for j := i + 1; j < len(line); j++ {
			switch line[j] {
			case '\\':
				escaped = true
				j++
			case '"':
				if !escaped {
					return line[i+1 : j], true
				}
				var s string
				if json.Unmarshal([]byte(line[i:j+1]), &s) != nil {
					return "", false
				}
				return s, true
			}
		}
		return "", false
	}
}

// StartsKernelLine reports whether line starts with a kernel log header that SplitKernel takes off: where a reader
// that groups lines into records (LineStart) should start one, so that a kernel log is not one record.
func StartsKernelLine(line string) bool {
	return line != "" && len(SplitKernel(line).Text) != len(line)
}
