// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"reflect"
	"testing"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

func known(n int64) grammar.Size { return grammar.KnownSize(n) }

const gib = 1 << 30

// TestLines: each start-up or plan line, on its own, gives its facts; the text is the real line where a
// captured log has it (oom/testdata), else the format string of the source and version named.
func TestLines(t *testing.T) {
	tests := []struct {
		name, source string
		lines        []string // one Read each
		ordinal      int
		want         Device
	}{
		{
			name:   "xla pool 2026, human size",
			source: "gpu_helpers.cc CreateBFCAllocator, XLA 2026-06 on (jaxlib 0.11.2, oom/testdata/jobs)",
			lines:  []string{"I1126 11:16:29.738180     786 gpu_helpers.cc:162] XLA backend allocating 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator."},
			want:   Device{Pool: known(63763906560), PoolBasis: BasisShare},
		},
		{
			name:   "xla pool, raw bytes",
			source: "gpu_helpers.cc CreateBFCAllocator, XLA 2022-10 to 2026-06 (oom/testdata/ordinary.txt)",
			lines:  []string{"I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136] XLA backend allocating 16491332239 bytes on device 0 for BFCAllocator."},
			want:   Device{Pool: known(16491332239), PoolBasis: BasisShare},
		},
		{
			name:    "xla pool, raw bytes, device 1",
			source:  "gpu_helpers.cc CreateBFCAllocator, XLA 2022-10 to 2026-06",
			lines:   []string{"I0919 10:23:34.566053 1017489 gpu_helpers.cc:136] XLA backend allocating 63763906560 bytes on device 1 for BFCAllocator."},
			ordinal: 1,
			want:    Device{Pool: known(63763906560), PoolBasis: BasisShare},
		},
		{
			name:   "xla pool, raw bytes, no header",
			source: "gpu_helpers.cc CreateBFCAllocator, XLA 2022-10 to 2026-06",
			lines:  []string{"XLA backend allocating 63763906560 bytes on device 0 for BFCAllocator."},
			want:   Device{Pool: known(63763906560), PoolBasis: BasisShare},
		},
		{
			name:   "xla pool, printed by gpu_device.cc: sized from the free memory",
			source: "xla/pjrt/gpu_device.cc, XLA before 2022-10 (pool = free × 0.9)",
			lines:  []string{"2021-06-01 12:00:00.123456: I external/org_tensorflow/tensorflow/compiler/xla/pjrt/gpu_device.cc:326] XLA backend allocating 10161160192 bytes on device 0 for BFCAllocator."},
			want:   Device{Pool: known(10161160192), PoolBasis: BasisFreeAtStart},
		},
		{
			name:   "xla pool, growth (no preallocation), human size",
			source: "gpu_helpers.cc, XLA 2026-06 on (oom/testdata/jobs/prealloc_false_leak_oom.log)",
			lines:  []string{"I1126 11:17:23.553679    1915 gpu_helpers.cc:165] XLA backend will use up to 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator."},
			want:   Device{Pool: known(63763906560), PoolBasis: BasisShare},
		},
		{
			name:   "xla pool, growth, raw bytes",
			source: "gpu_helpers.cc, XLA 2019-05 to 2026-06",
			lines:  []string{"XLA backend will use up to 21254635520 bytes on device 0 for BFCAllocator."},
			want:   Device{Pool: known(21254635520), PoolBasis: BasisShare},
		},
		{
			name:   "xla 2019 reserving: a share of the free memory",
			source: "xla/python/local_client.cc, XLA 2019-05-15 to 2019-05-31",
			lines:  []string{"XLA backend reserving 14602792550 out of 16225325056 bytes on device 0 for BFCAllocator."},
			want:   Device{Pool: known(14602792550), PoolBasis: BasisFreeAtStart, Free: known(16225325056), FreeSource: SourceXLA},
		},
		{
			name:   "collective pool: a separate pool, not read",
			source: "gpu_helpers.cc CreateCollectiveBFCAllocator, XLA 2024-01 on (oom/testdata/jobs)",
			lines:  []string{"I1126 11:17:23.553704    1915 gpu_helpers.cc:206] XLA backend will use up to 21254635520 bytes on device 0 for CollectiveBFCAllocator."},
		},
		{
			name:   "cuda async pool",
			source: "se_gpu_pjrt_client.cc CreateCudaAsyncAllocator, XLA 2022-06 on (oom/testdata/jobs/cuda_async_near_full_oom.log)",
			lines:  []string{"I1126 11:17:57.835107    2708 se_gpu_pjrt_client.cc:1233] XLA backend allocating 63763120128 bytes on device 0 for CudaAsyncAllocator."},
			want:   Device{Pool: known(63763120128), PoolBasis: BasisShare},
		},
		{
			name:   "vmm budget",
			source: "cuda_device_address_vmm_allocator.cc, XLA 2026-06 on (oom/testdata/real/vmm_jit.stderr.txt)",
			lines:  []string{"I1124 17:50:37.058445     888 cuda_device_address_vmm_allocator.cc:96] VMM device-address allocator pa_budget for device 0: 63763120128 bytes."},
			want:   Device{Pool: known(63763120128), PoolBasis: BasisShare},
		},
		{
			name:   "vmm budget, first name",
			source: "cuda_device_address_vmm_allocator.cc, XLA 2026-03 to 2026-06",
			lines:  []string{"VMM allocator pa_budget for device 0: 63763120128 bytes."},
			want:   Device{Pool: known(63763120128), PoolBasis: BasisShare},
		},
		{
			name:   "stream executor device, 2017-2026",
			source: "xla/service/service.cc Service::Service, 2017-01 to 2026-01 (oom/testdata/ordinary.txt)",
			lines:  []string{"2024-05-28 07:02:44.349601: I external/xla/xla/service/service.cc:176]   StreamExecutor device (0): NVIDIA A100-SXM4-80GB, Compute Capability 8.0"},
			want:   Device{Model: "NVIDIA A100-SXM4-80GB", Capacity: known(80 * gib), CapacitySource: SourceModel},
		},
		{
			name:   "stream executor, 2026",
			source: "xla/service/service.cc, 2026-01 on (oom/testdata/jobs)",
			lines:  []string{"I1126 11:16:29.736160     786 service.cc:170]   StreamExecutor [0]: NVIDIA H100 80GB HBM3, Compute Capability 9.0a (Driver: 13.0.0[580.159.4]; Runtime: 13.0.0; Toolkit: 13.0.0; DNN: 9.19.0)"},
			want:   Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(80 * gib), CapacitySource: SourceModel},
		},
		{
			name:   "stream executor, ROCm",
			source: "xla/service/service.cc, ROCm platform version",
			lines:  []string{"  StreamExecutor device (0): AMD Instinct MI300X OAM, AMDGPU ISA version: gfx942:sramecc+:xnack-"},
			want:   Device{Model: "AMD Instinct MI300X OAM", Capacity: known(192 * gib), CapacitySource: SourceModel},
		},
		{
			name:   "tensorflow 1.4-1.13 found device, one record",
			source: "gpu_device.cc GetValidDeviceIds, TF v1.4.0 to v1.13",
			lines: []string{"2018-05-02 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1356] Found device 0 with properties: \n" +
				"name: Tesla K80 major: 3 minor: 7 memoryClockRate(GHz): 0.8235\npciBusID: 0000:00:04.0\ntotalMemory: 11.17GiB freeMemory: 497.25MiB"},
			want: Device{Capacity: known(11993696174), CapacitySource: SourceTensorFlow,
				Free: known(521404416), FreeTotal: known(11993696174), FreeSource: SourceTensorFlow},
		},
		{
			name:   "tensorflow 1.4-1.13 found device, a line per record",
			source: "gpu_device.cc GetValidDeviceIds, TF v1.4.0 to v1.13",
			lines: []string{"2018-05-02 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1356] Found device 0 with properties: ",
				"totalMemory: 11.17GiB freeMemory: 497.25MiB"},
			want: Device{Capacity: known(11993696174), CapacitySource: SourceTensorFlow,
				Free: known(521404416), FreeTotal: known(11993696174), FreeSource: SourceTensorFlow},
		},
		{
			name:   "tensorflow 0.5-1.3 found device",
			source: "gpu_init.cc / gpu_device.cc, TF v0.5 to v1.3",
			lines: []string{"I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 1 with properties: \nname: GeForce GTX TITAN X\n" +
				"major: 5 minor: 2 memoryClockRate (GHz) 1.076\npciBusID 0000:03:00.0\nTotal memory: 11.92GiB\nFree memory: 11.81GiB"},
			ordinal: 1,
			want: Device{Capacity: known(12799002542), CapacitySource: SourceTensorFlow,
				Free: known(12680890941), FreeTotal: known(12799002542), FreeSource: SourceTensorFlow},
		},
		{
			name:   "tensorflow 2.1+ found device: the total only",
			source: "gpu_device.cc GetValidDeviceIds, TF v2.1.0 on (VLOG(1) in newer releases)",
			lines: []string{"2020-03-01 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1555] Found device 0 with properties: \n" +
				"pciBusID: 0000:00:04.0 name: Tesla T4 computeCapability: 7.5\ncoreClock: 1.59GHz coreCount: 40 deviceMemorySize: 14.75GiB deviceMemoryBandwidth: 298.08GiB/s"},
			want: Device{Capacity: known(15837691904), CapacitySource: SourceTensorFlow},
		},
		{
			name:   "tensorflow 2 created device, H100",
			source: "gpu_device.cc CreateGPUDevice, TF 2.x to current (oom/testdata/ordinary.txt)",
			lines:  []string{"2023-11-07 19:30:02.771234: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 78924 MB memory:  -> device: 0, name: NVIDIA H100 80GB HBM3, pci bus id: 0000:18:00.0, compute capability: 9.0"},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(80 * gib), CapacitySource: SourceModel,
				Pool: known(78924 << 20), PoolBasis: BasisFreeAtStart},
		},
		{
			name:   "tensorflow 2 created device",
			source: "gpu_device.cc CreateGPUDevice, TF 2.x (between v2.2 and v2.7) to current",
			lines:  []string{"2023-01-01 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1613] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38367 MB memory:  -> device: 0, name: NVIDIA A100-PCIE-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0"},
			want: Device{Model: "NVIDIA A100-PCIE-40GB", Capacity: known(40 * gib), CapacitySource: SourceModel,
				Pool: known(38367 << 20), PoolBasis: BasisFreeAtStart},
		},
		{
			name:   "tensorflow 1.7-2.2 created tensorflow device",
			source: "gpu_device.cc CreateGPUDevice, TF v1.7.0 to v2.2",
			lines:  []string{"2019-01-01 10:11:12.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 10802 MB memory) -> physical GPU (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:01:00.0, compute capability: 6.1)"},
			want:   Device{Model: "GeForce GTX 1080 Ti", Pool: known(10802 << 20), PoolBasis: BasisFreeAtStart},
		},
		{
			name:   "tensorflow 1.6 creating tensorflow device",
			source: "gpu_device.cc CreateGPUDevice, TF v1.6.0",
			lines:  []string{"Creating TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 15123 MB memory) -> physical GPU (device: 0, name: Tesla V100-SXM2-16GB, pci bus id: 0000:00:1e.0, compute capability: 7.0)"},
			want: Device{Model: "Tesla V100-SXM2-16GB", Capacity: known(16 * gib), CapacitySource: SourceModel,
				Pool: known(15123 << 20), PoolBasis: BasisFreeAtStart},
		},
		{
			name:   "tensorflow pluggable device: not read",
			source: "pluggable_device_factory.cc, TF recent",
			lines:  []string{"Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with 0 MB memory) -> physical PluggableDevice (device: 0, name: METAL, pci bus id: <undefined>)"},
		},
		{
			name:   "scheduler: I/O over the base limit",
			source: "gpu_hlo_schedule.cc GetSchedulerMemoryLimit, XLA 2025-03 on (oom/testdata/jobs/caught_oom_halving_exit0.log)",
			lines:  []string{"E1126 11:18:22.643337    3226 gpu_hlo_schedule.cc:1068] The byte size of input/output arguments (100000000004) exceeds the base limit (63763906560). This indicates an error in the calculation!"},
			want:   Device{PlanPeak: known(100000000004), PlanLimit: known(63763906560), PlanSource: PlanScheduler},
		},
		{
			name:   "rematerialization, 2023-07 on",
			source: "hlo_rematerialization.cc HloRematerialization::Run, XLA 2023-07 on (oom/testdata/real)",
			lines:  []string{"W1122 10:54:50.127149    2541 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally"},
			want:   Device{PlanPeak: known(75003125004), PlanLimit: known(60574761232), PlanSource: PlanRematerialization},
		},
		{
			name:   "rematerialization, 2017-09 to 2023-07",
			source: "hlo_rematerialization.cc, XLA 2017-09-05 to 2023-07-12",
			lines:  []string{"Can't reduce memory use below 1.00GiB (1073741824 bytes) by rematerialization; only reduced to 1.50GiB (1610612736 bytes)"},
			want:   Device{PlanPeak: known(1610612736), PlanLimit: known(1073741824), PlanSource: PlanRematerialization},
		},
		{
			name:   "rematerialization, 2017-02",
			source: "hlo_rematerialization.cc, XLA 2017-02-10 to 2017-09-05",
			lines:  []string{"Can't reduce memory use below 1.00GiB by rematerialization (only reduced to 1.50GiB)"},
			want:   Device{PlanPeak: known(1610612736), PlanLimit: known(gib), PlanSource: PlanRematerialization},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Process
			took := false
			for _, l := range tt.lines {
				took = p.Read(l) || took
			}
			if got := p.Device(tt.ordinal); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s\n got %+v\nwant %+v", tt.source, got, tt.want)
			}
			if want := !reflect.DeepEqual(tt.want, Device{}); took != want {
				t.Errorf("Read = %v, want %v", took, want)
			}
		})
	}
}
