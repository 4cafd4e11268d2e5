// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/diagnosis"
)

// The 2026 TPU compile-time wording, "Ran out of memory on HBM, the total
// memory required for HLO temporaries (…) exceeds available HBM (…)": jax's
// tests (jax-ml/jax tests/memories_test.py, test_oom) pin only its frame, so
// every size spelling XLA prints elsewhere is tried inside it, and a content
// that is not one size is read as absent.

const hloTemporariesFrame = "Ran out of memory on HBM, the total memory required for HLO temporaries (%R) exceeds available HBM (%A)"

func hloTemporaries(required, available string) string {
	return strings.NewReplacer("%R", required, "%A", available).Replace(hloTemporariesFrame)
}

type hloTemporariesCase struct {
	name, text          string
	requested, capacity int64 // -1: absent
	exceptionType       string
}

var hloTemporariesCases = []hloTemporariesCase{
	// Every unit XLA prints (grammar/sizes.go), base 1024.
	{name: "G3 T of G", text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: " + hloTemporaries("4.00T", "15.75G"),
		requested: 4398046511104, capacity: 16911433728, exceptionType: "jax.errors.JaxRuntimeError"},
	{name: "G3 M of M", text: "RESOURCE_EXHAUSTED: " + hloTemporaries("147.64M", "95.74M"),
		requested: 154811761, capacity: 100390666},
	{name: "TSL GiB", text: "XlaRuntimeError: RESOURCE_EXHAUSTED: " + hloTemporaries("20.00GiB", "15.75GiB"),
		requested: 21474836480, capacity: 16911433728, exceptionType: "XlaRuntimeError"},
	{name: "TSL MiB and KiB", text: "jaxlib._jax.XlaRuntimeError: RESOURCE_EXHAUSTED: " + hloTemporaries("6.00MiB", "384.0KiB"),
		requested: 6291456, capacity: 393216, exceptionType: "jaxlib._jax.XlaRuntimeError"},
	{name: "exact bytes", text: "jax.errors.JaxRuntimeError: " + hloTemporaries("4398046511104", "16911433728"),
		requested: 4398046511104, capacity: 16911433728, exceptionType: "jax.errors.JaxRuntimeError"},
	{name: "bytes with separators and word", text: "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: " + hloTemporaries("21,474,836,480 bytes", "16,911,433,728 bytes"),
		requested: 21474836480, capacity: 16911433728, exceptionType: "jaxlib.xla_extension.XlaRuntimeError"},
	{name: "catalog code, factory newline", text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom:\n" + hloTemporaries("32.08G", "31.25G") + "\nSee https://openxla.org/xla/errors/error_1000 for more details.",
		requested: 34445637714, capacity: 33554432000, exceptionType: "jax.errors.JaxRuntimeError"},
	{name: "glog header", text: "E0101 12:00:00.000000    4242 pjrt_stream_executor_client.cc:3077] Execution failed: RESOURCE_EXHAUSTED: " + hloTemporaries("20.00G", "15.75G"),
		requested: 21474836480, capacity: 16911433728},

	// The frame alone is known: a content that is not one size is absent.
	{name: "not a size", text: "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: " + hloTemporaries("unknown", "15.75G"),
		requested: -1, capacity: 16911433728, exceptionType: "jax.errors.JaxRuntimeError"},
	{name: "empty", text: "RESOURCE_EXHAUSTED: " + hloTemporaries("", ""), requested: -1, capacity: -1},
	{name: "nested parentheses", text: "RESOURCE_EXHAUSTED: " + hloTemporaries("4.00T (4398046511104 bytes)", "15.75G"),
		requested: -1, capacity: 16911433728},
	{name: "two sizes", text: "RESOURCE_EXHAUSTED: " + hloTemporaries("20.00G, 3.00G", "15.75G"), requested: -1, capacity: 16911433728},
	{name: "cut inside available", text: "RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for HLO temporaries (20.00G) exceeds available HBM (15.7",
		requested: 21474836480, capacity: -1},
	{name: "cut after required", text: "RESOURCE_EXHAUSTED: Ran out of memory on HBM, the total memory required for HLO temporaries (20.00G)",
		requested: 21474836480, capacity: -1},
}

func TestHloTemporaries(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "messages", "tpu-compile-hlo-temporaries_jax_traceback.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cases := slices.Concat(hloTemporariesCases, []hloTemporariesCase{{name: "traceback of compile()", text: string(data), requested: 4398046511104, capacity: 16911433728, exceptionType: "jax.errors.JaxRuntimeError"}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !MayContain(c.text) {
				t.Fatalf("MayContain = false")
			}
			r, ok := Recognize(c.text)
			if !ok {
				t.Fatalf("not recognised")
			}
			w := want{code: "E1000", family: "tpu-compile-hlo-temporaries", backend: "tpu", space: "hbm"}
			if c.requested >= 0 {
				w.requested = b(c.requested)
			}
			if c.capacity >= 0 {
				w.capacity, w.free = b(c.capacity), b(c.capacity)
			}
			if c.requested >= 0 && c.capacity >= 0 {
				w.cause = "exhaustion"
			}
			checkReport(t, r, w)
			if r.Retry != diagnosis.RetryFutile || diagnosis.Judge(&r, diagnosis.Facts{}).Rule != "compile time" {
				t.Errorf("retry %q (rule %q), want futile by the compile-time rule", r.Retry, diagnosis.Judge(&r, diagnosis.Facts{}).Rule)
			}
			if r.ExceptionType != c.exceptionType {
				t.Errorf("ExceptionType = %q, want %q", r.ExceptionType, c.exceptionType)
			}
		})
	}
}
