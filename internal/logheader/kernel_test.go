// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package logheader

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The kernel headers as regular expressions: the reference SplitKernel's
// hand-written matchers must agree with.
var (
	refKmsg   = regexp.MustCompile(`^\d+,\d+,(\d+),[^;]*;`)
	refDmesg  = regexp.MustCompile(`^\[\s*(\d+)\.(\d+)\] ?`)
	refDmesgT = regexp.MustCompile(`^\[([A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})\] ?`)
	refSyslog = regexp.MustCompile(`^(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?) \S+ kernel: `)
)

func refSplitKernel(line string) KernelLine {
	if m := refKmsg.FindStringSubmatch(line); m != nil {
		us, _ := strconv.ParseInt(m[1], 10, 64)
		return KernelLine{Text: line[len(m[0]):], At: time.Unix(0, 0).UTC().Add(time.Duration(us) * time.Microsecond)}
	}
	var l KernelLine
	if m := refSyslog.FindStringSubmatch(line); m != nil {
		line = line[len(m[0]):]
		l.At = parseWall(strings.TrimSpace(m[0][:len(m[0])-len(" kernel: ")]))
	}
	if m := refDmesg.FindStringSubmatch(line); m != nil {
		s, _ := strconv.ParseInt(m[1], 10, 64)
		ns, _ := strconv.ParseInt((m[2] + "000000000")[:9], 10, 64)
		if l.At.IsZero() {
			l.At = time.Unix(s, ns).UTC()
		}
		line = line[len(m[0]):]
	} else if m := refDmesgT.FindStringSubmatch(line); m != nil {
		if t, err := time.Parse("Mon Jan _2 15:04:05 2006", m[1]); err == nil {
			l.At = t
		}
		line = line[len(m[0]):]
	}
	l.Text = line
	return l
}

// TestSplitKernel: every line of the kernel logs in hostoom/testdata, and
// each header with its parts broken, splits as the regular expressions
// (they differ from the shared grammar only on months, seconds and zones
// no tool prints).
func TestSplitKernel(t *testing.T) {
	lines := []string{
		"6,1234,2190840616,-;Out of memory", "6,1234,2190840616,-,caller=T1;msg", "6,1234,,-;msg", "6,1234,21;msg", "6,12a,1,-;msg",
		"[ 2190.840616] msg", "[2190.8] msg", "[\t2190.840616]msg", "[ 2190.] msg", "[ .5] msg", "[ 2190.840616 msg",
		"[Fri Nov 27 18:48:46 2026] msg", "[Fri Nov  7 18:48:46 2026]msg", "[fri Nov 27 18:48:46 2026] msg", "[Fri Nov 27 18:48:46 26] msg",
		"Nov 27 18:48:46 host kernel: msg", "Nov  7 18:48:46.123456 host kernel: [ 12.5] msg", "Nov 27 18:48:46. host kernel: msg",
		"Nov 27 18:48:46 host python: msg", "Nov 27 18:48:46  kernel: msg", "Nov 27 18:48:46 host python3[1]: kernel: msg",
		"2026-11-27T18:48:46.123456+0000 host kernel: msg", "2026-11-27T18:48:46+00:00 host kernel: msg", "2026-11-27 18:48:46,5Z host kernel: msg",
		"2026-11-27T18:48:46. host kernel: msg", "2026-11-27T18:48:46+02:00 host python: msg",
		"2026-11-27T18:48:46Z host\tkernel: msg", "", "[", "6,", "Nov 27 18:48:46 host kernel: ",
	}
	files, _ := filepath.Glob("../../hostoom/testdata/*.txt")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	if len(files) == 0 {
		t.Fatal("no kernel logs in hostoom/testdata")
	}
	for _, l := range lines {
		if got, want := SplitKernel(l), refSplitKernel(l); got != want {
			t.Errorf("%q: %q %v, want %q %v", l, got.Text, got.At, want.Text, want.At)
		}
	}
}
