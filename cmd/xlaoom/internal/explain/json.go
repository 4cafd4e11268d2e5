// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"encoding/json"
	"io"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// jsonFinding is one line of --json output: one failure or one warning, with
// the attributes the processor writes (Finding.Attributes), the severity it
// gives a record that has none, the first line of every record gathered (Line
// first) and the allocation attempts it came after or holds.
type jsonFinding struct {
	Source      string         `json:"source"`
	Line        int            `json:"line"`
	Severity    string         `json:"severity"`
	Attributes  map[string]any `json:"attributes"`
	Records     []int          `json:"records"`
	Attempts    *jsonAttempts  `json:"attempts,omitempty"`
	Retry       string         `json:"retry,omitempty"`
	FitFraction float64        `json:"fit_fraction,omitempty"`
}

// jsonAttempts is Attempts: sizes in bytes, absent where not printed.
type jsonAttempts struct {
	Count      int                 `json:"count"`
	Summary    string              `json:"summary"`
	First      *int64              `json:"first_requested_bytes,omitempty"`
	Last       *int64              `json:"last_refused_bytes,omitempty"`
	Free       *int64              `json:"cuda_free_bytes,omitempty"`
	Total      *int64              `json:"cuda_total_bytes,omitempty"`
	Series     []jsonAttemptSeries `json:"series"`
	MoreSeries int                 `json:"more_series,omitempty"`
	Records    []int               `json:"records"`
}

type jsonAttemptSeries struct {
	Steps   int    `json:"steps"`
	First   *int64 `json:"first_bytes,omitempty"`
	Last    *int64 `json:"last_bytes,omitempty"`
	BackOff bool   `json:"back_off"`
	Repeat  int    `json:"repeat"`
}

func jsonSize(s oom.Size) *int64 {
	if !s.Known {
		return nil
	}
	return &s.Bytes
}

func newJSONAttempts(a *Attempts) *jsonAttempts {
	if a.Count == 0 {
		return nil
	}
	j := &jsonAttempts{Count: a.Count, Summary: a.Text(), First: jsonSize(a.First), Last: jsonSize(a.Last),
		Free: jsonSize(a.Free), Total: jsonSize(a.Capacity), MoreSeries: a.MoreSeries,
		Records: a.Lines}
	for i := range a.Series {
		s := &a.Series[i]
		j.Series = append(j.Series, jsonAttemptSeries{Steps: s.Steps, First: jsonSize(s.First), Last: jsonSize(s.Last),
			BackOff: s.BackOff(), Repeat: s.Repeat})
	}
	return j
}

// jsonPrinter writes one JSON object per finding, one per line.
type jsonPrinter struct {
	enc *json.Encoder
}

func newJSONPrinter(w io.Writer) *jsonPrinter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // shapes and operators hold < and >; keep them readable
	return &jsonPrinter{enc: enc}
}

func (p *jsonPrinter) finding(f *Finding) error {
	severity := "ERROR"
	if f.Failure == nil || f.WentOn() {
		severity = "WARN"
	}
	return p.enc.Encode(jsonFinding{Source: f.Source, Line: f.Line, Severity: severity, Attributes: f.Attributes.AsRaw(),
		Records: f.Lines, Attempts: newJSONAttempts(&f.Attempts), Retry: f.Retry, FitFraction: f.FitFraction})
}
