// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Command genlog writes a large generated log to standard output: the
// benchmark traffic of internal/workload (ordinary training and serving lines,
// 0.1 % real XLA OOM messages) as one log file, for measuring `xlaoom explain`
// on a stream of any size without storing it:
//
//	go run ./scripts/genlog -size 4GiB | /usr/bin/time -v bin/xlaoom explain
//
// It generates 64 MiB once and writes it again and again, so that the pipe,
// not the generator, is what limits the reader.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/xlaoom/xlaoomprocessor/internal/workload"
)

func main() {
	size := flag.String("size", "4GiB", "bytes to write: a number with an optional KiB, MiB or GiB suffix")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlog:", err)
		os.Exit(2)
	}
	block := workload.New(workload.DefaultConfig()).Log(64 << 20)
	for n > 0 {
		chunk := block[:min(int64(len(block)), n)]
		if _, err := os.Stdout.Write(chunk); err != nil {
			fmt.Fprintln(os.Stderr, "genlog:", err)
			os.Exit(1)
		}
		n -= int64(len(chunk))
	}
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if strings.HasSuffix(s, suffix) {
			s, mult = strings.TrimSuffix(s, suffix), m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("-size: want a byte count such as 4GiB, got %q", s)
	}
	return n * mult, nil
}
