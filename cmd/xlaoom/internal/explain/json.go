// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"encoding/json"
	"io"
)

// jsonFinding is one line of --json output. Attributes holds exactly the
// attributes the processor writes on the same record, but for
// xla.oom.incident.id (see attributes); Severity is the severity text the
// processor gives a record that has none.
type jsonFinding struct {
	Source     string         `json:"source"`
	Line       int            `json:"line"`
	Severity   string         `json:"severity"`
	Attributes map[string]any `json:"attributes"`
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
	if f.Failure == nil {
		severity = "WARN"
	}
	return p.enc.Encode(jsonFinding{Source: f.Source, Line: f.Line, Severity: severity, Attributes: f.Attributes.AsRaw()})
}
