// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const killLine = "Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0"

// kernelHeaders are the headers each tool writes before a kernel message, on
// the kill line of a real Linux 6.18 kill, with the tool and the versions
// whose source prints it; want is the time read ("" none: the record's).
var kernelHeaders = []struct{ name, header, want string }{
	{"/dev/kmsg (printk.c, 3.10-6.18)", "6,1234,2190840861,-;", "1970-01-01T00:36:30.840861Z"},
	{"/dev/kmsg with caller (printk.c 6.18)", "3,1234,2190840861,-,caller=T29330;", "1970-01-01T00:36:30.840861Z"},
	{"dmesg (util-linux 2.23-2.42)", "[ 2190.840861] ", "1970-01-01T00:36:30.840861Z"},
	{"dmesg, uptime over 99999 s (util-linux)", "[2858609.598568] ", "1970-02-03T02:03:29.598568Z"},
	{"dmesg with the caller id (util-linux 2.40+)", "[ 2190.840861] [ T29330] ", "1970-01-01T00:36:30.840861Z"},
	{"console with CONFIG_PRINTK_CALLER (printk.c 6.18)", "[ 2190.840861][ T29330] ", "1970-01-01T00:36:30.840861Z"},
	{"dmesg -r (util-linux 2.28+)", "<3>[ 2190.840861] ", "1970-01-01T00:36:30.840861Z"},
	{"dmesg -T (util-linux 2.20+)", "[Mon Apr 29 14:55:41 2024] ", "2024-04-29T14:55:41Z"},
	{"dmesg -T, day under 10 (util-linux)", "[Mon Apr  8 14:55:41 2024] ", "2024-04-08T14:55:41Z"},
	{"dmesg -T, ru_RU.UTF-8 (util-linux)", "[Пн апр 29 14:55:41 2024] ", "2024-04-29T14:55:41Z"},
	{"dmesg -T, de_DE.UTF-8 (util-linux)", "[Mo Mär 25 14:55:41 2024] ", "2024-03-25T14:55:41Z"},
	{"dmesg -T -d (util-linux)", "[Mon Apr 29 14:55:41 2024 <    0.000003>] ", "2024-04-29T14:55:41Z"},
	{"dmesg -d (util-linux)", "[ 2190.840861 <    0.000014>] ", "1970-01-01T00:36:30.840861Z"},
	{"dmesg --time-format delta (util-linux)", "[<    0.000014>] ", ""},
	{"dmesg --time-format iso (util-linux 2.24+)", "2024-04-29T14:55:41,678628+02:00 ", "2024-04-29T12:55:41.678628Z"},
	{"dmesg --time-format iso, zone as %z (not checked)", "2024-04-29T14:55:41,678628+0200 ", "2024-04-29T12:55:41.678628Z"},
	{"dmesg --time-format reltime, a new minute (util-linux 2.26+)", "[Apr29 14:55] ", ""},
	{"dmesg -H, a new minute, day under 10 (util-linux)", "[Apr 9 14:55] ", ""},
	{"dmesg -H, within the minute (util-linux)", "[  +0.000003] ", ""},
	{"dmesg -e, seconds later (util-linux)", "[ +12.000003] ", ""},
	{"dmesg -x (util-linux 2.20+)", "kern  :err   : [ 2190.840861] ", "1970-01-01T00:36:30.840861Z"},
	{"dmesg -x -T (util-linux)", "kern  :err   : [Mon Apr 29 14:55:41 2024] ", "2024-04-29T14:55:41Z"},
	{"dmesg -x --time-format iso (util-linux)", "kern  :err   : 2024-04-29T14:55:41,678628+02:00 ", "2024-04-29T12:55:41.678628Z"},
	{"journalctl -k short (logs-show.c v219-v260)", "Apr 29 14:55:41 node-7 kernel: ", "0000-04-29T14:55:41Z"},
	{"journalctl -k short, day under 10 (v219-v260)", "Apr 09 14:55:41 node-7 kernel: ", "0000-04-09T14:55:41Z"},
	{"journalctl -k short, ru_RU.UTF-8 (v219-v260)", "апр 28 01:23:30 PC kernel: ", "0000-04-28T01:23:30Z"},
	{"journalctl -k short, fr_FR.UTF-8 (v219-v260)", "avril 28 01:23:30 PC kernel: ", "0000-04-28T01:23:30Z"},
	{"journalctl -k short, zh_CN.UTF-8 (v219-v260)", "4月 28 01:23:30 PC kernel: ", "0000-04-28T01:23:30Z"},
	{"journalctl -k short, a month not known (v219-v260)", "Hwe 28 01:23:30 PC kernel: ", ""},
	{"journalctl -k --no-hostname (logs-show.c; the first version not checked)", "Apr 29 14:55:41 kernel: ", "0000-04-29T14:55:41Z"},
	{"journalctl -k short-monotonic --no-hostname (v255; the option's first version not checked)", "[ 2190.840861] kernel: ", "1970-01-01T00:36:30.840861Z"},
	{"journalctl -k short-precise (v219-v260)", "Apr 29 14:55:41.678628 node-7 kernel: ", "0000-04-29T14:55:41.678628Z"},
	{"journalctl -k short-iso (v219-v254)", "2024-04-29T14:55:41+0200 node-7 kernel: ", "2024-04-29T12:55:41Z"},
	{"journalctl -k short-iso (v255+)", "2024-04-29T14:55:41+02:00 node-7 kernel: ", "2024-04-29T12:55:41Z"},
	{"journalctl -k short-iso-precise (v234-v254)", "2024-04-29T14:55:41.678628+0200 node-7 kernel: ", "2024-04-29T12:55:41.678628Z"},
	{"journalctl -k short-iso-precise (v255+)", "2024-04-29T14:55:41.678628+02:00 node-7 kernel: ", "2024-04-29T12:55:41.678628Z"},
	{"journalctl -k short-monotonic (v255)", "[ 2190.840861] node-7 kernel: ", "1970-01-01T00:36:30.840861Z"},
	{"journalctl -k short-delta (v255)", "[ 2190.840861 <    0.000014>] node-7 kernel: ", "1970-01-01T00:36:30.840861Z"},
	{"journalctl -k short-unix (v233+)", "1714395341.678628 node-7 kernel: ", "2024-04-29T12:55:41.678628Z"},
	{"rsyslog RSYSLOG_TraditionalFileFormat (v8, RFC 3164)", "Apr  9 14:55:41 node-7 kernel: ", "0000-04-09T14:55:41Z"},
	{"rsyslog with KeepKernelTimestamp (imklog v8)", "Apr 29 14:55:41 node-7 kernel: [2858609.598568] ", "0000-04-29T14:55:41Z"},
	{"rsyslog RSYSLOG_FileFormat (v8, RFC 3339 high precision)", "2024-04-29T14:55:41.678628+02:00 node-7 kernel: ", "2024-04-29T12:55:41.678628Z"},
	{"rsyslog RSYSLOG_FileFormat, UTC (v8)", "2024-04-29T12:55:41.678628Z node-7 kernel: ", "2024-04-29T12:55:41.678628Z"},
	{"rsyslog RSYSLOG_SyslogProtocol23Format (v8, RFC 5424)", "<3>1 2024-04-29T14:55:41.678628+02:00 node-7 kernel - - - ", "2024-04-29T12:55:41.678628Z"},
	{"RFC 5424 with structured data (v8)", `<3>1 2024-04-29T14:55:41.678628+02:00 node-7 kernel - - [meta seq="1\]"] `, "2024-04-29T12:55:41.678628Z"},
	{"rsyslog RSYSLOG_ForwardFormat (smfwd.c v8)", "<3>2024-04-29T14:55:41.678628+02:00 node-7 kernel: ", "2024-04-29T12:55:41.678628Z"},
	{"rsyslog RSYSLOG_TraditionalForwardFormat (smtradfwd.c v8)", "<3>Apr 29 14:55:41 node-7 kernel: ", "0000-04-29T14:55:41Z"},
	{"no header (journalctl -o cat, dmesg -t)", "", ""},
}

func TestSplitKernelHeaders(t *testing.T) {
	for _, c := range kernelHeaders {
		l := SplitKernel(c.header + killLine)
		if l.Text != killLine {
			t.Errorf("%s: %q: text %q", c.name, c.header, l.Text)
		}
		if got := stamp(l.At); got != c.want {
			t.Errorf("%s: %q: at %s, want %s", c.name, c.header, got, c.want)
		}
	}
}

func stamp(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return at.Format("2006-01-02T15:04:05.999999Z07:00")
}

// TestSplitKernelJournalJSON: journalctl -o json (v219-v254 spaced, v255+
// compact); only the kernel's transport gives its MESSAGE.
func TestSplitKernelJournalJSON(t *testing.T) {
	for _, c := range []struct{ name, line, text, at string }{
		{"v255 compact", `{"__CURSOR":"s=1;i=2","__REALTIME_TIMESTAMP":"1714395341678628","__MONOTONIC_TIMESTAMP":"2190840861","_BOOT_ID":"b","PRIORITY":"3","SYSLOG_FACILITY":"0","SYSLOG_IDENTIFIER":"kernel","_TRANSPORT":"kernel","_SOURCE_MONOTONIC_TIMESTAMP":"2190840861","MESSAGE":"` + killLine + `"}`,
			killLine, "2024-04-29T12:55:41.678628Z"},
		{"v219 spaced", `{ "__CURSOR" : "s=1", "__REALTIME_TIMESTAMP" : "1714395341678628", "_TRANSPORT" : "kernel", "MESSAGE" : "` + killLine + `" }`,
			killLine, "2024-04-29T12:55:41.678628Z"},
		{"escapes", `{"_TRANSPORT":"kernel","MESSAGE":"Killed process 7 (a\"b\\c) total-vm:1kB"}`, `Killed process 7 (a"b\c) total-vm:1kB`, ""},
		{"json-seq (v240+)", "\x1e" + `{"_TRANSPORT":"kernel","MESSAGE":"x","__REALTIME_TIMESTAMP":"1714395341678628"}`, "x", "2024-04-29T12:55:41.678628Z"},
		{"no transport field (--output-fields)", `{"MESSAGE":"x"}`, "x", ""},
	} {
		l := SplitKernel(c.line)
		if l.Text != c.text || stamp(l.At) != c.at {
			t.Errorf("%s: %q at %s, want %q at %s", c.name, l.Text, stamp(l.At), c.text, c.at)
		}
	}
}

// TestSplitKernelOtherPrograms: a line another program wrote keeps its header,
// so no kernel statement reads it; so does a line no tool writes.
func TestSplitKernelOtherPrograms(t *testing.T) {
	for _, line := range []string{
		"Apr 29 14:55:41 node-7 python3[4242]: " + killLine,
		"апр 28 01:23:30 PC trainer[7]: " + killLine,
		"2024-04-29T14:55:41.678628+02:00 node-7 python3[4242]: " + killLine,
		"<14>1 2024-04-29T14:55:41.678628+02:00 node-7 trainer 4242 - - " + killLine,
		"user  :notice: [ 2190.840861] " + killLine, // written to /dev/kmsg by a program
		`{"_TRANSPORT":"stdout","MESSAGE":"` + killLine + `","__REALTIME_TIMESTAMP":"1714395341678628"}`,
		`{"_TRANSPORT":"syslog","MESSAGE":"` + killLine + `"}`,
		// malformed: no crash, the header stays
		"[ 2190.840861 " + killLine, "[ .5] " + killLine, "[Mon Apr 29 14:55:41] " + killLine, "[rank3]:" + killLine,
		"2024-04-29T14:55:41,678628 " + killLine, "<3" + killLine, "kern  :bogus : " + killLine, "1 2024-04-29T14:55:41Z",
		`{"MESSAGE":`, `{"MESSAGE":"unterminated`, `{"MESSAGE":[1,2]}`, "", "[", "<", "{", "6,", "Apr 29 14:55:41 node-7 kernel:",
	} {
		l := SplitKernel(line)
		if l.Text == killLine {
			t.Errorf("%q: read as the kernel's", line)
		}
	}
}

// TestSplitKernelFixtures: every line of the kernel logs in hostoom/testdata
// loses its header: what remains starts as the kernel's message does.
func TestSplitKernelFixtures(t *testing.T) {
	files, _ := filepath.Glob("../../hostoom/testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no kernel logs in hostoom/testdata")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			text := SplitKernel(line).Text
			stamp, _ := dmesgLen(text)
			journal, _, _ := journalLen(text)
			if text == "" || stamp > 0 || journal > 0 || strings.HasPrefix(text, "{") || priLen(text) > 0 ||
				strings.Contains(text, " kernel: ") || strings.Contains(text, " kernel - ") || IsDigit(text[0]) {
				t.Errorf("%s:%d: header left: %q", filepath.Base(f), i+1, text)
			}
		}
	}
}

// TestWallTimeZones: stamps with and without a zone or a fraction.
func TestWallTimeZones(t *testing.T) {
	for h, want := range map[string]string{
		"2024-04-29T14:55:41.678628": "2024-04-29T14:55:41.678628Z", "2024-04-29 14:55:41": "2024-04-29T14:55:41Z",
		"2024-04-29T14:55:41-0130": "2024-04-29T16:25:41Z", "2024-04-29T14:55:41.5Z": "2024-04-29T14:55:41.5Z",
	} {
		if got := stamp(wallTime(h)); got != want {
			t.Errorf("%s: %s want %s", h, got, want)
		}
	}
}

func TestMonthOf(t *testing.T) {
	for w, want := range map[string]int{"Jan": 1, "Dec": 12, "апр": 4, "мая": 5, "Mär": 3, "janv.": 1, "déc.": 12, "12月": 12, "4월": 4, "13月": 0, "Foo": 0, "": 0} {
		if got := monthOf(w); got != want {
			t.Errorf("monthOf(%q) = %d, want %d", w, got, want)
		}
	}
}

// BenchmarkSplitKernel: one line of each common header, and a bare one.
func BenchmarkSplitKernel(b *testing.B) {
	lines := []string{"[ 2190.840861] " + killLine, "Apr 29 14:55:41 node-7 kernel: " + killLine, killLine,
		"2024-04-29T14:55:41.678628+02:00 node-7 kernel: " + killLine, "[Mon Apr 29 14:55:41 2024] " + killLine}
	for b.Loop() {
		for _, l := range lines {
			if SplitKernel(l).Text != killLine {
				b.Fatal(l)
			}
		}
	}
}

// TestSplitKernelTruncated: every header and JSON line cut at every byte
// splits without a panic.
func TestSplitKernelTruncated(t *testing.T) {
	lines := []string{`{"__REALTIME_TIMESTAMP":"1714395341678628","_TRANSPORT":"kernel","MESSAGE":"a\"b"}`}
	for _, c := range kernelHeaders {
		lines = append(lines, c.header+"x")
	}
	for _, l := range lines {
		for i := range len(l) + 1 {
			SplitKernel(l[:i])
			SplitKernel(l[i:])
		}
	}
}

func TestStartsKernelLine(t *testing.T) {
	for _, c := range kernelHeaders {
		if got := StartsKernelLine(c.header + killLine); got != (c.header != "") {
			t.Errorf("%s: %q: %v", c.name, c.header, got)
		}
	}
	for _, l := range []string{"Traceback (most recent call last):", "  File \"train.py\", line 1", "Apr 29 14:55:41 node-7 python3[1]: x", ""} {
		if StartsKernelLine(l) {
			t.Errorf("%q starts a kernel line", l)
		}
	}
}
