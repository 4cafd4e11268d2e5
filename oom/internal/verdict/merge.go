// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package verdict

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/details"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Merging the messages of one record into the failure's Report: a field
// once set is never overwritten, so the failure's own values win.

// MergeFrom fills fields r left empty from another message of the same
// record. Sizes and memory details move only between messages of one code.
func MergeFrom(r, o *grammar.Report) {
	details.SetString(&r.Device, o.Device)
	if r.Backend == "" {
		r.Backend = o.Backend
	}
	if o.Code != r.Code {
		return
	}
	details.SetString(&r.MemorySpace, o.MemorySpace)
	details.SetString(&r.Instruction, o.Instruction)
	for _, f := range [...]struct{ dst, src *grammar.Size }{
		{&r.Requested, &o.Requested}, {&r.Free, &o.Free}, {&r.Used, &o.Used}, {&r.Capacity, &o.Capacity},
		{&r.Exceeded, &o.Exceeded}, {&r.Reserved, &o.Reserved}, {&r.Reservable, &o.Reservable}, {&r.PoolLimit, &o.PoolLimit},
	} {
		if !f.dst.Known {
			*f.dst = *f.src
		}
	}
	if r.Words == (grammar.SparseCoreWords{}) {
		r.Words = o.Words
	}
}

// PreferExact gives r the exact request another message of the record
// prints for the same allocation, when r's own is a rounded human size:
// "Out of memory while trying to allocate 93.13GiB" after the allocator's
// "93.13GiB (rounded to 100000000000)".
func PreferExact(r *grammar.Report, printed string, o *Candidate) {
	if printed == "" || grammar.IsExactToken(printed) || !grammar.IsExactToken(o.RequestedToken) || !o.R.Requested.Known || o.R.Code != r.Code {
		return
	}
	if grammar.FormatHuman(o.R.Requested.Bytes, strings.HasSuffix(printed, "iB")) == printed {
		r.Requested = o.R.Requested
	}
}
