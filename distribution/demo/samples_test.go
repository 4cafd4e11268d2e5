// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package demo

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// TestSamplesCoverEveryFamily keeps the samples honest independently of the
// collector: every promised message family is there and recognised, with the
// expected code per host, and the look-alikes are not.
func TestSamplesCoverEveryFamily(t *testing.T) {
	recs, err := ReadRecords("logs")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	families := map[string]bool{}
	for _, r := range recs {
		rep, ok := oom.Recognize(r.Text)
		if !ok {
			continue
		}
		got[r.Host] = append(got[r.Host], rep.Code)
		families[rep.Family] = true
		for _, l := range LookAlikes {
			if strings.Contains(r.Text, l) {
				t.Errorf("look-alike %q tagged as %s", l, rep.Code)
			}
		}
	}
	if !reflect.DeepEqual(got, Expected) {
		t.Errorf("codes per host:\n got %v\nwant %v", got, Expected)
	}
	var fams []string
	for f := range families {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	// The families the samples show as the failure (the BFC, driver and
	// preallocation lines only accompany GPU statuses there; the BFC line
	// alone is the non-fatal look-alike).
	want := "cpu-runtime gpu-allocator-status gpu-cuda-async-allocator gpu-platform-allocator tpu-compile-allocation-exceeds-memory tpu-compile-early-abort tpu-compile-hbm-used tpu-compile-sparsecore-offset tpu-compile-tensorcore-sparsecore-hbm tpu-compile-vmem-stack tpu-runtime-buffer tpu-runtime-program-load"
	if s := strings.Join(fams, " "); s != want {
		t.Errorf("families %q, want %q", s, want)
	}
	all := ""
	for _, r := range recs {
		all += r.Text + "\n"
	}
	for _, s := range append([]string{
		"E1000: CompileTimeHbmOom:", "Resource exhausted: ", "BufferAssignment OOM Debugging.",
		"Total hbm usage >= ", "(EngineCore_DP0 pid=", "Traceback (most recent call last):",
	}, LookAlikes...) {
		if !strings.Contains(all, s) {
			t.Errorf("samples lack %q", s)
		}
	}
}

// TestLineStartIsTheConfiguredOne checks that the demo config and the example
// configs use this very pattern, so the sample test reads records the way the
// collector does.
func TestLineStartIsTheConfiguredOne(t *testing.T) {
	for _, f := range []string{"config.yaml", "../../examples/agent.yaml", "../../examples/all-in-one.yaml"} {
		b, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "line_start_pattern: '"+oom.LineStart+"'") {
			t.Errorf("%s: multiline.line_start_pattern is not oom.LineStart", f)
		}
	}
}

// TestSamplesWarnBeforeFailing: the samples hold a job that warns before it
// fails. Every warning is recognised as a warning and not as an OOM, and the
// host logs its first OOM after its warnings.
func TestSamplesWarnBeforeFailing(t *testing.T) {
	recs, err := ReadRecords("logs")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	firstOOM := map[string]int{}
	lastWarning := map[string]int{}
	for i, r := range recs {
		if _, ok := oom.Recognize(r.Text); ok {
			if _, seen := firstOOM[r.Host]; !seen {
				firstOOM[r.Host] = i
			}
			continue
		}
		if !oom.MayContain(r.Text) {
			continue
		}
		if w, ok := oom.RecognizeWarning(r.Text); ok {
			got[r.Host] = append(got[r.Host], w.Kind)
			lastWarning[r.Host] = i
		}
	}
	if !reflect.DeepEqual(got, ExpectedWarnings) {
		t.Errorf("warnings per host:\n got %v\nwant %v", got, ExpectedWarnings)
	}
	for host, i := range lastWarning {
		if j, ok := firstOOM[host]; !ok || j < i {
			t.Errorf("%s: no OOM after its last warning (record %d, first OOM %d, %v)", host, i, j, ok)
		}
	}
}

// Every sample record starts with a header the operators date (the demo's
// records are all dated by their logs, none by when they were read).
func TestSamplesAreDated(t *testing.T) {
	recs, err := ReadRecords("logs")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if _, ok := oom.HeaderTime(r.Text); !ok {
			first, _, _ := strings.Cut(r.Text, "\n")
			t.Errorf("%s/%s: a record without a header: %q", r.Host, r.Job, first)
		}
	}
}

// The samples hold host-memory kills too, which are no XLA failures.
func TestSamplesHoldHostKills(t *testing.T) {
	recs, err := ReadRecords("logs")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, r := range recs {
		if s, ok := hostoom.Parse(r.Text); ok {
			got[r.Host] = append(got[r.Host], s.Kind.Source())
			if _, xla := oom.Recognize(r.Text); xla {
				t.Errorf("%s/%s: a host kill recognised as an XLA failure", r.Host, r.Job)
			}
		}
	}
	if !reflect.DeepEqual(got, ExpectedHostKills) {
		t.Errorf("host kills per host:\n got %v\nwant %v", got, ExpectedHostKills)
	}
}
