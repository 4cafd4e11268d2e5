// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

// entry is one OpenXLA error code that this package reports.
type entry struct {
	Code, Name, Category string
	Phase                string // "" when the code does not fix the phase (E0007)
	DocURL               string // "" when the code has no page
}

const docBase = "https://openxla.org/xla/errors/error_"

// Catalog holds the codes from xla/error/error_codes.h that describe
// running out of memory, with the categories of the docs/errors pages.
// E0007, XLA's generic ResourceExhausted, has no page.
var Catalog = []entry{
	{"E0007", "ResourceExhausted", "Resource Exhausted: Out of Memory", "", ""},
	{"E0100", "RuntimeBufferAllocationFailure", "Runtime: Buffer Allocation Failure", PhaseRuntime, docBase + "0100"},
	{"E0101", "RuntimeProgramAllocationFailure", "Runtime: Program Allocation Failure", PhaseRuntime, docBase + "0101"},
	{"E1000", "CompileTimeHbmOom", "Compile Time: HBM OOM", PhaseCompile, docBase + "1000"},
	{"E1001", "CompileTimeScopedVmemOom", "Compile Time: Scoped Vmem OOM", PhaseCompile, docBase + "1001"},
	{"E3000", "CompileTimeSparseCoreAllocationFailure", "Compile Time: SparseCore Allocation Failure", PhaseCompile, docBase + "3000"},
}

// Codes, named for the grammar.
const (
	CodeGeneric    = "E0007"
	CodeBuffer     = "E0100"
	CodeProgram    = "E0101"
	CodeHbm        = "E1000"
	CodeVmem       = "E1001"
	CodeSparseCore = "E3000"
)

// LookupCode returns the catalog entry for code. E1002, the draft code of the
// TensorCore+SparseCore HBM message, was folded into E1000.
func LookupCode(code string) (entry, bool) {
	if code == "E1002" {
		code = CodeHbm
	}
	for _, e := range Catalog {
		if e.Code == code {
			return e, true
		}
	}
	return entry{}, false
}

// LookupName returns the catalog entry for a code name such as CompileTimeHbmOom.
func LookupName(name string) (entry, bool) {
	for _, e := range Catalog {
		if e.Name == name {
			return e, true
		}
	}
	return entry{}, false
}
