// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package grammar

import (
	"math"
	"testing"
)

func TestCatalog(t *testing.T) {
	for _, c := range []struct{ code, name, phase string }{
		{"E0007", "ResourceExhausted", ""},
		{"E0100", "RuntimeBufferAllocationFailure", PhaseRuntime},
		{"E1000", "CompileTimeHbmOom", PhaseCompile},
		{"E1002", "CompileTimeHbmOom", PhaseCompile}, // the draft code of the TensorCore+SparseCore message
		{"E3000", "CompileTimeSparseCoreAllocationFailure", PhaseCompile},
	} {
		e, ok := LookupCode(c.code)
		if !ok || e.Name != c.name || e.Phase != c.phase {
			t.Errorf("LookupCode(%s) = %+v %v", c.code, e, ok)
		}
		if n, ok := LookupName(c.name); !ok || n != e {
			t.Errorf("LookupName(%s) = %+v %v", c.name, n, ok)
		}
		if e.Code != CodeGeneric && e.DocURL != "https://openxla.org/xla/errors/error_"+e.Code[1:] {
			t.Errorf("%s: doc %s", e.Code, e.DocURL)
		}
	}
	if _, ok := LookupCode("E1200"); ok {
		t.Error("E1200 is not an OOM code")
	}
	if _, ok := LookupName("CompileTimeHbmOomX"); ok {
		t.Error("an unknown name was found")
	}
}

func TestAllocatorNames(t *testing.T) {
	for _, c := range []struct{ name, backend, device string }{
		{"GPU_0_bfc", BackendGPU, "0"},
		{"gpu_async_1", BackendGPU, "1"},
		{"cuda_host_bfc", BackendGPU, ""},
		{"xla_gpu_host_bfc", BackendGPU, ""},
		{"SE_0_space_0", "", "0"},
		{"TFRT_CPU_0", BackendCPU, "0"},
		{"tpu_hbm", BackendTPU, ""},
	} {
		if b, d := AllocatorBackend(c.name), AllocatorDevice(c.name); b != c.backend || d != c.device {
			t.Errorf("%s: backend %q device %q", c.name, b, d)
		}
	}
}

func TestSizesArithmetic(t *testing.T) {
	// BFC summary: "total free in pool 1.00GiB ... unallocated bytes 6.00GiB"
	if got := AddSizes(ParseSizeToken("1.00GiB"), ParseSizeToken("6.00GiB")); got != KnownSize(7516192768) {
		t.Errorf("sum %+v", got)
	}
	if got := AddSizes(ParseSizeToken("1.00GiB"), Size{}); got.Known {
		t.Errorf("a sum with an unknown size is %+v", got)
	}
	if got := AddSizes(KnownSize(math.MaxInt64), KnownSize(1)); got.Known {
		t.Errorf("an overflowing sum is %+v", got)
	}
	// "4.50GiB (rounded to 4831838208)", "32.00MiB (33554432B)"
	if Exact("4.50GiB", "4831838208") != KnownSize(4831838208) || Exact("32.00MiB", "") != KnownSize(33554432) {
		t.Error("Exact")
	}
	if HumanSize(KnownSize(34089730048)) != "31.75 GiB" || HumanBytes(-2735391744) != "-2.55 GiB" || HumanBytes(512) != "512 B" {
		t.Errorf("%q %q", HumanSize(KnownSize(34089730048)), HumanBytes(-2735391744))
	}
	// "Used 49.34G of 32.00G": over by 1.54x
	if r := Ratio(KnownSize(52978421596), KnownSize(34359738368)); math.Abs(r-1.5419) > 0.0001 {
		t.Errorf("ratio %v", r)
	}
	if Ratio(KnownSize(1), Size{}) != 0 || Ratio(KnownSize(1), KnownSize(0)) != 0 {
		t.Error("a ratio to an unknown or empty size is 0")
	}
	if !IsExactToken("4831838208") || IsExactToken("4.50GiB") || !IsSizeGroup("requested_exact") || IsSizeGroup("device") {
		t.Error("token kinds")
	}
}

func TestPoolCause(t *testing.T) {
	// mem_fraction_fragmented: 1.50GiB asked, 1.96GiB free, largest chunk 1.00GiB
	req, free := ParseSizeToken("1.50GiB"), ParseSizeToken("1.96GiB")
	if got := PoolCause(req, free, ParseSizeToken("1.00GiB")); got != CauseFragmentation {
		t.Errorf("got %q", got)
	}
	if got := PoolCause(req, ParseSizeToken("1.00GiB"), ParseSizeToken("1.00GiB")); got != CauseExhaustion {
		t.Errorf("got %q", got)
	}
	if got := PoolCause(req, free, Size{}); got != "" {
		t.Errorf("got %q", got)
	}
}

func TestWarningPressure(t *testing.T) {
	for _, c := range []struct {
		name string
		w    Warning
		want float64
		ok   bool
	}{
		// "Can't reduce memory use below 56.41GiB (60574761232 bytes) ...; only reduced to 69.85GiB (75003125004 bytes)"
		{"rematerialization", Warning{Used: KnownSize(75003125004), Capacity: KnownSize(60574761232)}, 75003125004.0 / 60574761232, true},
		// "Allocating 4294967296 bytes exceeds the memory limit of 2147483648 bytes."
		{"autotune scratch", Warning{Requested: KnownSize(4294967296), Capacity: KnownSize(2147483648)}, 2, true},
		// "Memory usage: 4194304 bytes free, 85031714816 bytes total."
		{"cuDNN free memory", Warning{Free: KnownSize(4194304), Capacity: KnownSize(85031714816)}, 1 - 4194304.0/85031714816, true},
		{"no limit", Warning{Requested: KnownSize(16787702)}, 0, false},
	} {
		got, ok := c.w.Pressure()
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: pressure %v %v, want %v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestWarningKinds(t *testing.T) {
	for _, k := range WarningKinds() {
		if Explanation(k) == "" || WarningPhase(k) == "" {
			t.Errorf("%s: explanation %q phase %q", k, Explanation(k), WarningPhase(k))
		}
	}
	if Explanation("oom") != "" || WarningPhase("oom") != "" {
		t.Error("an unknown kind has an explanation or a phase")
	}
}

func TestWords(t *testing.T) {
	if Fatal.String() != "fatal" || LogOnly.String() != "log-only" || FamilyKind(0).String() != "unknown" {
		t.Error("FamilyKind.String")
	}
	if s := (Site{File: "train.py", Line: 12, Function: "<module>"}).String(); s != "train.py:12 in <module>" {
		t.Errorf("site %q", s)
	}
	if (Site{}).String() != "" || (Site{File: "t.py", Line: 6}).String() != "t.py:6" {
		t.Error("Site.String")
	}
	var a Advice
	a.Add("The op needed a ", HumanSize(KnownSize(16777216)), " tensor.")
	if len(a) != 1 || a[0] != "The op needed a 16.00 MiB tensor." || ConstAction(ActionShard)(nil) != ActionShard {
		t.Errorf("advice %q", a)
	}
	seen := map[string]bool{}
	for _, x := range Actions {
		if seen[x.Name] || x.Meaning == "" {
			t.Errorf("action %q", x.Name)
		}
		seen[x.Name] = true
	}
}

// A breakdown's culprit is the largest allocation of code, not an input.
func TestBreakdownCulprit(t *testing.T) {
	// jax#13428: the concatenate at models.py:689, then an entry parameter
	b := Breakdown{Allocations: []Allocation{
		{Size: ParseSizeToken("6.00MiB"), OpName: "jit(concatenate)/jit(main)/concatenate[dimension=0]", SourceFile: "/media/gccrcv/Data/Opensources/multinerf/internal/models.py", SourceLine: 689},
		{Size: ParseSizeToken("384.0KiB"), Shape: "f32[256,128,3]", Type: "entry parameter"},
	}}
	if b.Culprit() != 0 || b.LargestInput() != 1 || b.Allocations[0].Source() != "/media/gccrcv/Data/Opensources/multinerf/internal/models.py:689" {
		t.Errorf("culprit %d input %d source %q", b.Culprit(), b.LargestInput(), b.Allocations[0].Source())
	}
	// vLLM: a weight passed in is an input, however large
	b = Breakdown{Allocations: []Allocation{{Size: ParseSizeToken("384.00M"), OpName: "params_and_buffers['vllm_model.model.layers.1.mlp.experts.w13_weight']"}}}
	if b.Culprit() != -1 || b.LargestInput() != 0 || b.Allocations[0].Source() != "" {
		t.Errorf("culprit %d input %d", b.Culprit(), b.LargestInput())
	}
	if (&Allocation{SourceFile: "t.py"}).Source() != "t.py" {
		t.Error("a file without a line")
	}
}

// TestSizeMeanings: every standard size group has its meaning written down,
// and every meaning is a standard size group.
func TestSizeMeanings(t *testing.T) {
	documented := map[string]bool{}
	for _, m := range SizeMeanings {
		documented[m.Group] = true
		if !IsSizeGroup(m.Group) {
			t.Errorf("%s is documented but is not a standard size group", m.Group)
		}
	}
	for g := range PlainSizeGroups {
		if !documented[g] {
			t.Errorf("standard size group %s has no meaning in SizeMeanings", g)
		}
	}
}
