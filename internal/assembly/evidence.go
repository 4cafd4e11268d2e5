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
	framework framework
}

// framework is the strongest evidence of a program's framework read so far
// (oom.FrameworkEvidence): a JAX job reading tf.data prints TensorFlow's
// start-up lines, but raises JAX's exception.
type framework struct {
	name     string
	strength int
}

func (f *framework) read(text string) {
	if name, strength := oom.FrameworkEvidence(text); strength > f.strength {
		f.name, f.strength = name, strength
	}
}

func (f *framework) join(g framework) {
	if g.strength > f.strength {
		*f = g
	}
}

const frameAnchor = `File "`

// read takes the allocator's figures, as for one record, and the user's
// innermost traceback frame.
func (e *evidence) read(text string) {
	e.allocator.Read(text)
	e.framework.read(text)
	if strings.Contains(text, frameAnchor) {
		if s, ok := UserFrame(text); ok {
			e.site = oom.Site{File: strings.Clone(s.File), Line: s.Line, Function: strings.Clone(s.Function)} // the caller may reuse text
		}
	}
}

// apply completes r with the evidence, its advice in the framework the
// failure's records and its stream's (stream) show.
func (e *evidence) apply(r *oom.Report, stream framework) {
	e.allocator.Apply(r)
	fw := e.framework
	fw.join(stream)
	if fw.name != "" {
		oom.Reframe(r, fw.name)
	}
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
