// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package workload

import (
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
)

// Pool hands a benchmark a fresh batch per iteration without timing copies.
//
// The components under test mutate the records they tag (they add attributes
// and may set the severity). Processing the same batch twice would measure
// the wrong thing: the second pass finds the OOM records already tagged and
// skips writing the attributes (xla_oom leaves a record carrying
// xla.error.code as it is), which hides the cost and the allocations of
// tagging. Copying the whole batch every iteration would need
// b.StopTimer/b.StartTimer around the copy on every iteration; StopTimer reads
// the memory statistics (a stop-the-world) and the copy of 1,000 records costs
// more than processing them, so the run would be slow and noisy.
//
// Pool does neither. It holds working copies of the batches and remembers
// which records the component modifies (Track runs it once on scratch copies
// and compares every record). Those are only the tagged records — 0.1 % of the
// traffic — because neither xla_oom nor the transform peer writes to a record
// it does not tag. After every batch of the pool has been processed once, the
// benchmark stops the timer and calls Restore, which copies just those few
// records back from the pristine originals: one StopTimer and a handful of
// record copies per Len() iterations. Every timed iteration therefore
// processes a batch exactly as it came from the generator.
type Pool struct {
	work  []plog.Logs
	orig  []plog.Logs
	dirty [][]recordRef // per batch
}

type recordRef struct{ rl, sl, lr int }

// NewPool makes working copies of batches (the originals are kept pristine).
func NewPool(batches []plog.Logs) *Pool {
	p := &Pool{orig: batches, work: make([]plog.Logs, len(batches)), dirty: make([][]recordRef, len(batches))}
	for i, b := range batches {
		p.work[i] = plog.NewLogs()
		b.CopyTo(p.work[i])
	}
	return p
}

// Len is the number of batches.
func (p *Pool) Len() int { return len(p.work) }

// At returns working batch i.
func (p *Pool) At(i int) plog.Logs { return p.work[i] }

// Track runs process on a scratch copy of every batch and records which
// records it modified, so that Restore can undo exactly those. It returns the
// number of modified records over the whole pool.
func (p *Pool) Track(process func(plog.Logs)) int {
	n := 0
	for i, b := range p.orig {
		scratch := plog.NewLogs()
		b.CopyTo(scratch)
		process(scratch)
		p.dirty[i] = diff(b, scratch, p.dirty[i][:0])
		n += len(p.dirty[i])
	}
	return n
}

// Restore copies the tracked records of every working batch back from the
// originals. Call it with the benchmark timer stopped.
func (p *Pool) Restore() {
	for i, refs := range p.dirty {
		// The records a component added (the xla_oom processor's failure
		// records, in resources of their own after the batch's) go.
		if n := p.orig[i].ResourceLogs().Len(); p.work[i].ResourceLogs().Len() > n {
			k := 0
			p.work[i].ResourceLogs().RemoveIf(func(plog.ResourceLogs) bool { k++; return k > n })
		}
		for _, r := range refs {
			record(p.orig[i], r).CopyTo(record(p.work[i], r))
		}
	}
}

func record(ld plog.Logs, r recordRef) plog.LogRecord {
	return ld.ResourceLogs().At(r.rl).ScopeLogs().At(r.sl).LogRecords().At(r.lr)
}

// diff lists the records of b that differ from a. The batches must have the
// same shape (processors that drop or add records are not supported).
func diff(a, b plog.Logs, out []recordRef) []recordRef {
	for i := 0; i < a.ResourceLogs().Len(); i++ {
		sa, sb := a.ResourceLogs().At(i).ScopeLogs(), b.ResourceLogs().At(i).ScopeLogs()
		for j := 0; j < sa.Len(); j++ {
			la, lb := sa.At(j).LogRecords(), sb.At(j).LogRecords()
			for k := 0; k < la.Len(); k++ {
				if !sameRecord(la.At(k), lb.At(k)) {
					out = append(out, recordRef{i, j, k})
				}
			}
		}
	}
	return out
}

// sameRecord compares the parts of a record a logs processor may modify.
func sameRecord(a, b plog.LogRecord) bool {
	return a.SeverityNumber() == b.SeverityNumber() && a.SeverityText() == b.SeverityText() &&
		a.EventName() == b.EventName() && a.Flags() == b.Flags() &&
		a.Body().Equal(b.Body()) && a.Attributes().Equal(b.Attributes())
}

// Equal reports whether two batches hold the same records (used to check that
// Restore returns a processed batch to its original state).
func Equal(a, b plog.Logs) bool {
	if a.ResourceLogs().Len() != b.ResourceLogs().Len() {
		return false
	}
	for i := 0; i < a.ResourceLogs().Len(); i++ {
		ra, rb := a.ResourceLogs().At(i), b.ResourceLogs().At(i)
		if !ra.Resource().Attributes().Equal(rb.Resource().Attributes()) || ra.ScopeLogs().Len() != rb.ScopeLogs().Len() {
			return false
		}
		for j := 0; j < ra.ScopeLogs().Len(); j++ {
			la, lb := ra.ScopeLogs().At(j).LogRecords(), rb.ScopeLogs().At(j).LogRecords()
			if la.Len() != lb.Len() {
				return false
			}
			for k := 0; k < la.Len(); k++ {
				if !sameRecord(la.At(k), lb.At(k)) || la.At(k).Timestamp() != lb.At(k).Timestamp() {
					return false
				}
			}
		}
	}
	return true
}

// Bench runs process over the batches of a Pool, one fresh batch per
// iteration, restoring the pool with the timer stopped after every round (see
// Pool). It reports allocations and ns/record besides ns/op (= per batch).
// Every benchmark of a comparison uses it, so that all of them see the same
// batches in the same order with the same memory layout.
func Bench(b *testing.B, batches []plog.Logs, process func(plog.Logs)) {
	pool := NewPool(batches)
	pool.Track(process)
	records := 0
	for _, ld := range batches {
		records += ld.LogRecordCount()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % pool.Len()
		if k == 0 && i > 0 {
			b.StopTimer()
			pool.Restore()
			b.StartTimer()
		}
		process(pool.At(k))
	}
	b.StopTimer()
	perBatch := float64(records) / float64(len(batches))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/perBatch, "ns/record")
	pool.Restore()
}

// Paired measures contender against base in alternating rounds and reports
// the median of the per-round time ratios as "x-base" (plus both medians as
// "base-ns/record" and "ns/record"). One round processes every batch of the
// pool once with each, in alternating order, each with its own pool; the
// timer is stopped while the pools are restored.
//
// On a shared machine the load changes from second to second, so two
// benchmarks run one after the other can see different machines. A round
// lasts milliseconds: both sides of one ratio see the same load, and the
// median over rounds discards the rounds a burst hit. Use it with a fixed
// round count, e.g. -benchtime 200x.
func Paired(b *testing.B, batches []plog.Logs, base, contender func(plog.Logs)) {
	pa, pb := NewPool(batches), NewPool(batches)
	pa.Track(base)
	pb.Track(contender)
	records := 0
	for _, ld := range batches {
		records += ld.LogRecordCount()
	}
	pass := func(p *Pool, f func(plog.Logs)) time.Duration {
		t := time.Now()
		for k := 0; k < p.Len(); k++ {
			f(p.At(k))
		}
		return time.Since(t)
	}
	ratios := make([]float64, 0, b.N)
	ta := make([]float64, 0, b.N)
	tc := make([]float64, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var da, dc time.Duration
		if i%2 == 0 {
			da = pass(pa, base)
			dc = pass(pb, contender)
		} else {
			dc = pass(pb, contender)
			da = pass(pa, base)
		}
		b.StopTimer()
		pa.Restore()
		pb.Restore()
		b.StartTimer()
		ratios = append(ratios, dc.Seconds()/da.Seconds())
		ta = append(ta, float64(da.Nanoseconds())/float64(records))
		tc = append(tc, float64(dc.Nanoseconds())/float64(records))
	}
	b.StopTimer()
	b.ReportMetric(median(ratios), "x-base")
	b.ReportMetric(median(ta), "base-ns/record")
	b.ReportMetric(median(tc), "ns/record")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
