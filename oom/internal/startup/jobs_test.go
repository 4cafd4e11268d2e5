// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const jobsDir = "../../testdata/jobs/"

// readJob feeds a job log a line per record.
func readJob(t *testing.T, p *Process, name string) {
	t.Helper()
	raw, err := os.ReadFile(jobsDir + name)
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(string(raw), "\n") {
		p.Read(l)
	}
}

// TestJobs: every whole job log captured on the H100 (jaxlib 0.11.2, XLA 2026) gives its start-up facts
// where it was captured with TF_CPP_MIN_LOG_LEVEL=0, and none where JAX's default logging hid them.
func TestJobs(t *testing.T) {
	h100 := Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(80 * gib), CapacitySource: SourceModel}
	pool := func(n int64) Device {
		d := h100
		d.Pool, d.PoolBasis = known(n), BasisShare
		return d
	}
	want := map[string]Device{
		"autotune_in_training_step.log":      pool(4250927104), // XLA_PYTHON_CLIENT_MEM_FRACTION=0.05
		"caught_oom_halving_exit0.log":       {PlanPeak: known(100000000004), PlanLimit: known(63763906560), PlanSource: PlanScheduler},
		"cuda_async_near_full_oom.log":       pool(63763120128),
		"cupy_then_jax_oom.log":              pool(63763906560),
		"platform_near_full_oom.log":         h100, // the platform allocator prints no pool
		"prealloc_false_leak_oom.log":        pool(63763906560),
		"prealloc_false_near_full_exit0.log": pool(63763906560),
		"shared_gpu_backoff_exit0.log":       {},
		"shared_gpu_backoff_then_oom.log":    pool(63763906560),
		"torch_then_jax_exit0.log":           pool(63763906560),
		"two_jobs_first.log":                 {},
		"two_jobs_second.log":                {},
	}
	var manifest struct {
		Jobs map[string]struct {
			Env map[string]string `json:"env"`
			Log string            `json:"log"`
		} `json:"jobs"`
	}
	raw, err := os.ReadFile(jobsDir + "jobs-manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(jobsDir + "*.log")
	if len(logs) < len(want) {
		t.Fatalf("%d logs, want at least %d", len(logs), len(want))
	}
	for _, path := range logs {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			var p Process
			readJob(t, &p, name)
			got := p.Device(-1)
			if strings.HasSuffix(name, ".holder.log") {
				if !reflect.DeepEqual(got, Device{}) {
					t.Errorf("a holder's log gave %+v", got)
				}
				return
			}
			w, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %s", name)
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("\n got %+v\nwant %+v", got, w)
			}
			job := manifest.Jobs[strings.TrimSuffix(name, ".log")]
			if verbose := job.Env["TF_CPP_MIN_LOG_LEVEL"] == "0"; verbose != (got.Model != "") {
				t.Errorf("TF_CPP_MIN_LOG_LEVEL=%q but model %q", job.Env["TF_CPP_MIN_LOG_LEVEL"], got.Model)
			}
			var whole Process // the same log as one record
			raw, _ := os.ReadFile(path)
			whole.Read(string(raw))
			if !reflect.DeepEqual(whole.Device(-1), got) {
				t.Errorf("as one record: %+v", whole.Device(-1))
			}
		})
	}
}

// TestNewProcess: a new set of start-up lines starts a new process whose facts replace the old.
func TestNewProcess(t *testing.T) {
	smallPool := "I1126 11:18:02.996506    2951 gpu_helpers.cc:162] XLA backend allocating 3.96GiB (4250927104 bytes) on device 0 for BFCAllocator."
	bigPool := "I1126 11:16:29.738180     786 gpu_helpers.cc:162] XLA backend allocating 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator."
	executor := "I1126 11:16:29.736160     786 service.cc:170]   StreamExecutor [0]: NVIDIA H100 80GB HBM3, Compute Capability 9.0a (Driver: 13.0.0[580.159.4]; Runtime: 13.0.0; Toolkit: 13.0.0; DNN: 9.19.0)"
	remat := "W1122 10:54:50.127149    2541 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally"
	tinyRemat := "W1122 10:52:50.179857     727 hlo_rematerialization.cc:3363] Can't reduce memory use below 3.76GiB (4037430749 bytes) by rematerialization; only reduced to 5.59GiB (6000500004 bytes), down from 5.59GiB (6000500004 bytes) originally"
	tfCreated := "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38367 MB memory:  -> device: 0, name: NVIDIA A100-PCIE-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0"
	tfFound := "Found device 0 with properties: \nname: Tesla K80 major: 3 minor: 7 memoryClockRate(GHz): 0.8235\npciBusID: 0000:00:04.0\ntotalMemory: 11.17GiB freeMemory: 497.25MiB"
	tf2Found := "2020-06-01 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1716] Found device 0 with properties: \n" +
		"pciBusID: 0000:00:04.0 name: Tesla T4 computeCapability: 7.5\ncoreClock: 1.59GHz coreCount: 40 deviceMemorySize: 14.75GiB deviceMemoryBandwidth: 298.08GiB/s"
	tfHost := "2020-06-01 10:11:12.223456: I tensorflow/compiler/xla/service/service.cc:176]   StreamExecutor device (0): Host, Default Version"
	tfCUDA := "2020-06-01 10:11:12.323456: I tensorflow/compiler/xla/service/service.cc:176]   StreamExecutor device (0): Tesla T4, Compute Capability 7.5"
	tf2Created := "2020-06-01 10:11:13.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1402] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 8000 MB memory) -> physical GPU (device: 0, name: Tesla T4, pci bus id: 0000:00:04.0, compute capability: 7.5)"
	tf1Session2 := strings.Replace(tfFound, "497.25MiB", "100.00MiB", 1) // the process's own pool took the rest
	tf1Found := strings.Replace(tfFound, "497.25MiB", "10.90GiB", 1)
	tf1Created := strings.Replace(tfCreated, "38367", "10700", 1)
	ended := "ENDED"
	tests := []struct {
		name    string
		records []string
		check   func(d Device) bool
	}{
		{"a pool line for a recorded ordinal again: the second process's",
			[]string{executor, smallPool, remat, executor, bigPool},
			func(d Device) bool { return d.Pool.Bytes == 63763906560 && d.PlanSource == "" && d.Model != "" }},
		{"after Ended, the next start-up line begins a new process",
			[]string{executor, smallPool, remat, ended, bigPool},
			func(d Device) bool { return d.Pool.Bytes == 63763906560 && d.Model == "" && d.PlanSource == "" }},
		{"after Ended, a table begins a new process",
			[]string{executor, smallPool, ended, smi580Held},
			func(d Device) bool { return !d.Pool.Known && len(d.Holders) == 1 }},
		{"a plan line never starts one; after Ended it replaces the ended process's plan",
			[]string{executor, smallPool, remat, ended, tinyRemat},
			func(d Device) bool { return d.Pool.Bytes == 4250927104 && d.PlanPeak.Bytes == 6000500004 }},
		{"the largest plan of a process is kept (the autotuner's modules are tiny)",
			[]string{executor, bigPool, remat, tinyRemat},
			func(d Device) bool { return d.PlanPeak.Bytes == 75003125004 && d.PlanLimit.Bytes == 60574761232 }},
		{"TensorFlow 1 prints its device line per session: an identical one is the same process",
			[]string{tfFound, tfCreated, tfCreated},
			func(d Device) bool { return d.FreeSource == SourceTensorFlow && d.Pool.Bytes == 38367<<20 }},
		{"a TensorFlow device line with another pool: a new process",
			[]string{tfFound, tfCreated, strings.Replace(tfCreated, "38367", "272", 1)},
			func(d Device) bool { return d.FreeSource == "" && d.Pool.Bytes == 272<<20 }},
		{"a Found device line again: a new process",
			[]string{tfFound, tfCreated, strings.Replace(tfFound, "497.25MiB", "11.00GiB", 1)},
			func(d Device) bool { return !d.Pool.Known && d.Free.Bytes == 11<<30 }},
		{"TensorFlow 2.x: its Found block twice, XLA's Host and CUDA devices: one process, the table kept",
			[]string{smi535, tf2Found, tf2Found, tfHost, tfCUDA, tf2Created},
			func(d Device) bool {
				_, held := d.Held()
				return held && d.Model == "Tesla T4" && d.Pool.Bytes == 8000<<20 && d.CapacitySource == SourceTensorFlow
			}},
		{"TensorFlow 1: a second session's Found block, its free memory less by the own pool: the same process",
			[]string{tf1Found, tf1Created, tf1Session2, tf1Created},
			func(d Device) bool { return d.Free.Bytes == 11703785882 && d.Pool.Bytes == 10700<<20 }},
		{"TensorFlow 1: a Found block whose free memory is not explained by the own pool: a new process",
			[]string{tfFound, strings.Replace(tfCreated, "38367", "272", 1), tf1Found},
			func(d Device) bool { return d.Free.Bytes == 11703785882 && !d.Pool.Known }},
		{"JAX and TensorFlow in one process both print the device line: the same model is one process",
			[]string{smi580Held, executor, bigPool, executor},
			func(d Device) bool { return len(d.Holders) == 1 && d.Pool.Known }},
		{"a table printed between two processes (no failure between) is the second's",
			[]string{smi580Free(t), executor, bigPool, smi580Held, executor, bigPool},
			func(d Device) bool { _, held := d.Held(); return held && len(d.Holders) == 1 }},
		{"a monitor table between one process's lines is dropped, not carried to the next",
			[]string{smi580Free(t), executor, smi580Held, bigPool, executor, bigPool},
			func(d Device) bool { return d.FreeSource == "" && d.Holders == nil }},
		{"CUDA_VISIBLE_DEVICES echoed after the framework started is the next process's",
			[]string{executor, bigPool, "CUDA_VISIBLE_DEVICES=2,3", fourGPUs(), executor, bigPool},
			func(d Device) bool { _, held := d.Held(); return held && !d.FreeByPosition }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Process
			for _, r := range tt.records {
				if r == ended {
					p.Ended()
					continue
				}
				p.Read(r)
			}
			if d := p.Device(0); !tt.check(d) {
				t.Errorf("%+v", d)
			}
		})
	}
}

// TestJobsAppended: two jobs' logs appended to one file (a requeued Slurm job) read as two processes:
// with a failure between them (Ended) and without one.
func TestJobsAppended(t *testing.T) {
	for _, endFirst := range []bool{true, false} {
		var p Process
		readJob(t, &p, "autotune_in_training_step.log")
		if p.Device(0).Pool.Bytes != 4250927104 {
			t.Fatalf("first process: %+v", p.Device(0))
		}
		if endFirst {
			p.Ended()
		}
		readJob(t, &p, "cupy_then_jax_oom.log")
		if d := p.Device(0); d.Pool.Bytes != 63763906560 || d.PoolBasis != BasisShare {
			t.Errorf("Ended %v: second process %+v", endFirst, d)
		}
	}
}
