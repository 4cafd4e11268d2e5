// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command ratios reads `go test -bench` output (the root module's
// benchmark_test.go and this module's BenchmarkCompare), takes the median of
// every metric over the runs (-count N), and prints the figures each target of
// the issue is checked against, with a verdict.
//
//	go run ./cmd/ratios root.txt compare.txt
//
// With no file it reads standard input.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// samples[benchmark][unit] = values over the runs.
type samples map[string]map[string][]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

func parse(r io.Reader, s samples) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := procSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), "")
		if s[name] == nil {
			s[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			s[name][f[i+1]] = append(s[name][f[i+1]], v)
		}
	}
	return sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	c := slices.Clone(v)
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

// get returns the median of a metric, and whether it was measured.
func (s samples) get(name, unit string) (float64, bool) {
	v, ok := s[name][unit]
	if !ok || len(v) == 0 {
		return 0, false
	}
	return median(v), true
}

// matching returns the benchmarks whose name starts with prefix, sorted.
func (s samples) matching(prefix string) []string {
	var out []string
	for n := range s {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

type verdict struct {
	target, measured, result string
}

func main() {
	s := samples{}
	if len(os.Args) == 1 {
		if err := parse(os.Stdin, s); err != nil {
			fail(err)
		}
	}
	for _, name := range os.Args[1:] {
		f, err := os.Open(name)
		if err != nil {
			fail(err)
		}
		err = parse(f, s)
		_ = f.Close() // read-only
		if err != nil {
			fail(err)
		}
	}
	if len(s) == 0 {
		fail(fmt.Errorf("no benchmark result in the input"))
	}

	fmt.Println("Medians")
	fmt.Printf("%-62s %5s %12s %11s %10s %10s %8s\n", "benchmark", "runs", "ns/op", "ns/record", "B/op", "allocs/op", "x-base")
	var names []string
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		runs := 0
		for _, v := range s[n] {
			runs = max(runs, len(v))
		}
		col := func(unit, format string) string {
			if v, ok := s.get(n, unit); ok {
				return fmt.Sprintf(format, v)
			}
			return "-"
		}
		fmt.Printf("%-62s %5d %12s %11s %10s %10s %8s\n", n, runs, col("ns/op", "%.0f"), col("ns/record", "%.1f"),
			col("B/op", "%.0f"), col("allocs/op", "%.0f"), col("x-base", "%.2f"))
	}

	var vs []verdict
	add := func(target, measured string, ok, measuredOK bool) {
		r := "MET"
		switch {
		case !measuredOK:
			r, measured = "not measured", "-"
		case !ok:
			r = "MISSED"
		}
		vs = append(vs, verdict{target, measured, r})
	}
	info := func(what, measured string, ok bool) {
		if !ok {
			measured = "-"
		}
		vs = append(vs, verdict{what, measured, "info"})
	}
	ratio := func(num, den, unit string) (float64, bool) {
		a, ok1 := s.get(num, unit)
		b, ok2 := s.get(den, unit)
		if !ok1 || !ok2 || b == 0 {
			return 0, false
		}
		return a / b, true
	}

	paired := func(name string) (float64, bool) { return s.get("Paired/"+name, "x-base") }

	// 1. Ordinary records: <= 1.5x the bare minimum, 0 allocations. The
	// paired figure is the verdict; the separate runs are shown beside it.
	for _, w := range []string{"ordinary", "mixed"} {
		r, ok := paired(w + "/xla_oom_vs_baseline")
		add("ordinary: paired "+w+"/xla_oom_vs_baseline <= 1.5x", fmt.Sprintf("%.2fx", r), r <= 1.5, ok)
	}
	for _, p := range [][2]string{
		{"Compare/ordinary/xla_oom", "Compare/ordinary/baseline"},
		{"ProcessorOrdinaryOnly", "BaselineContainsOrdinaryOnly"},
		{"Compare/mixed/xla_oom", "Compare/mixed/baseline"},
	} {
		r, ok := ratio(p[0], p[1], "ns/op")
		add("ordinary: "+p[0]+" / "+p[1]+" <= 1.5x", fmt.Sprintf("%.2fx", r), r <= 1.5, ok)
	}
	a100, ok1 := s.get("ProcessorBatchSize/ordinary/100", "allocs/op")
	a10k, ok2 := s.get("ProcessorBatchSize/ordinary/10000", "allocs/op")
	per := (a10k - a100) / 9900
	add("ordinary: allocations per record (ProcessorBatchSize 10000 vs 100) = 0",
		fmt.Sprintf("%.4f/record (%.0f allocs per batch of 100, %.0f per 10000)", per, a100, a10k), per < 0.0005, ok1 && ok2)

	// 2. OOM record: <= 5 us and 30 allocations one-line; multi-line <= 5x.
	worst := func(prefix, unit string) (float64, string, bool) {
		best, at := 0.0, ""
		for _, n := range s.matching(prefix) {
			if v, ok := s.get(n, unit); ok && v >= best {
				best, at = v, n
			}
		}
		return best, at, at != ""
	}
	for _, prefix := range []string{"RecognizeWorkload/one-line/", "ProcessorOOMRecord/one-line/"} {
		ns, at, ok := worst(prefix, "ns/op")
		add("OOM one-line: slowest "+prefix+"* <= 5000 ns", fmt.Sprintf("%.0f ns (%s)", ns, at), ns <= 5000, ok)
		al, at, ok := worst(prefix, "allocs/op")
		add("OOM one-line: most allocs "+prefix+"* <= 30", fmt.Sprintf("%.0f (%s)", al, at), al <= 30, ok)
	}
	for _, pair := range [][2]string{{"RecognizeWorkload/multi-line/", "RecognizeWorkload/one-line/"}, {"ProcessorOOMRecord/multi-line/", "ProcessorOOMRecord/one-line/"}} {
		ns, at, ok := worst(pair[0], "ns/op")
		one, _, ok2 := worst(pair[1], "ns/op")
		add("OOM multi-line: slowest "+pair[0]+"* <= 5 x 5000 ns", fmt.Sprintf("%.0f ns (%s; %.1fx the slowest one-line)", ns, at, ns/one), ns <= 25000, ok && ok2)
	}

	// 3. >= 10x the throughput of the transform peer. peer_vs_baseline is the
	// ceiling: the ratio a processor costing as little as the bare minimum
	// would reach.
	for _, w := range []string{"mixed", "ordinary"} {
		r, ok := paired(w + "/peer_vs_xla_oom")
		add("throughput: paired "+w+"/peer_vs_xla_oom >= 10x", fmt.Sprintf("%.2fx", r), r >= 10, ok)
		c, ok := paired(w + "/peer_vs_baseline")
		info("  ceiling: paired "+w+"/peer_vs_baseline (what a processor as cheap as the bare minimum would reach)", fmt.Sprintf("%.2fx", c), ok)
	}
	for _, w := range []string{"mixed", "ordinary"} {
		r, ok := ratio("Compare/"+w+"/transform_peer", "Compare/"+w+"/xla_oom", "ns/op")
		add("throughput vs transform peer ("+w+") >= 10x", fmt.Sprintf("%.2fx", r), r >= 10, ok)
	}

	// 4. The connector adds <= 20% over the processor alone.
	for _, w := range []string{"mixed", "ordinary"} {
		r, ok := paired(w + "/connector_overhead")
		add("connector: paired "+w+"/connector_overhead <= 1.2x", fmt.Sprintf("%.2fx (+%.0f%%)", r, (r-1)*100), r <= 1.2, ok)
	}
	for _, w := range []string{"mixed", "ordinary"} {
		r, ok := ratio("Compare/"+w+"/xla_oom+connector", "Compare/"+w+"/xla_oom", "ns/op")
		add("connector overhead ("+w+"): xla_oom+connector / xla_oom <= 1.2", fmt.Sprintf("%.2fx (+%.0f%%)", r, (r-1)*100), r <= 1.2, ok)
	}

	// 5. Memory: at most one record's worth of scratch beyond the batch.
	mixedB, ok1 := s.get("Compare/mixed/xla_oom", "B/op")
	ordB, ok2 := s.get("Compare/ordinary/xla_oom", "B/op")
	oneRec, at, ok3 := worst("ProcessorOOMRecord/", "B/op")
	b100, ok4 := s.get("ProcessorBatchSize/ordinary/100", "B/op")
	b10k, ok5 := s.get("ProcessorBatchSize/ordinary/10000", "B/op")
	add("memory: B/op per 1,000-record batch with its one OOM record, minus the ordinary batch, <= the largest one-record figure",
		fmt.Sprintf("%.0f - %.0f = %.0f B <= %.0f B (%s)", mixedB, ordB, mixedB-ordB, oneRec, at), mixedB-ordB <= oneRec, ok1 && ok2 && ok3)
	add("memory: B/op of an ordinary batch independent of its size (100 vs 10000 records)",
		fmt.Sprintf("%.0f B vs %.0f B", b100, b10k), b10k <= b100*1.1+64, ok4 && ok5)

	fmt.Println()
	fmt.Println("Targets")
	for _, v := range vs {
		fmt.Printf("%-13s %-100s %s\n", v.result, v.target, v.measured)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ratios:", err)
	os.Exit(1)
}
