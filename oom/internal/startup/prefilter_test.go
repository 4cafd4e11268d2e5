// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom"
	"github.com/xlaoom/xlaoomprocessor/oom/internal/startup"
)

// throughPrefilter is the recogniser's one prefilter pass with Cues added, as the processor runs it.
func throughPrefilter(t *testing.T) *oom.Recognizer {
	t.Helper()
	return oom.Default().WithCues(startup.Cues...)
}

// TestPrefilterPasses: the one pass lets through each line Read needs on its own, and not the lines
// docs/devices.md lists as holding no scan key (a key added for them must update that list).
func TestPrefilterPasses(t *testing.T) {
	z := throughPrefilter(t)
	tests := []struct {
		line string
		pass bool
	}{
		{"I1126 11:16:29.738180     786 gpu_helpers.cc:162] XLA backend allocating 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator.", true},
		{"XLA backend reserving 14602792550 out of 16225325056 bytes on device 0 for BFCAllocator.", true},
		{"XLA backend will use up to 21254635520 bytes on device 0 for BFCAllocator.", true},
		{"I1126 11:17:57.835107    2708 se_gpu_pjrt_client.cc:1233] XLA backend allocating 63763120128 bytes on device 0 for CudaAsyncAllocator.", true},
		{"I1124 17:50:37.058445     888 cuda_device_address_vmm_allocator.cc:96] VMM device-address allocator pa_budget for device 0: 63763120128 bytes.", true},
		{"I1126 11:16:29.736160     786 service.cc:170]   StreamExecutor [0]: NVIDIA H100 80GB HBM3, Compute Capability 9.0a (Driver: 13.0.0[580.159.4]; Runtime: 13.0.0; Toolkit: 13.0.0; DNN: 9.19.0)", true},
		{"  StreamExecutor device (0): NVIDIA A100-PCIE-40GB, Compute Capability 8.0", true},
		{"  StreamExecutor device (0): NVIDIA H100 80GB HBM3, Compute Capability 9.0", true},
		{"  StreamExecutor device (0): NVIDIA H200 141GB HBM3e, Compute Capability 9.0", true},
		{"  StreamExecutor device (0): NVIDIA B200, Compute Capability 10.0", true},
		{"totalMemory: 11.17GiB freeMemory: 497.25MiB", true},
		{"Total memory: 11.92GiB\nFree memory: 11.81GiB", true},
		{"coreClock: 1.59GHz coreCount: 40 deviceMemorySize: 14.75GiB deviceMemoryBandwidth: 298.08GiB/s", true},
		{"Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38367 MB memory:  -> device: 0, name: NVIDIA A100-PCIE-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0", true},
		{"Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10802 MB memory) -> physical GPU (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:01:00.0, compute capability: 6.1)", true},
		{"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |", true},
		{"| N/A   34C    P0             70W /  700W |   61437MiB /  81559MiB |      0%      Default |", true},
		{"|    0   N/A  N/A            4242      C   python3                               58000MiB |", true},
		{"|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG |", true},
		{"index, name, memory.used [MiB], memory.total [MiB]", true},
		{"0, NVIDIA H100 80GB HBM3, 61437 MiB, 81559 MiB", true},
		{"CUDA_VISIBLE_DEVICES=2,3", true},
		{"W1122 10:54:50.127149    2541 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally", true},
		{"Can't reduce memory use below 1.00GiB by rematerialization (only reduced to 1.50GiB)", true},
		// No scan key: docs/devices.md, "Cues, and the lines no cue can pass".
		{"E1126 11:18:22.643337    3226 gpu_hlo_schedule.cc:1068] The byte size of input/output arguments (100000000004) exceeds the base limit (63763906560). This indicates an error in the calculation!", false},
		{"  StreamExecutor device (0): Tesla T4, Compute Capability 7.5", false},
		{"Found device 0 with properties: ", false},
		{"| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |", false},
		{"|   0  Tesla T4            On   | 00000000:00:1E.0 Off |                    0 |", false},
	}
	for _, tt := range tests {
		if got := z.MayContain(tt.line); got != tt.pass {
			t.Errorf("MayContain = %v, want %v: %q", got, tt.pass, tt.line)
		}
	}
}

// TestJobsThroughPrefilter: each job log, a line per record through the one pass as the processor reads a
// raw feed, gives the facts it gives read whole, but for what docs/devices.md lists as unpassable.
func TestJobsThroughPrefilter(t *testing.T) {
	z := throughPrefilter(t)
	logs, _ := filepath.Glob("../../testdata/jobs/*.log")
	if len(logs) == 0 {
		t.Fatal("no job logs")
	}
	for _, path := range logs {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var whole, split startup.Process
		whole.Read(string(raw))
		for l := range strings.SplitSeq(string(raw), "\n") {
			if z.MayContain(l) {
				split.Read(l)
			}
		}
		want, got := whole.Device(-1), split.Device(-1)
		if want.PlanSource == startup.PlanScheduler {
			// The scheduler's line holds no scan key: the plan is lost through the prefilter.
			if got.PlanSource != "" {
				t.Errorf("%s: the scheduler's plan passed the prefilter: docs/devices.md says it cannot", path)
			}
			want.PlanPeak, want.PlanLimit, want.PlanSource = got.PlanPeak, got.PlanLimit, got.PlanSource
		}
		if !equalDevice(got, want) {
			t.Errorf("%s: through the prefilter %+v, whole %+v", filepath.Base(path), got, want)
		}
	}
}

// TestTableThroughPrefilter: an nvidia-smi table split line by line through the one pass gives the same
// memory and holders as the table read whole; only the models (GPU rows, no scan key) are lost.
func TestTableThroughPrefilter(t *testing.T) {
	z := throughPrefilter(t)
	table := `| NVIDIA-SMI 535.86.10    Driver Version: 535.86.10    CUDA Version: 12.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            On   | 00000000:00:1E.0 Off |                    0 |
| N/A   34C    P8     9W /  70W |      0MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
|   1  Tesla T4            On   | 00000000:00:1F.0 Off |                    0 |
| N/A   36C    P0    30W /  70W |   9000MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
|    1   N/A  N/A     31337      C   /usr/bin/python3                 8996MiB |`
	var whole, split startup.Process
	whole.Read("CUDA_VISIBLE_DEVICES=1")
	split.Read("CUDA_VISIBLE_DEVICES=1")
	whole.Read(table)
	for l := range strings.SplitSeq(table, "\n") {
		if z.MayContain(l) {
			split.Read(l)
		}
	}
	w, s := whole.Device(0), split.Device(0)
	if w.Model != "Tesla T4" || s.Model != "" {
		t.Errorf("models: whole %q, split %q", w.Model, s.Model)
	}
	w.Model, w.Capacity, w.CapacitySource = "", s.Capacity, s.CapacitySource
	if _, held := s.Held(); !held || !equalDevice(w, s) || len(s.Holders) != 1 {
		t.Errorf("through the prefilter %+v, whole %+v", s, w)
	}
}

func equalDevice(a, b startup.Device) bool {
	return strings.Join(a.Holders, "\n") == strings.Join(b.Holders, "\n") &&
		a.Model == b.Model && a.Capacity == b.Capacity && a.CapacitySource == b.CapacitySource &&
		a.Free == b.Free && a.FreeTotal == b.FreeTotal && a.FreeSource == b.FreeSource &&
		a.FreeByPosition == b.FreeByPosition && a.Pool == b.Pool && a.PoolBasis == b.PoolBasis &&
		a.PlanPeak == b.PlanPeak && a.PlanLimit == b.PlanLimit && a.PlanSource == b.PlanSource
}
