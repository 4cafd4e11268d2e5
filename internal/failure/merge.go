// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package failure

import "github.com/xlaoom/xlaoomprocessor/oom"

// merge completes a failure's report dst with a later statement's src: what
// dst does not state, src may. A statement of a known family takes the place
// of a last-resort one (family generic), which then only completes it.
func merge(dst *oom.Report, src *oom.Report) {
	if dst.Family == oom.FamilyGeneric && src.Family != oom.FamilyGeneric {
		base := *src
		completeWith(&base, dst)
		*dst = base
		return
	}
	completeWith(dst, src)
}

// completeWith fills the facts dst lacks from src. The classification, the
// advice and the verdict stay dst's: they were read with the statement's
// own words.
func completeWith(dst, src *oom.Report) {
	for _, p := range []struct{ d, s *oom.Size }{
		{&dst.Requested, &src.Requested}, {&dst.Free, &src.Free}, {&dst.Used, &src.Used},
		{&dst.Capacity, &src.Capacity}, {&dst.Exceeded, &src.Exceeded}, {&dst.Reserved, &src.Reserved},
		{&dst.Reservable, &src.Reservable}, {&dst.PoolLimit, &src.PoolLimit}, {&dst.InUse, &src.InUse},
		{&dst.LargestFree, &src.LargestFree}, {&dst.PoolSize, &src.PoolSize},
	} {
		fill(p.d, *p.s)
	}
	for _, p := range []struct{ d, s *string }{
		{&dst.Backend, &src.Backend}, {&dst.MemorySpace, &src.MemorySpace}, {&dst.Program, &src.Program},
		{&dst.Device, &src.Device}, {&dst.Instruction, &src.Instruction}, {&dst.ExceptionType, &src.ExceptionType},
		{&dst.Cause, &src.Cause},
	} {
		if *p.d == "" {
			*p.d = *p.s
		}
	}
	if dst.MemoryHolder == "" || src.MemoryHolderSize.Bytes > dst.MemoryHolderSize.Bytes {
		if src.MemoryHolder != "" {
			dst.MemoryHolder, dst.MemoryHolderSize = src.MemoryHolder, src.MemoryHolderSize
		}
	}
	if !dst.HasReplica && src.HasReplica {
		dst.Replica, dst.HasReplica = src.Replica, true
	}
	if !dst.HasPartition && src.HasPartition {
		dst.Partition, dst.HasPartition = src.Partition, true
	}
	if !dst.Breakdown.Total.Known && len(dst.Breakdown.Allocations) == 0 {
		dst.Breakdown = src.Breakdown
	}
	if dst.Site.File == "" {
		dst.Site = src.Site
	}
	dst.OwnRefused = dst.OwnRefused || src.OwnRefused
	if dst.FitFraction == 0 {
		dst.FitFraction = src.FitFraction
	}
}
