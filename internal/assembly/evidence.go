// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package assembly

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// evidence is what a failure keeps of its records: a fixed amount.
type evidence struct {
	allocator oom.Allocator
	site      oom.Site
}

const frameAnchor = `File "`

// read takes the allocator's figures, as for one record, and the user's
// innermost traceback frame.
func (e *evidence) read(text string) {
	e.allocator.Read(text)
	if strings.Contains(text, frameAnchor) {
		if s, ok := UserFrame(text); ok {
			e.site = oom.Site{File: strings.Clone(s.File), Line: s.Line, Function: strings.Clone(s.Function)} // the caller may reuse text
		}
	}
}

// apply completes r with the evidence.
func (e *evidence) apply(r *oom.Report) {
	e.allocator.Apply(r)
	if e.site.File != "" {
		r.Site = e.site
	}
}

func (e *evidence) sortedHolders() []Holder {
	var hs []Holder
	for _, h := range e.allocator.Holders() {
		hs = append(hs, Holder{Program: h.Program, Bytes: h.Bytes, Chunks: h.Chunks})
	}
	return hs
}

func fill(dst *oom.Size, src oom.Size) {
	if !dst.Known && src.Known {
		*dst = src
	}
}
