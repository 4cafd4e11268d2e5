// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package oom

// Real captures: every exception, traceback and stderr file of every case in
// testdata/real/manifest.json (jax 0.11.2 on one NVIDIA H100 80GB, see the
// README there), read verbatim and asserted attribute by attribute. Sizes are
// cross-checked against the bytes the capture script recorded in the manifest.
//
// Three facts about the printed sizes matter here:
//
//   - The exception prints only a TSL human size ("93.13GiB"). TSL's
//     HumanReadableNumBytes divides by 1024 with integer (truncating) division
//     until the value is below 1 MiB of the unit, then prints %.2f of the last
//     division: 180007500304 B is printed "167.64GiB" although it is 167.645 GiB.
//     The parsed value therefore lies within 0.005 GiB + 1 MiB of the true
//     request (not within 0.005 GiB: 167.64 GiB is 0.00505 GiB below
//     180007500304 B). realTSLHuman below reproduces TSL, and the test checks
//     that it prints exactly the token of every capture from the manifest's bytes.
//   - The stderr records carry the exact allocator figure. The BFC allocator
//     prints "(rounded to N)": N is the request rounded up to a multiple of 256
//     (BFC's minimum allocation size), so for a jit the figure is XLA's temp
//     buffer (memory_analysis temp_size_in_bytes, the script's temporaries plus
//     a little reduction scratch) rounded up to 256. The platform allocator
//     ("... of 93.13GiB (N bytes)") and cuMemAllocAsync ("allocate N bytes")
//     print the request itself.
//   - The VMM allocator's status prints exact bytes in the exception itself:
//     allocation_size is the request rounded up to the allocation
//     granularity, 2 MiB on this GPU. jaxlib's workspace status prints no
//     size at all; the BFC warning logged before it does.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const realDir = "testdata/real"

// ---- manifest

type realManifest map[string]map[string]any // case name -> case object

func loadRealManifest(t *testing.T) realManifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // exact int64 byte counts
	var m struct {
		Cases []map[string]any `json:"cases"`
	}
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out := realManifest{}
	for _, c := range m.Cases {
		name, _ := c["case"].(string)
		if name == "" {
			t.Fatalf("manifest case without a name: %v", c)
		}
		out[name] = c
	}
	return out
}

// get returns the value at a dotted path ("result.requested.bytes") of a case.
func (m realManifest) get(t *testing.T, name, path string) any {
	t.Helper()
	var v any = m[name]
	if m[name] == nil {
		t.Fatalf("manifest has no case %q", name)
	}
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("manifest %s: %s: %q is not an object", name, path, k)
		}
		if v, ok = obj[k]; !ok {
			t.Fatalf("manifest %s: no %s", name, path)
		}
	}
	return v
}

func (m realManifest) int(t *testing.T, name, path string) int64 {
	t.Helper()
	n, ok := m.get(t, name, path).(json.Number)
	if !ok {
		t.Fatalf("manifest %s: %s is not a number", name, path)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("manifest %s: %s: %v", name, path, err)
	}
	return i
}

// ---- TSL sizes

// realTSLHuman is tsl::strings::HumanReadableNumBytes (xla/tsl/platform/numbers.cc):
// truncating division by 1024 while the value is at least 1 MiB of the unit,
// then %.2f (%.1f for KiB) of one more division.
func realTSLHuman(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + "B"
	}
	units := "KMGTPE"
	u := 0
	for n >= 1024*1024 {
		n /= 1024
		u++
	}
	prec := 2
	if units[u] == 'K' {
		prec = 1
	}
	return strconv.FormatFloat(float64(n)/1024, 'f', prec, 64) + string(units[u]) + "iB"
}

// realTSLValue is what a TSL token means in bytes, as the recogniser reads it:
// the printed number times the unit, rounded to a byte.
func realTSLValue(t *testing.T, tok string) int64 {
	t.Helper()
	i := strings.IndexAny(tok, "KMGTPE")
	if i < 0 || !strings.HasSuffix(tok, "iB") {
		t.Fatalf("not a TSL size: %q", tok)
	}
	x, err := strconv.ParseFloat(tok[:i], 64)
	if err != nil {
		t.Fatal(err)
	}
	return int64(math.Round(x * math.Pow(1024, float64(strings.IndexByte("KMGTPE", tok[i])+1))))
}

// realTSLBound is how far a TSL token can be from the bytes it was printed for:
// half a unit in the last printed digit (%.2f rounds) plus one unit of the
// previous division (the integer divisions truncate).
func realTSLBound(t *testing.T, tok string) int64 {
	t.Helper()
	i := strings.IndexAny(tok, "KMGTPE")
	if i < 0 {
		t.Fatalf("not a TSL size: %q", tok)
	}
	unit := math.Pow(1024, float64(strings.IndexByte("KMGTPE", tok[i])+1))
	half := 0.005
	if tok[i] == 'K' {
		half = 0.05
	}
	return int64(math.Ceil(half*unit + unit/1024))
}

func realRoundUp256(n int64) int64 { return (n + 255) / 256 * 256 }

// realRelated asserts how an allocator's exact figure relates to the
// allocation the manifest records (see realOOM.relation).
func realRelated(t *testing.T, relation string, alloc, figure int64) {
	t.Helper()
	switch relation {
	case "bfc":
		if realRoundUp256(alloc) != figure {
			t.Errorf("BFC rounded figure %d != realRoundUp256(%d) = %d", figure, alloc, realRoundUp256(alloc))
		}
	case "exact":
		if alloc != figure {
			t.Errorf("allocator figure %d != manifest allocation %d", figure, alloc)
		}
	case "vmm":
		const granularity = 2 << 20
		if up := (alloc + granularity - 1) / granularity * granularity; figure != up {
			t.Errorf("VMM allocation_size %d != %d rounded up to 2 MiB (%d)", figure, alloc, up)
		}
	}
}

func realAbsDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}

func TestRealTSLHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{
		100000000000: "93.13GiB", 180007500304: "167.64GiB", 180007500544: "167.64GiB",
		75003125520: "69.85GiB", 6000500496: "5.59GiB", 1610612736: "1.50GiB", 6442450944: "6.00GiB",
		33554432: "32.00MiB", 85018542080: "79.18GiB", 84592820224: "78.78GiB", 63763906560: "59.38GiB",
	} {
		if got := realTSLHuman(n); got != want {
			t.Errorf("realTSLHuman(%d) = %q, want %q", n, got, want)
		}
	}
	// 180007500304 B is 167.645 GiB: only the truncating model prints 167.64,
	// which is 0.00505 GiB (> 0.005 GiB) below the bytes.
	if d := realAbsDiff(realTSLValue(t, "167.64GiB"), 180007500304); d <= 5368709 || d > realTSLBound(t, "167.64GiB") {
		t.Errorf("167.64GiB vs 180007500304: diff %d, bound %d", d, realTSLBound(t, "167.64GiB"))
	}
}

// ---- expectations

// realWant is every attribute asserted on one capture. Sizes not listed here
// (Exceeded, Reserved, Reservable, Words) must be unknown; replica and
// partition must be absent: no capture prints them.
type realWant struct {
	code, family, phase, backend, space, device, program, cause string
	instruction                                                 string // the kernel a jaxlib status names
	requested, free, used, capacity, poolLimit                  Size
	holder                                                      *realHolder // nil: not asserted (see realOOM.holder)
	advice                                                      []string
	absent                                                      []string // advice that must not be given
}

// realHolder is the executable whose chunks hold the most of the BFC pool in
// the allocator's dump (Report.MemoryHolder), and those bytes; zero: none.
type realHolder struct {
	name string
	size int64
}

// E0007 is the only code the GPU captures carry; written out independently of
// catalog.go.
var realCatalog = map[string]struct{ name, category, doc string }{
	"E0007": {"ResourceExhausted", "Resource Exhausted: Out of Memory", ""},
}

func checkRealReport(t *testing.T, r Report, w realWant) {
	t.Helper()
	cw, ok := realCatalog[w.code]
	if !ok {
		t.Fatalf("bad expectation: code %q", w.code)
	}
	for _, f := range []struct{ field, got, want string }{
		{"Code", r.Code, w.code}, {"Name", r.Name, cw.name}, {"Category", r.Category, cw.category},
		{"DocURL", r.DocURL, cw.doc}, {"Family", r.Family, w.family}, {"Phase", r.Phase, w.phase},
		{"Backend", r.Backend, w.backend}, {"MemorySpace", r.MemorySpace, w.space},
		{"Device", r.Device, w.device}, {"Program", r.Program, w.program}, {"Cause", r.Cause, w.cause},
		{"Instruction", r.Instruction, w.instruction},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, want %q", f.field, f.got, f.want)
		}
	}
	for _, s := range []struct {
		name      string
		got, want Size
	}{
		{"Requested", r.Requested, w.requested}, {"Free", r.Free, w.free}, {"Capacity", r.Capacity, w.capacity},
		{"PoolLimit", r.PoolLimit, w.poolLimit},
		{"Used", r.Used, w.used}, {"Exceeded", r.Exceeded, Size{}}, {"Reserved", r.Reserved, Size{}},
		{"Reservable", r.Reservable, Size{}},
	} {
		if s.got != s.want {
			t.Errorf("%s = %+v, want %+v", s.name, s.got, s.want)
		}
	}
	if w.holder != nil {
		want := Size{}
		if w.holder.name != "" {
			want = KnownSize(w.holder.size)
		}
		if r.MemoryHolder != w.holder.name || r.MemoryHolderSize != want {
			t.Errorf("MemoryHolder = %q %+v, want %q %+v", r.MemoryHolder, r.MemoryHolderSize, w.holder.name, want)
		}
	}
	if r.HasReplica || r.HasPartition {
		t.Errorf("replica/partition = %v/%v, want none (no capture prints \"Execution of replica\")", r.HasReplica, r.HasPartition)
	}
	if r.Words != (SparseCoreWords{}) {
		t.Errorf("Words = %+v, want none", r.Words)
	}
	if len(r.Remediation) == 0 {
		t.Fatal("no remediation")
	}
	for i, step := range r.Remediation {
		if strings.TrimSpace(step) == "" {
			t.Errorf("remediation step %d is empty", i)
		}
	}
	checkAdvice(t, r.Remediation, w.advice, w.absent)
}

// realOOM is one capture case that raised an OOM exception. Each has three
// files: NAME.exception.txt (str(e)), NAME.traceback.txt (format_exc) and
// NAME.stderr.txt (C++ log lines, then Python's uncaught-exception print).
type realOOM struct {
	name string
	// script is the manifest path (in this case) of the bytes the script
	// asked for; allocCase/allocPath locate the buffer XLA asked the allocator
	// for (memory_analysis for a jit; "" when it is the script's figure).
	script, allocCase, allocPath string
	token                        string // the size the exception prints: TSL human size, exact bytes (see exact) or ""
	allocator                    string // the allocator the exception names
	program                      string // [executable_name='...'], "" when absent
	execFirst                    bool   // [executable_name] payload before [tf-allocator-allocation-error]
	phase                        string
	excFamily                    string // family of the exception and traceback
	// For statuses other than the allocator adapter's device one, "Out of
	// memory while trying to allocate <token> with allocator <allocator> on
	// device 0." (zero in the rows of that form):
	message          string   // the status message the exception prints instead
	exact            bool     // token is exact bytes ("100000595968B"), not a TSL size; "" token: no size
	noPayload        bool     // no [tf-allocator-allocation-error=''] payload (not the adapter's status)
	noDevice         bool     // the exception names no device
	space            string   // memory space ("host": pinned host memory)
	instruction      string   // the kernel a jaxlib status names
	excUsed, excPool Size     // read from the exception itself (VMM's pa_allocated and pa_budget)
	absent           []string // advice no record may get
	// The stderr record: the exact figure the allocator log line printed, how
	// it is printed (a Sprintf format), and how it relates to the allocation:
	// "bfc" rounded up to 256, "exact" the request itself, "vmm" rounded up
	// to the VMM allocator's granularity (2 MiB on this GPU).
	stderrReq      int64
	stderrLit      string
	relation       string
	stderrFamily   string      // "" is gpu-allocator-status (Python's print of the exception)
	stderrNoDevice bool        // nothing in the stderr record names a device either
	holder         *realHolder // stderr only; nil: not asserted here (TestAllocatorDump asserts older captures')
	free, capacity Size        // stderr only: cuMemAllocAsync's "Free memory/Total memory"
	pool           Size        // stderr only: the allocator's pool limit (BFC summary, cudaMallocAsync stats)
	used           Size        // stderr only: the allocator's stats "InUse" (BFC, cudaMallocAsync)
	cause          string      // stderr only
	advice         []string
	stderrAdvice   []string
	stderrAbsent   []string // advice the stderr record must not get
}

const (
	realBFCLit      = "(rounded to %d)"
	realPlatformLit = "(%d bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
	realAsyncLit    = "cuMemAllocAsync failed to allocate %d bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY"
	realAdvFrac     = "XLA_PYTHON_CLIENT_MEM_FRACTION"
	realAdvFoot     = "donate_argnums"
	realAdvAutotune = "--xla_gpu_autotune_level=0"
	realAdvWhole    = "larger than the whole device (79.18 GiB;"
	realAdvFallback = "XLA falls back to a smaller pool and the program goes on"
	realAdvPool     = "larger than XLA's whole memory pool"
	realAdvHostPool = "XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to at least 94 (GiB;" // 93.13 GiB requested, nothing pinned yet
	realAdvPinned   = "pinned host memory used for transfers and host offload"
)

var realOOMs = []realOOM{
	{name: "device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "GPU_0_bfc",
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(63758789509), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(0)},
	{name: "jit_temps", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_pool_rows_50000.temp_size_in_bytes",
		token: "69.85GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: true,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 75003125760, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(63758789509), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(1000448)},
	{name: "jit_temps_defaultlog", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_pool_rows_50000.temp_size_in_bytes",
		token: "69.85GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: false,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 75003125760, stderrLit: realBFCLit, relation: "bfc",
		advice: []string{realAdvFrac, realAdvFoot}},
	{name: "jit_temps_vmodule", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_pool_rows_50000.temp_size_in_bytes",
		token: "69.85GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: true,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 75003125760, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(63758789509), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(1000448)},
	{name: "jit_output", script: "result.requested.output.bytes", token: "93.13GiB", allocator: "GPU_0_bfc",
		program: "jit_make_big_output", execFirst: true,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(63758789509), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(1000243)},
	// Compiles (only a rematerialization warning), fails at run time.
	{name: "compile_exceeds_device", script: "result.requested.temporaries_total_bytes",
		allocCase: "compile_exceeds_device", allocPath: "result.memory_analysis.temp_size_in_bytes",
		token: "167.64GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: true,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 180007500544, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(63758789509), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(63758789509), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(1000448)},
	{name: "mem_fraction_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_small_rows_4000.temp_size_in_bytes",
		token: "5.59GiB", allocator: "GPU_0_bfc", program: "jit_temps_exceed_memory", execFirst: false,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 6000500736, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(4252017623), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(4252017623), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(1000448)},
	{name: "mem_fraction_fragmented", script: "result.requested.final_request.bytes", token: "1.50GiB",
		allocator: "GPU_0_bfc", program: "jit_broadcast_in_dim", execFirst: true,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 1610612736, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(2104533975), cause: CauseFragmentation, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(4252017623), advice: []string{realAdvFrac, realAdvFoot}, stderrAbsent: []string{realAdvPool}, used: KnownSize(2147483648)},
	{name: "mem_fraction_device_put", script: "result.requested.bytes", token: "6.00GiB", allocator: "GPU_0_bfc",
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 6442450944, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(4252017623), cause: CauseExhaustion, // BFC "Allocator memory summary": total free in pool + unallocated bytes
		pool: KnownSize(4252017623), advice: []string{realAdvFrac, realAdvFoot}, stderrAdvice: []string{realAdvPool}, used: KnownSize(0)},
	{name: "platform_device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "SE_0_space_0",
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realPlatformLit, relation: "exact",
		advice: []string{realAdvFrac, realAdvFoot}},
	{name: "platform_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_card_rows_120000.temp_size_in_bytes",
		token: "167.64GiB", allocator: "SE_0_space_0", program: "jit_temps_exceed_memory", execFirst: false,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 180007500304, stderrLit: realPlatformLit, relation: "exact",
		advice: []string{realAdvFrac, realAdvFoot}},
	{name: "cuda_async_device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "gpu_async_0",
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realAsyncLit, relation: "exact",
		free: KnownSize(20701184000), capacity: KnownSize(85017493504), cause: CauseExhaustion, used: KnownSize(0), // stats "InUse: 0B"
		pool: KnownSize(63758789509), advice: []string{realAdvFoot}, stderrAdvice: []string{realAdvWhole, "only 19.28 GiB is free"},
		stderrAbsent: []string{realAdvFrac}}, // no allocator setting fits a request larger than the GPU
	{name: "cuda_async_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_card_rows_120000.temp_size_in_bytes",
		token: "167.64GiB", allocator: "gpu_async_0", program: "jit_temps_exceed_memory", execFirst: true,
		phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 180007500304, stderrLit: realAsyncLit, relation: "exact",
		free: KnownSize(20676018176), capacity: KnownSize(85017493504), cause: CauseExhaustion, used: KnownSize(1000038), // stats "InUse: 976.6KiB"
		pool: KnownSize(63758789509), advice: []string{realAdvFoot}, stderrAdvice: []string{realAdvWhole, "only 19.26 GiB is free"},
		stderrAbsent: []string{realAdvFrac}}, // no allocator setting fits a request larger than the GPU
	// Compile-time failure in the GPU autotuner. The manifest has no figure
	// for the 32 MiB scratch; it checks instead that the request could not
	// fit the largest free block before the failure.
	{name: "autotune_starved", token: "32.00MiB", allocator: "GPU_0_bfc",
		phase: PhaseCompile, excFamily: "gpu-compile-autotuner", stderrReq: 33554432,
		advice: []string{realAdvAutotune, realAdvFrac}},
	// XLA_PYTHON_CLIENT_ALLOCATOR=vmm: the status prints exact bytes, the
	// request rounded up to the allocation granularity, and pa_budget, the
	// allocator's budget (total memory × the memory fraction, see
	// TestRealWrinkles): a pool limit, not the GPU. Only Python's print of
	// the exception is in the stderr; nothing names a device.
	{name: "vmm_device_put", script: "result.requested.bytes", token: "100000595968B", exact: true,
		message:   "Not enough PA budget: pa_allocated=0B, allocation_size=100000595968B, pa_budget=63763120128B",
		noPayload: true, noDevice: true, excUsed: KnownSize(0), excPool: KnownSize(63763120128),
		phase: PhaseRuntime, excFamily: "gpu-vmm-allocator", stderrReq: 100000595968, stderrLit: "allocation_size=%dB", relation: "vmm",
		stderrFamily: "gpu-vmm-allocator", stderrNoDevice: true, used: KnownSize(0), pool: KnownSize(63763120128), holder: &realHolder{},
		advice: []string{realAdvPool, "helps only if the GPU has well over 93.13 GiB in total", realAdvFoot}, absent: []string{"Give XLA more of the GPU"}},
	{name: "vmm_jit", script: "result.requested.temporaries_total_bytes",
		allocCase: "memory_analysis", allocPath: "result.memory_analysis.temps_card_rows_120000.temp_size_in_bytes",
		token: "180009041920B", exact: true, program: "jit_temps_exceed_memory",
		message:   "Not enough PA budget: pa_allocated=4194304B, allocation_size=180009041920B, pa_budget=63763120128B",
		noPayload: true, noDevice: true, excUsed: KnownSize(4194304), excPool: KnownSize(63763120128),
		phase: PhaseRuntime, excFamily: "gpu-vmm-allocator", stderrReq: 180009041920, stderrLit: "allocation_size=%dB", relation: "vmm",
		stderrFamily: "gpu-vmm-allocator", stderrNoDevice: true, used: KnownSize(4194304), pool: KnownSize(63763120128), holder: &realHolder{},
		advice: []string{realAdvPool, "helps only if the GPU has well over 167.65 GiB in total", realAdvFoot}, absent: []string{"Give XLA more of the GPU"}},
	// device_put into memory_kind="pinned_host": XLA's pinned host pool
	// (allocator xla_gpu_host_bfc) is sized by XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB
	// (64 GiB by default), not by the GPU's memory fraction. Its BFC
	// warning and summary are in the stderr; the pool was still empty.
	{name: "pinned_host_device_put", script: "result.requested.bytes", token: "93.13GiB", allocator: "xla_gpu_host_bfc",
		message: "Out of host memory while trying to allocate 93.13GiB with allocator xla_gpu_host_bfc on device 0. " +
			"Please set the environment variable XLA_PJRT_GPU_HOST_MEMORY_LIMIT_GB to allocate larger host memory than the default 64 GB.",
		space: "host", phase: PhaseRuntime, excFamily: "gpu-allocator-status", stderrReq: 100000000000, stderrLit: realBFCLit, relation: "bfc",
		free: KnownSize(68719476736), cause: CauseExhaustion, // "total free in pool 0B, ... unallocated bytes 64.00GiB"
		pool: KnownSize(68719476736), holder: &realHolder{}, // "pool size 0B, pool limit 64.00GiB": no chunks
		advice: []string{realAdvHostPool, realAdvPinned}, stderrAdvice: []string{"larger than XLA's whole pinned host memory pool (pool limit 64.00 GiB)"},
		absent: []string{realAdvFrac, "Give XLA more of the GPU", "per-device footprint", "memory pool on this GPU"}, used: KnownSize(0)},
	// jaxlib's cuSOLVER kernel could not get its workspace from XLA's pool
	// (fraction 0.05), which four jnp.ones arrays (jit_broadcast_in_dim, the
	// memory holder) had filled. The status prints no size; the BFC warning
	// logged before it does, and its dump names the holder. The manifest has
	// no figure for the workspace: TestRealCaptures checks it against the
	// largest free block instead.
	{name: "solver_workspace", program: "jit__lambda", message: "Unable to allocate device workspace for syevBatched",
		noPayload: true, noDevice: true, instruction: "syevBatched",
		phase: PhaseRuntime, excFamily: "gpu-jaxlib-workspace", stderrReq: 270648320, stderrLit: realBFCLit,
		stderrFamily: "gpu-jaxlib-workspace",                       // device 0: the BFC line's GPU_0_bfc
		free:         KnownSize(100642324), cause: CauseExhaustion, // "total free in pool 95.98MiB, ... unallocated bytes 0B"
		pool: KnownSize(4252017623), holder: &realHolder{"jit_broadcast_in_dim", 4016046080},
		advice: []string{realAdvFoot, realAdvFrac}, stderrAdvice: []string{"needs 258.11 MiB but only 95.98 MiB is free"}, used: KnownSize(4155380859)},
}

// Runs that raised nothing (control, memory_analysis, cuda_async_jit_pool,
// prealloc_*). prealloc_100 and prealloc_0995 log a real driver OOM at
// start-up, "[0] Failed to allocate device memory of 79.18GiB (85018542080
// bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY", then XLA silently
// falls back to a smaller pool and the program runs (manifest: returncode 0,
// pool_bytes < bytes_limit). That line is an allocation attempt: a memory
// warning (allocation_attempt, exact bytes), never a failure, so none of the
// six is an OOM.
var realStartup = map[string]bool{"prealloc_100": true, "prealloc_0995": true}

var realQuiet = []string{"control", "memory_analysis", "cuda_async_jit_pool", "prealloc_099", "prealloc_100", "prealloc_0995"}

func readReal(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(realDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// recognizeReal runs both passes and requires MayContain to agree with a
// recognised text (MayContain may pass non-OOM text; that is allowed).
func recognizeReal(t *testing.T, text string) (Report, bool) {
	t.Helper()
	r, ok := Recognize(text)
	if ok && !MayContain(text) {
		t.Errorf("MayContain = false on a recognised text")
	}
	return r, ok
}

// TestRealCaptureSet makes sure the tables cover the manifest exactly, so a
// new capture cannot go unasserted.
func TestRealCaptureSet(t *testing.T) {
	m := loadRealManifest(t)
	known := map[string]string{}
	for _, c := range realOOMs {
		known[c.name] = "oom"
	}
	for _, n := range realQuiet {
		known[n] = "quiet"
	}
	for n := range m {
		switch known[n] {
		case "":
			t.Errorf("manifest case %q is not asserted by real_test.go", n)
		case "oom":
			if m.get(t, n, "exception_file") != n+".exception.txt" || m.get(t, n, "traceback_file") != n+".traceback.txt" {
				t.Errorf("%s: manifest exception/traceback files differ", n)
			}
		case "quiet":
			if m.get(t, n, "exception_file") != nil || m.int(t, n, "returncode") != 0 {
				t.Errorf("%s: expected a run that raised nothing", n)
			}
		}
		if m.get(t, n, "stderr_file") != n+".stderr.txt" {
			t.Errorf("%s: manifest stderr file differs", n)
		}
	}
	for n := range known {
		if m[n] == nil {
			t.Errorf("case %q is not in the manifest", n)
		}
	}
	// Every capture file on disk belongs to a manifest case.
	for _, kind := range []string{"exception", "traceback", "stderr", "stdout"} {
		files, _ := filepath.Glob(filepath.Join(realDir, "*."+kind+".txt"))
		for _, f := range files {
			n := strings.TrimSuffix(filepath.Base(f), "."+kind+".txt")
			if known[n] == "" || kind != "stderr" && kind != "stdout" && known[n] != "oom" {
				t.Errorf("%s: not a %s file of an asserted case", filepath.Base(f), kind)
			}
		}
	}
	if len(realOOMs) != 18 || len(realQuiet) != 6 {
		t.Errorf("cases: %d OOM + %d quiet, want 18 + 6 (update the report count)", len(realOOMs), len(realQuiet))
	}
}

func TestRealCaptures(t *testing.T) {
	m := loadRealManifest(t)
	for _, c := range realOOMs {
		t.Run(c.name, func(t *testing.T) {
			// alloc: the bytes XLA asked the allocator for, from the manifest.
			var alloc, script int64
			if c.script != "" {
				script = m.int(t, c.name, c.script)
				alloc = script
				if c.allocPath != "" {
					alloc = m.int(t, c.allocCase, c.allocPath)
					if alloc < script || alloc-script > 8<<20 {
						t.Errorf("XLA buffer %d vs script request %d: expected the request plus a little scratch", alloc, script)
					}
				}
			}

			excWant := realWant{code: "E0007", family: c.excFamily, phase: c.phase, backend: BackendGPU, space: c.space,
				device: "0", program: c.program, instruction: c.instruction, used: c.excUsed, poolLimit: c.excPool,
				holder: &realHolder{}, advice: c.advice, absent: c.absent}
			switch {
			case c.exact:
				n, err := strconv.ParseInt(strings.TrimSuffix(c.token, "B"), 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				excWant.requested = KnownSize(n)
			case c.token != "":
				excWant.requested = KnownSize(realTSLValue(t, c.token))
			}
			if c.noDevice {
				excWant.device = ""
			}
			head := c.message
			if head == "" {
				head = "Out of memory while trying to allocate " + c.token + " with allocator " + c.allocator + " on device 0."
			}
			if !strings.Contains(head, c.token) {
				t.Fatalf("bad expectation: %q lacks the token %q", head, c.token)
			}
			for _, kind := range []string{"exception", "traceback"} {
				t.Run(kind, func(t *testing.T) {
					text := readReal(t, c.name+"."+kind+".txt")
					if !strings.Contains(text, head) {
						t.Fatalf("capture lacks %q", head)
					}
					realPayloadOrder(t, text, c.program, c.execFirst, !c.noPayload)
					r, ok := recognizeReal(t, text)
					if !ok {
						t.Fatal("not recognised")
					}
					checkRealReport(t, r, excWant)
					if c.exact {
						// The exact figure: the stderr's, related to the
						// manifest's allocation as the relation says.
						if r.Requested.Bytes != c.stderrReq {
							t.Errorf("Requested %d, the stderr's figure is %d", r.Requested.Bytes, c.stderrReq)
						}
						realRelated(t, c.relation, alloc, r.Requested.Bytes)
					}
					// Only the rounded TSL size is printed: it must be the
					// allocator's request as TSL prints it, and the parsed value
					// within TSL's bound of both that request and the script's.
					if alloc != 0 && !c.exact {
						if got := realTSLHuman(alloc); got != c.token {
							t.Errorf("TSL prints %d as %q, capture says %q", alloc, got, c.token)
						}
						bound := realTSLBound(t, c.token)
						for _, ref := range []int64{alloc, script} {
							if d := realAbsDiff(r.Requested.Bytes, ref); d > bound {
								t.Errorf("Requested %d is %d B from manifest %d (bound %d)", r.Requested.Bytes, d, ref, bound)
							}
						}
					}
				})
			}

			t.Run("stderr", func(t *testing.T) {
				text := readReal(t, c.name+".stderr.txt")
				w := excWant
				// The first returned status is the failure: the exception
				// print (for autotune_starved the per-HLO "Could not get config
				// ... Status: RESOURCE_EXHAUSTED: Out of memory ..." logged
				// before it), gpu-allocator-status in every capture; the allocator log
				// lines lend their exact figure and free/total.
				// A status that is not the adapter's (VMM, jaxlib) keeps its
				// own family.
				w.family = "gpu-allocator-status"
				if c.stderrFamily != "" {
					w.family = c.stderrFamily
				}
				w.device = "0"
				if c.stderrNoDevice {
					w.device = ""
				}
				w.requested = KnownSize(c.stderrReq)
				w.free, w.used, w.capacity, w.poolLimit, w.cause = c.free, c.used, c.capacity, c.pool, c.cause
				w.holder = c.holder
				w.absent = append(append([]string(nil), c.absent...), c.stderrAbsent...)
				w.advice = append(append([]string(nil), c.advice...), c.stderrAdvice...)
				if exc := strings.TrimRight(readReal(t, c.name+".exception.txt"), "\n"); !strings.Contains(text, "\njax.errors.JaxRuntimeError: "+exc+"\n") {
					t.Errorf("stderr lacks Python's print of the exception")
				}
				r, ok := recognizeReal(t, text)
				if !ok {
					t.Fatal("not recognised")
				}
				checkRealReport(t, r, w)
				// The exact figure is what the log printed ...
				if c.stderrLit != "" {
					if lit := fmt.Sprintf(c.stderrLit, c.stderrReq); !strings.Contains(text, lit) {
						t.Errorf("stderr lacks %q", lit)
					}
				}
				// ... and relates to the manifest's allocation.
				realRelated(t, c.relation, alloc, c.stderrReq)
				tok := c.token
				if !c.exact && tok != "" {
					if got := realTSLHuman(c.stderrReq); got != tok {
						t.Errorf("TSL prints exact %d as %q, exception says %q", c.stderrReq, got, tok)
					}
				} else {
					tok = realTSLHuman(c.stderrReq)
				}
				// BFC prints the human size next to the rounded figure.
				if c.stderrLit == realBFCLit {
					if lit := fmt.Sprintf("ran out of memory trying to allocate %s (rounded to %d)", tok, c.stderrReq); !strings.Contains(text, lit) {
						t.Errorf("stderr lacks %q", lit)
					}
				}
			})

			switch c.name {
			case "autotune_starved", "solver_workspace":
				// The 32 MiB autotuning scratch, the cuSOLVER workspace: it
				// could not fit, the largest free block before the failure
				// was smaller.
				if lf := m.int(t, c.name, "result.memory_stats_before_oom.largest_free_block_bytes"); lf >= c.stderrReq {
					t.Errorf("largest free block %d >= request %d", lf, c.stderrReq)
				}
			}
			if c.name == "solver_workspace" {
				// The memory holder's chunks are the fill arrays, exactly.
				if fill := m.int(t, c.name, "result.requested.fill_total_bytes"); fill != c.holder.size {
					t.Errorf("holder holds %d, the script filled %d", c.holder.size, fill)
				}
			}
		})
	}

	for _, n := range realQuiet {
		t.Run(n, func(t *testing.T) {
			if m.get(t, n, "exception_file") != nil {
				t.Fatal("expected no exception")
			}
			for _, kind := range []string{"stderr", "stdout"} {
				t.Run(kind, func(t *testing.T) {
					text := readReal(t, n+"."+kind+".txt")
					if r, ok := recognizeReal(t, text); ok {
						t.Fatalf("recognised a run that did not fail: %+v", r)
					}
					if kind == "stdout" || !realStartup[n] {
						return
					}
					// Start-up preallocation failure, see realStartup.
					limit := m.int(t, n, "result.memory_stats_at_start.bytes_limit")
					if pool := m.int(t, n, "result.memory_stats_after.pool_bytes"); pool >= limit || m.int(t, n, "returncode") != 0 {
						t.Errorf("manifest: pool %d, limit %d: expected a smaller fallback pool and a run that succeeded", pool, limit)
					}
					if lit := fmt.Sprintf("[0] Failed to allocate device memory of %s (%d bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY", realTSLHuman(limit), limit); !strings.Contains(text, lit) {
						t.Errorf("stderr lacks %q", lit)
					}
					w, ok := RecognizeWarning(text)
					want := Warning{Kind: WarningAllocationAttempt, Family: "gpu-executor-device-alloc-attempt", Phase: PhaseRuntime, Backend: BackendGPU,
						Device: "0", Requested: KnownSize(limit), Attempts: 1, Explanation: Explanation(WarningAllocationAttempt)}
					if !ok || w != want {
						t.Fatalf("warning = %+v, %v; want %+v", w, ok, want)
					}
				})
			}
		})
	}

	// stdout of the runs that raised: capture.py's progress lines
	// ("step jit_call: raised jax.errors.JaxRuntimeError"), no OOM text.
	for _, c := range realOOMs {
		if r, ok := Recognize(readReal(t, c.name+".stdout.txt")); ok {
			t.Errorf("%s.stdout.txt recognised: %+v", c.name, r)
		}
	}
}

// realPayloadOrder asserts where [executable_name='...'] stands relative to
// [tf-allocator-allocation-error=”] (the order varies between runs), or,
// when the status is not the allocator adapter's (tfPayload false), that
// only [executable_name='...'] is there.
func realPayloadOrder(t *testing.T, text, program string, execFirst, tfPayload bool) {
	t.Helper()
	tf := strings.Index(text, "[tf-allocator-allocation-error='']")
	ex := strings.Index(text, "[executable_name=")
	if !tfPayload {
		if tf >= 0 {
			t.Error("unexpected [tf-allocator-allocation-error=''] payload")
		}
		if (ex >= 0) != (program != "") || program != "" && !strings.Contains(text, "[executable_name='"+program+"']") {
			t.Errorf("[executable_name=] payload: want %q", program)
		}
		return
	}
	if tf < 0 {
		t.Fatal("no [tf-allocator-allocation-error=''] payload")
	}
	if program == "" {
		if ex >= 0 {
			t.Errorf("unexpected [executable_name=] payload")
		}
		return
	}
	if !strings.Contains(text, "[executable_name='"+program+"']") {
		t.Errorf("no [executable_name='%s']", program)
	}
	if (ex < tf) != execFirst {
		t.Errorf("payload order: executable_name first = %v, want %v", ex < tf, execFirst)
	}
}

var realLogLine = regexp.MustCompile(`^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ `)

// realExcerpt returns the log record starting at the line containing anchor:
// that line and its continuation lines, up to the next glog line or Python's
// traceback.
func realExcerpt(t *testing.T, text, anchor string) string {
	t.Helper()
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if !strings.Contains(l, anchor) {
			continue
		}
		j := i + 1
		for j < len(lines) && !realLogLine.MatchString(lines[j]) && !strings.HasPrefix(lines[j], "Traceback (most recent call last)") {
			j++
		}
		return strings.Join(lines[i:j], "")
	}
	t.Fatalf("no line contains %q", anchor)
	return ""
}

func TestRealWrinkles(t *testing.T) {
	m := loadRealManifest(t)

	t.Run("payload order varies, same report", func(t *testing.T) {
		// Same program, two runs, opposite payload orders.
		a, b := readReal(t, "jit_temps.exception.txt"), readReal(t, "jit_temps_defaultlog.exception.txt")
		if a == b {
			t.Fatal("expected the two captures to differ in payload order")
		}
		ra, oka := Recognize(a)
		rb, okb := Recognize(b)
		if !oka || !okb || !reflect.DeepEqual(ra, rb) {
			t.Errorf("reports differ:\n%+v\n%+v", ra, rb)
		}
		var exFirst, tfFirst int
		for _, c := range realOOMs {
			if c.program != "" && !c.noPayload {
				if c.execFirst {
					exFirst++
				} else {
					tfFirst++
				}
			}
		}
		if exFirst == 0 || tfFirst == 0 {
			t.Errorf("expected both orders among the captures: %d / %d", exFirst, tfFirst)
		}
	})

	t.Run("Source Location Trace blocks", func(t *testing.T) {
		// The driver lines continue with a multi-line block; its header
		// sometimes has a trailing space. The record read from the headline
		// through the block (and, for cuMemAllocAsync, the " Reported by CUDA"
		// line after it) keeps the exact bytes, device and free/total.
		var trailing, bare int
		for _, tc := range []struct {
			file, anchor, family string
			requested            int64
			free, capacity       Size
		}{
			{"platform_device_put.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", 100000000000, Size{}, Size{}},
			{"platform_jit.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", 180007500304, Size{}, Size{}},
			{"prealloc_0995.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", m.int(t, "prealloc_0995", "result.memory_stats_at_start.bytes_limit"), Size{}, Size{}},
			{"prealloc_100.stderr.txt", "Failed to allocate device memory", "gpu-executor-device-alloc-attempt", m.int(t, "prealloc_100", "result.memory_stats_at_start.bytes_limit"), Size{}, Size{}},
			{"cuda_async_device_put.stderr.txt", "cuMemAllocAsync failed", "gpu-cuda-async-allocator", 100000000000, KnownSize(20701184000), KnownSize(85017493504)},
			{"cuda_async_jit.stderr.txt", "cuMemAllocAsync failed", "gpu-cuda-async-allocator", 180007500304, KnownSize(20676018176), KnownSize(85017493504)},
		} {
			t.Run(tc.file, func(t *testing.T) {
				rec := realExcerpt(t, readReal(t, tc.file), tc.anchor)
				switch {
				case strings.Contains(rec, "\n=== Source Location Trace: === \n"):
					trailing++
				case strings.Contains(rec, "\n=== Source Location Trace: ===\n"):
					bare++
				default:
					t.Fatalf("no Source Location Trace block in:\n%s", rec)
				}
				if !strings.Contains(rec, "\nexternal/xla+/xla/stream_executor/") {
					t.Errorf("no trace frames in:\n%s", rec)
				}
				r, ok := recognizeReal(t, rec)
				if strings.HasSuffix(tc.family, "-attempt") {
					// StreamExecutor's refusal: an attempt, never the failure
					// (the platform allocator's status follows in its own record).
					if ok {
						t.Fatalf("an attempt read as a failure: %+v", r)
					}
					w, ok := RecognizeWarning(rec)
					if !ok || w.Family != tc.family || w.Requested != KnownSize(tc.requested) || w.Device != "0" || w.Attempts != 1 {
						t.Fatalf("warning = %+v, %v; want %s of %d bytes on device 0", w, ok, tc.family, tc.requested)
					}
					return
				}
				if !ok {
					t.Fatalf("not recognised:\n%s", rec)
				}
				// Larger than the GPU: no allocator setting is offered.
				checkRealReport(t, r, realWant{code: "E0007", family: tc.family, phase: PhaseRuntime, backend: BackendGPU, device: "0",
					requested: KnownSize(tc.requested), free: tc.free, capacity: tc.capacity, cause: CauseExhaustion,
					advice: []string{realAdvWhole}, absent: []string{realAdvFrac}})
			})
		}
		if trailing == 0 || bare == 0 {
			t.Errorf("expected both header forms: %d with a trailing space, %d without", trailing, bare)
		}
	})

	t.Run("allocator contains no memory", func(t *testing.T) {
		// An empty (lazily allocated) pool prints this instead of the
		// occupancy bar; the BFC record still reads, the line alone is nothing.
		for _, n := range []string{"device_put", "mem_fraction_device_put", "pinned_host_device_put"} {
			text := readReal(t, n+".stderr.txt")
			line := realExcerpt(t, text, "<allocator contains no memory>")
			if !strings.HasSuffix(line, "bfc_allocator.cc:609] <allocator contains no memory>\n") {
				t.Errorf("%s: unexpected line %q", n, line)
			}
			if _, ok := Recognize(line); ok {
				t.Errorf("%s: the line alone was recognised", n)
			}
			at := strings.Index(text, "ran out of memory trying to allocate")
			bfc := text[strings.LastIndex(text[:at], "\n")+1 : strings.Index(text, "Traceback (most recent call last)")]
			if !strings.Contains(bfc, "<allocator contains no memory>") || !strings.Contains(bfc, "pool size 0B") {
				t.Fatalf("%s: warning block lacks the empty-pool lines", n)
			}
			r, ok := recognizeReal(t, bfc)
			if !ok {
				t.Fatalf("%s: BFC warning block not recognised", n)
			}
			requested := m.int(t, n, "result.requested.bytes")
			// The block's "Allocator memory summary" gives what was free
			// (pool free + unallocated) and the pool limit: both less than the
			// request, so the advice is about the pool, not fragmentation.
			free := map[string]int64{"device_put": 63758789509, "mem_fraction_device_put": 4252017623, "pinned_host_device_put": 68719476736}[n]
			w := realWant{code: "E0007", family: "gpu-bfc-allocator", phase: PhaseRuntime, backend: BackendGPU, device: "0",
				requested: KnownSize(realRoundUp256(requested)), free: KnownSize(free), poolLimit: KnownSize(free), cause: CauseExhaustion,
				used:   KnownSize(0), // the stats' "InUse: 0B": nothing allocated yet
				holder: &realHolder{}, advice: []string{"is free", realAdvPool}}
			if n == "pinned_host_device_put" {
				// xla_gpu_host_bfc: pinned host memory, no device in the
				// allocator's name; its pool is not a share of the GPU.
				w.space, w.device = "host", ""
				w.advice = []string{realAdvHostPool, "larger than XLA's whole pinned host memory pool"}
				w.absent = []string{realAdvFrac, "cuda_async", "cuda_malloc_async"}
			}
			checkRealReport(t, r, w)
		}
	})

	t.Run("VMM pa_budget is the memory fraction of the GPU", func(t *testing.T) {
		// The VMM allocator sizes its budget as BFC sizes its pool: the
		// GPU's total memory (CUDA's figure in cuda_async_device_put) times
		// XLA_PYTHON_CLIENT_MEM_FRACTION (.75), so the fraction advice holds.
		const total = 85017493504
		if !strings.Contains(readReal(t, "cuda_async_device_put.stderr.txt"), fmt.Sprintf("Free memory/Total memory: 20701184000/%d\n", total)) {
			t.Fatal("cuda_async_device_put lacks CUDA's total memory")
		}
		for _, n := range []string{"vmm_device_put", "vmm_jit"} {
			text := readReal(t, n+".stderr.txt")
			line := realExcerpt(t, text, "pa_budget for device")
			if want := fmt.Sprintf("cuda_device_address_vmm_allocator.cc:96] VMM device-address allocator pa_budget for device 0: %d bytes.\n", total*3/4); !strings.HasSuffix(line, want) {
				t.Errorf("%s: %q does not end with %q", n, line, want)
			}
			if r, ok := Recognize(text); !ok || r.PoolLimit != KnownSize(total*3/4) {
				t.Errorf("%s: PoolLimit = %+v (recognised %v), want %d", n, r.PoolLimit, ok, total*3/4)
			}
		}
	})

	t.Run("JAX traceback filter footer", func(t *testing.T) {
		const footer = "--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.\n"
		exc := readReal(t, "autotune_starved.exception.txt")
		re, ok := Recognize(exc)
		if !ok {
			t.Fatal("exception not recognised")
		}
		for _, f := range []string{"autotune_starved.traceback.txt", "autotune_starved.stderr.txt"} {
			text := readReal(t, f)
			if !strings.HasSuffix(text, footer) {
				t.Fatalf("%s does not end with the footer", f)
			}
			if _, ok := Recognize(footer); ok {
				t.Errorf("the footer alone was recognised")
			}
			if f == "autotune_starved.traceback.txt" {
				// The footer (and the frames) change nothing but the
				// exception's type, which str(e) alone does not print.
				rt, ok := Recognize(text)
				if rt.ExceptionType != "jax.errors.JaxRuntimeError" {
					t.Errorf("traceback's exception type %q", rt.ExceptionType)
				}
				rt.ExceptionType = ""
				if !ok || !reflect.DeepEqual(rt, re) {
					t.Errorf("traceback report differs from the exception's:\n%+v\n%+v", rt, re)
				}
			}
			// Cut the footer off a record: the same report.
			a, _ := Recognize(text)
			b, _ := Recognize(strings.TrimSuffix(text, footer))
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s: the footer changes the report:\n%+v\n%+v", f, a, b)
			}
		}
	})

	t.Run("non-failure log lines alone", func(t *testing.T) {
		// Lines of the captures that look like memory trouble but are not a
		// failure: BFC retries the caller tolerates (freed_by_count=0),
		// rematerialization warnings, the scheduler's base-limit E-line, pool
		// set-up INFO lines, the allocator summaries.
		kinds := map[string]int{}
		for _, n := range append(realQuiet, realNames(realOOMs)...) {
			for _, l := range strings.SplitAfter(readReal(t, n+".stderr.txt"), "\n") {
				for _, k := range []string{"freed_by_count=0", "Can't reduce memory use below", "exceeds the base limit",
					"for BFCAllocator", "Allocator memory summary", "Spatial partitioning summary", "Allocator region growth hint",
					"Bin for ", "Sum Total of in-use chunks", "pa_budget for device"} {
					if strings.Contains(l, k) {
						kinds[k]++
						if r, ok := Recognize(l); ok {
							t.Errorf("%s: recognised %q: %+v", n, l, r)
						}
					}
				}
			}
		}
		for _, k := range []string{"freed_by_count=0", "Can't reduce memory use below", "exceeds the base limit", "for BFCAllocator", "pa_budget for device"} {
			if kinds[k] == 0 {
				t.Errorf("no %q line in the captures", k)
			}
		}
	})
}

func realNames(cs []realOOM) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}

// TestRealBFCSummary: the captures showed that the BFC allocator's "Allocator
// memory summary" line is where a GPU record says what was free; reading it
// gives the cause (a gap these captures revealed, now closed).
func TestRealBFCSummary(t *testing.T) {
	t.Run("BFC allocator memory summary gives the cause", func(t *testing.T) {

		m := loadRealManifest(t)
		for _, tc := range []struct {
			name, tok, cause string // tok: "total free in pool" + "unallocated bytes" as printed
		}{
			// 1.50 GiB requested, 1.96 GiB free in two 1 GiB-ish holes: fragmentation.
			{"mem_fraction_fragmented", "1.96GiB", CauseFragmentation},
			{"jit_temps", "59.38GiB", CauseExhaustion},
			{"mem_fraction_jit", "3.96GiB", CauseExhaustion},
			// pool size 0B (lazy pool): all 59.38 GiB is "unallocated bytes".
			{"device_put", "59.38GiB", CauseExhaustion},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r, ok := Recognize(readReal(t, tc.name+".stderr.txt"))
				if !ok {
					t.Fatal("not recognised")
				}
				free := m.int(t, tc.name, "result.memory_stats_before_oom.bytes_limit") - m.int(t, tc.name, "result.memory_stats_before_oom.bytes_in_use")
				if realTSLHuman(free) != tc.tok {
					t.Fatalf("manifest free %d prints %q, not %q", free, realTSLHuman(free), tc.tok)
				}
				if !r.Free.Known || realAbsDiff(r.Free.Bytes, free) > realTSLBound(t, tc.tok) {
					t.Errorf("Free = %+v, want about %d (%s)", r.Free, free, tc.tok)
				}
				if r.Cause != tc.cause {
					t.Errorf("Cause = %q, want %q", r.Cause, tc.cause)
				}
				limit := m.int(t, tc.name, "result.memory_stats_before_oom.bytes_limit")
				if !r.PoolLimit.Known || realAbsDiff(r.PoolLimit.Bytes, limit) > realTSLBound(t, realTSLHuman(limit)) {
					t.Errorf("PoolLimit = %+v, want about %d (%s)", r.PoolLimit, limit, realTSLHuman(limit))
				}
				if tc.cause == CauseFragmentation && !strings.Contains(strings.Join(r.Remediation, "\n"), "fragmented") {
					t.Errorf("remediation does not say memory is fragmented:\n%s", strings.Join(r.Remediation, "\n"))
				}
			})
		}
	})
}
