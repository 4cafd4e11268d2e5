// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package speaker

import (
	"os"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/logtext"
)

// statementsOf flattens text as the recogniser does and records who printed
// each statement.
func statementsOf(text string) (string, *Attribution) {
	var st Attribution
	marks := st.Marks()
	return logtext.WrapVocabulary(nil).FlattenLevels(text, nil, nil, &marks), &st
}

// foreignBlock is the text of the block of oom/testdata/foreign's messages
// whose "### " line starts with title.
func foreignBlock(t *testing.T, title string) string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/foreign/oom_messages.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "\n### ")[1:] {
		if strings.HasPrefix(block, title) {
			_, text, _ := strings.Cut(block, "\n")
			return strings.TrimSuffix(text, "\n")
		}
	}
	t.Fatalf("no block %q", title)
	return ""
}

// Real lines of the GPU captures (oom/testdata/jobs) and the foreign messages.
const (
	numbaLine = "ERROR:numba.cuda.cudadrv.driver:Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY"
	refusal   = "E1126 11:17:52.375118    2444 cuda_executor.cc:1365] [0] Failed to allocate device memory of 11.18GiB (12000000000 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
	jaxStatus = "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 11.18GiB with allocator SE_0_space_0 on device 0."
	cupyLine  = "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 200,000,000,000 bytes (allocated so far: 0 bytes)."
)

// TestStatementsOfRecords: where in a record another program speaks, where
// XLA raised a status and the record's exception type.
func TestStatementsOfRecords(t *testing.T) {
	paddle := foreignBlock(t, "paddle/phi/core/memory/allocation/cuda_allocator.cc (PaddlePaddle): the error summary alone")
	cases := []struct {
		name, text    string
		foreign       []string // statements another program printed, by their first words
		mine          []string // statements it did not
		raised        string   // a statement XLA raised, "" for none
		exceptionType string
	}{
		{"Numba's logger, XLA's refusal and status", numbaLine + "\n" + refusal + "\n" + jaxStatus,
			[]string{"Call to cuMemAlloc"}, []string{"[0] Failed to allocate", "jax.errors"}, "jax.errors", "jax.errors.JaxRuntimeError"},
		{"CuPy's exception, then XLA's", cupyLine + "\n" + jaxStatus,
			[]string{"cupy.cuda"}, []string{"jax.errors"}, "jax.errors", "jax.errors.JaxRuntimeError"},
		{"XLA's status alone", jaxStatus, nil, []string{"jax.errors"}, "jax.errors", "jax.errors.JaxRuntimeError"},
		{"PaddlePaddle's summary: its source path, lines on, names it", paddle,
			[]string{"ResourceExhaustedError", "Out of memory error on GPU 0"}, nil, "", ""},
		{"XLA's refusal alone: a log line, not raised", refusal, nil, []string{"[0] Failed"}, "", ""},
	}
	for _, c := range cases {
		flat, st := statementsOf(c.text)
		at := func(words string) int {
			i := strings.Index(flat, words)
			if i < 0 {
				t.Fatalf("%s: %q not in %q", c.name, words, flat)
			}
			return i
		}
		for _, w := range c.foreign {
			if !st.Foreign(at(w)) || st.Raised(at(w)) {
				t.Errorf("%s: %q is not another program's", c.name, w)
			}
		}
		for _, w := range c.mine {
			if st.Foreign(at(w)) {
				t.Errorf("%s: %q taken for another program's", c.name, w)
			}
		}
		if c.raised != "" && !st.Raised(at(c.raised)) {
			t.Errorf("%s: %q not raised", c.name, c.raised)
		}
		if got := st.ExceptionType(-1); got != c.exceptionType {
			t.Errorf("%s: exception type %q, want %q", c.name, got, c.exceptionType)
		}
	}
}

// TestStatementsMerge: one program's lines one after the other are one
// statement; its exception type is never the record's.
func TestStatementsMerge(t *testing.T) {
	_, st := statementsOf(numbaLine + "\n" + numbaLine + "\n" + numbaLine)
	if st.N != 1 {
		t.Errorf("three Numba lines: %d statements", st.N)
	}
	flat, st := statementsOf(cupyLine + "\n" + jaxStatus)
	if got := st.ExceptionType(0); got != "jax.errors.JaxRuntimeError" {
		t.Errorf("at CuPy's exception: %q", got)
	}
	if got := st.ExceptionType(strings.Index(flat, "jax.errors")); got != "jax.errors.JaxRuntimeError" {
		t.Errorf("at XLA's: %q", got)
	}
	var none *Attribution
	if none.Foreign(0) || none.Raised(0) || none.ExceptionType(0) != "" {
		t.Error("no statements recorded, yet a speaker")
	}
}

func TestFormOwnerNames(t *testing.T) {
	s := Of("", cupyLine)
	if s.Form.String() != "exception" || s.Owner.String() != "foreign" || Bare.String() != "bare" || XLA.String() != "xla" || Unknown.String() != "unknown" {
		t.Errorf("names %s %s", s.Form, s.Owner)
	}
	if Form(9).String() != "bare" || Owner(9).String() != "unknown" {
		t.Error("an unknown value's name")
	}
	if !Of("", "ResourceExhaustedError: ").Undecided() || Of("", cupyLine).Undecided() {
		t.Error("Undecided")
	}
}
