// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"strconv"
	"strings"
)

// Merging the messages of one record into the failure's Report: a field
// once set is never overwritten, so the failure's own values win.

// mergeFrom fills fields r left empty from another message of the same
// record. Sizes and memory details move only between messages of one code.
func mergeFrom(r, o *Report) {
	setString(&r.Device, o.Device)
	if r.Backend == "" {
		r.Backend = o.Backend
	}
	if o.Code != r.Code {
		return
	}
	setString(&r.MemorySpace, o.MemorySpace)
	setString(&r.Instruction, o.Instruction)
	for _, f := range [...]struct{ dst, src *Size }{
		{&r.Requested, &o.Requested}, {&r.Free, &o.Free}, {&r.Used, &o.Used}, {&r.Capacity, &o.Capacity},
		{&r.Exceeded, &o.Exceeded}, {&r.Reserved, &o.Reserved}, {&r.Reservable, &o.Reservable}, {&r.PoolLimit, &o.PoolLimit},
	} {
		if !f.dst.Known {
			*f.dst = *f.src
		}
	}
	if r.Words == (SparseCoreWords{}) {
		r.Words = o.Words
	}
}

// preferExact gives r the exact request another message of the record
// prints for the same allocation, when r's own is a rounded human size:
// "Out of memory while trying to allocate 93.13GiB" after the allocator's
// "93.13GiB (rounded to 100000000000)".
func preferExact(r *Report, printed string, o *candidate) {
	if printed == "" || isExactToken(printed) || !isExactToken(o.requestedToken) || !o.r.Requested.Known || o.r.Code != r.Code {
		return
	}
	if formatHuman(o.r.Requested.Bytes, strings.HasSuffix(printed, "iB")) == printed {
		r.Requested = o.r.Requested
	}
}

func setString(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

func setSize(dst *Size, v string) {
	if !dst.Known {
		*dst = parseSizeToken(v)
	}
}

func setReplica(r *Report, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !r.HasReplica {
		r.Replica, r.HasReplica = n, true
	}
}

func setPartition(r *Report, v string) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && !r.HasPartition {
		r.Partition, r.HasPartition = n, true
	}
}
