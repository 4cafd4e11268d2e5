// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command genlogs writes the benchmark workload (internal/workload) as a log
// file, one physical line per record, for the end-to-end run (e2e/run.sh).
//
// A multi-line OOM record is written as its lines, without the blank ones,
// the way a file_log receiver with no multiline setting turns it into
// records. The number of lines written (= records expected at the end of the
// pipeline) is printed on standard output.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
)

func main() {
	n := flag.Int("n", 1000000, "number of generated records (multi-line OOM records add their extra lines)")
	fraction := flag.Float64("fraction", workload.DefaultOOMFraction, "fraction of OOM records")
	seed := flag.Uint64("seed", workload.DefaultSeed, "PCG seed")
	out := flag.String("o", "", "output file (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "genlogs: -o is required")
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlogs:", err)
		os.Exit(1)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	cfg := workload.DefaultConfig()
	cfg.Seed, cfg.OOMFraction = *seed, *fraction
	g := workload.New(cfg)
	lines := 0
	for i := 0; i < *n; i++ {
		for _, l := range strings.Split(g.Line().Text, "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			// bufio.Writer keeps the first error; Flush below reports it.
			_, _ = w.WriteString(l)
			_ = w.WriteByte('\n')
			lines++
		}
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "genlogs:", err)
		os.Exit(1)
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "genlogs:", err)
		os.Exit(1)
	}
	fmt.Println(lines)
}
