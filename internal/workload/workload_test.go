// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package workload

import (
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
)

func TestDeterministic(t *testing.T) {
	a, b := New(DefaultConfig()).Lines(5000), New(DefaultConfig()).Lines(5000)
	for i := range a {
		if a[i].Text != b[i].Text {
			t.Fatalf("line %d differs between two generators with the same seed:\n%s\n%s", i, a[i].Text, b[i].Text)
		}
	}
	other := DefaultConfig()
	other.Seed++
	c := New(other).Lines(100)
	same := 0
	for i := range c {
		if c[i].Text == a[i].Text {
			same++
		}
	}
	if same > 10 {
		t.Fatalf("another seed gave %d identical lines out of 100", same)
	}

	ba, bb := Batches(DefaultConfig(), 3, 1000), Batches(DefaultConfig(), 3, 1000)
	for i := range ba {
		if !Equal(ba[i], bb[i]) {
			t.Fatalf("batch %d differs between two runs", i)
		}
	}
}

func TestOOMFraction(t *testing.T) {
	for _, tc := range []struct {
		fraction float64
		lines    int
		want     int
	}{
		{0.001, 100000, 100},
		{0.01, 10000, 100},
		{0, 10000, 0},
		{1, 50, 50},
	} {
		cfg := DefaultConfig()
		cfg.OOMFraction = tc.fraction
		s := Describe(New(cfg).Lines(tc.lines))
		if s.OOM != tc.want {
			t.Errorf("fraction %v over %d lines: %d OOM lines, want %d", tc.fraction, tc.lines, s.OOM, tc.want)
		}
	}
	// Every default 1,000-record batch holds exactly one OOM record, and the
	// batches cycle through every message.
	seen := map[string]bool{}
	for i, b := range Batches(DefaultConfig(), 16, DefaultBatchSize) {
		if b.LogRecordCount() != DefaultBatchSize {
			t.Fatalf("batch %d has %d records", i, b.LogRecordCount())
		}
		n := 0
		eachRecord(b, func(lr plog.LogRecord) {
			for _, m := range OOMMessages {
				if lr.Body().Str() == m.Text {
					n++
					seen[m.Family] = true
				}
			}
		})
		if n != 1 {
			t.Errorf("batch %d holds %d OOM records, want 1", i, n)
		}
		if b.ResourceLogs().Len() != DefaultResources {
			t.Errorf("batch %d has %d resources", i, b.ResourceLogs().Len())
		}
	}
	if len(seen) != len(OOMMessages) {
		t.Errorf("16 batches used %d of the %d OOM messages", len(seen), len(OOMMessages))
	}
}

func TestOrdinaryLines(t *testing.T) {
	cfg := DefaultConfig()
	cfg.OOMFraction = 0
	s := Describe(New(cfg).Lines(20000))
	if s.MinLen < 60 || s.MaxLen > 300 {
		t.Errorf("ordinary line lengths %d..%d, want within 60..300", s.MinLen, s.MaxLen)
	}
	if s.ContainsRExhaust != 0 {
		t.Errorf("%d ordinary lines contain RESOURCE_EXHAUSTED", s.ContainsRExhaust)
	}
	if s.MentionsMemory < s.Lines/20 {
		t.Errorf("only %d of %d ordinary lines mention memory/allocation", s.MentionsMemory, s.Lines)
	}
	t.Logf("%+v", s)
	shapes := map[string]int{}
	for _, l := range New(cfg).Lines(2000) {
		switch {
		case strings.HasPrefix(l.Text, "{"):
			shapes["json"]++
		case strings.HasPrefix(l.Text, "INFO:     "):
			shapes["uvicorn"]++
		case strings.Contains(l.Text, "pid=") && strings.HasPrefix(l.Text, "(EngineCore"):
			shapes["vllm-prefixed"]++
		case strings.HasPrefix(l.Text, "(RayTrainWorker"):
			shapes["ray"]++
		case len(l.Text) > 27 && l.Text[26] == ':' && l.Text[4] == '-':
			shapes["tsl"]++
		case l.Text[0] == 'I' && l.Text[5] == ' ':
			shapes["glog"]++
		}
	}
	for _, k := range []string{"json", "uvicorn", "vllm-prefixed", "ray", "tsl", "glog"} {
		if shapes[k] == 0 {
			t.Errorf("no %s line in 2000", k)
		}
	}
}

func TestMessages(t *testing.T) {
	if len(OneLineOOM()) < 6 || len(MultiLineOOM()) < 1 {
		t.Fatalf("%d one-line and %d multi-line messages", len(OneLineOOM()), len(MultiLineOOM()))
	}
	for _, m := range OOMMessages {
		if m.MultiLine != strings.Contains(strings.TrimSpace(m.Text), "\n") {
			t.Errorf("%s: MultiLine=%v does not match its text", m.Family, m.MultiLine)
		}
	}
}

func TestPoolRestore(t *testing.T) {
	batches := Batches(DefaultConfig(), 4, 1000)
	pristine := Batches(DefaultConfig(), 4, 1000)
	// A stand-in for a processor: tags records containing RESOURCE_EXHAUSTED.
	tag := func(ld plog.Logs) {
		eachRecord(ld, func(lr plog.LogRecord) {
			if strings.Contains(lr.Body().Str(), "RESOURCE_EXHAUSTED") {
				lr.Attributes().PutStr("xla.error.code", "E0100")
				lr.SetSeverityNumber(plog.SeverityNumberError)
			}
		})
	}
	p := NewPool(batches)
	if n := p.Track(tag); n != 4 {
		t.Fatalf("Track found %d modified records, want 4", n)
	}
	for round := 0; round < 2; round++ {
		for i := 0; i < p.Len(); i++ {
			tag(p.At(i))
			if Equal(p.At(i), pristine[i]) {
				t.Fatalf("batch %d unchanged by processing", i)
			}
		}
		p.Restore()
		for i := 0; i < p.Len(); i++ {
			if !Equal(p.At(i), pristine[i]) {
				t.Fatalf("round %d: batch %d not restored", round, i)
			}
		}
	}
	for i := range batches {
		if !Equal(batches[i], pristine[i]) {
			t.Fatalf("the pool modified original batch %d", i)
		}
	}
}

func eachRecord(ld plog.Logs, f func(plog.LogRecord)) {
	for i := 0; i < ld.ResourceLogs().Len(); i++ {
		sls := ld.ResourceLogs().At(i).ScopeLogs()
		for j := 0; j < sls.Len(); j++ {
			lrs := sls.At(j).LogRecords()
			for k := 0; k < lrs.Len(); k++ {
				f(lrs.At(k))
			}
		}
	}
}
