// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Attempts summarises one finding's allocation attempts (driver refusals an
// allocator retries): consecutive attempts whose sizes fall are one series,
// a pool back-off when they fall by about a tenth a step (oom.BackOff).
type Attempts struct {
	Count int // every refused request
	// Series in order, one repeated at once counted in its Repeat; past
	// maxSeries, counted in MoreSeries.
	Series     []AttemptSeries
	MoreSeries int
	// The first request and the last refused; CUDA's figures where printed.
	First, Last, Free, Capacity oom.Size
	Lines                       []int // the attempts' records' first lines (maxRecords)

	cur AttemptSeries // the series still growing; none when cur.Steps is 0
}

// AttemptSeries is one run of attempts whose sizes fall.
type AttemptSeries struct {
	Steps       int
	First, Last oom.Size // unknown when the attempts print no size
	Repeat      int      // times this very series ran in a row, 1 or more
}

// BackOff reports whether the series is an allocator's back-off.
func (s *AttemptSeries) BackOff() bool {
	return s.First.Known && s.Last.Known && oom.BackOff(s.First.Bytes, s.Last.Bytes, s.Steps)
}

// maxSeries bounds what one finding keeps of a long job's attempts.
const maxSeries = 8

// add counts n attempts of one record, from first bytes to last.
func (a *Attempts) add(n int, first, last, free, capacity oom.Size) {
	if n <= 0 {
		return
	}
	if !last.Known || n == 1 {
		last = first
	}
	if a.Count == 0 {
		a.First = first
	}
	a.Count += n
	a.Last = last
	if free.Known && capacity.Known {
		a.Free, a.Capacity = free, capacity
	}
	c := &a.cur
	switch {
	case c.Steps > 0 && first.Known && c.Last.Known && first.Bytes < c.Last.Bytes &&
		(c.Steps == 1 || !c.BackOff() || oom.BackOff(c.Last.Bytes, first.Bytes, 2)):
		c.Steps += n
		c.Last = last
		return
	case c.Steps > 0 && !first.Known && !c.Last.Known:
		c.Steps += n
		return
	}
	a.close()
	a.cur = AttemptSeries{Steps: n, First: first, Last: last, Repeat: 1}
}

// close ends the growing series, a repeat of the one before when the same.
func (a *Attempts) close() {
	c := a.cur
	if c.Steps == 0 {
		return
	}
	a.cur = AttemptSeries{}
	k := len(a.Series) - 1
	switch {
	case k >= 0 && a.MoreSeries == 0 && a.Series[k].Steps == c.Steps && a.Series[k].First == c.First && a.Series[k].Last == c.Last:
		a.Series[k].Repeat++
	case len(a.Series) < maxSeries:
		a.Series = append(a.Series, c)
	default:
		a.MoreSeries++
	}
}

// merge adds the attempts of b, which came later, to a.
func (a *Attempts) merge(b *Attempts) {
	if b.Count == 0 {
		return
	}
	b.close()
	kept := 0
	for _, s := range b.Series {
		for range s.Repeat {
			// The last series stays open: later attempts may continue it.
			a.add(s.Steps, s.First, s.Last, oom.Size{}, oom.Size{})
			kept += s.Steps
		}
	}
	if rest := b.Count - kept; rest > 0 { // in series b did not keep
		if a.Count == 0 {
			a.First = b.First
		}
		a.Count += rest
		a.MoreSeries += b.MoreSeries
	}
	a.Last = b.Last
	a.Lines = append(a.Lines, b.Lines[:min(len(b.Lines), max(0, maxRecords-len(a.Lines)))]...)
	if b.Free.Known {
		a.Free, a.Capacity = b.Free, b.Capacity
	}
}

// Text says what the attempts were, once the finding is complete: "11 pool
// back-off steps from 59.38 GiB to 20.71 GiB", or each series.
func (a *Attempts) Text() string {
	a.close()
	if a.Count == 0 {
		return ""
	}
	parts := make([]string, 0, len(a.Series)+1)
	for i := range a.Series {
		parts = append(parts, a.Series[i].text())
	}
	if a.MoreSeries > 0 {
		parts = append(parts, strconv.Itoa(a.MoreSeries)+" more series")
	}
	if len(parts) == 1 && a.Series[0].Repeat == 1 {
		return parts[0]
	}
	return strconv.Itoa(a.Count) + " refused allocations: " + strings.Join(parts, "; ")
}

func (s *AttemptSeries) text() string {
	var t string
	switch {
	case s.BackOff():
		t = strconv.Itoa(s.Steps) + " pool back-off steps from " + oom.HumanBytes(s.First.Bytes) + " to " + oom.HumanBytes(s.Last.Bytes)
	case s.Steps == 1 && s.First.Known:
		t = "1 refused allocation of " + oom.HumanBytes(s.First.Bytes)
	case s.First.Known && s.First != s.Last:
		t = strconv.Itoa(s.Steps) + " refused allocations from " + oom.HumanBytes(s.First.Bytes) + " to " + oom.HumanBytes(s.Last.Bytes)
	case s.First.Known:
		t = strconv.Itoa(s.Steps) + " refused allocations of " + oom.HumanBytes(s.First.Bytes)
	default:
		t = plural(int64(s.Steps), "refused allocation", "refused allocations") + " (size not printed)"
	}
	if s.Repeat > 1 {
		t += ", " + strconv.Itoa(s.Repeat) + " times"
	}
	return t
}
