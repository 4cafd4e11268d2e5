// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// oneRecord is a file exporter line with one log record; fmt.Sprintf fills in its body.
const oneRecord = `{"resourceLogs":[{"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"node-1"}}]},` +
	`"scopeLogs":[{"logRecords":[{"timeUnixNano":"1700000000000000000","severityText":"ERROR","body":{"stringValue":"%s"},` +
	`"attributes":[{"key":"xla.error.code","value":{"stringValue":"E0100"}}]}]}]}]}`

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "records.json")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEachLineSkipsBlankLinesAndCountsFromOne(t *testing.T) {
	path := writeLines(t, "a", "", "b")
	var got []string
	if err := EachLine(path, func(n int, line []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", n, line))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"1:a", "3:b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
}

func TestEachLineStopsAtTheFirstError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := EachLine(writeLines(t, "a", "b"), func(int, []byte) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err %v after %d calls, want %v after 1", err, calls, stop)
	}
}

func TestMissingFileHasNoRecords(t *testing.T) {
	recs, err := ReadFile(filepath.Join(t.TempDir(), "absent.json"))
	if err != nil || recs != nil {
		t.Errorf("ReadFile = %v, %v; want no records and no error", recs, err)
	}
}

func TestReadFile(t *testing.T) {
	path := writeLines(t, fmt.Sprintf(oneRecord, "first"), fmt.Sprintf(oneRecord, "second"))
	recs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Body != "first" || recs[1].Body != "second" {
		t.Fatalf("records %+v, want bodies first, second", recs)
	}
	r := recs[0]
	if r.Str("xla.error.code") != "E0100" || r.ResourceStr("host.name") != "node-1" || r.Severity != "ERROR" || r.Time.Unix() != 1700000000 {
		t.Errorf("record %+v", r)
	}
}

func TestReadFileNamesTheBadLine(t *testing.T) {
	path := writeLines(t, fmt.Sprintf(oneRecord, "ok"), "{not json")
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "records.json:2:") {
		t.Errorf("err %v, want one naming records.json:2", err)
	}
}
