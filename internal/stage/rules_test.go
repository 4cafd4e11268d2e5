// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package stage

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// agentRecords splits a log into records as the agent groups them: a line
// with a log header starts one, any other joins it.
func agentRecords(log string) []string {
	var recs []string
	for line := range strings.Lines(log) {
		line = strings.TrimRight(line, "\n")
		if oom.StartsRecord(line) || len(recs) == 0 {
			recs = append(recs, line)
		} else {
			recs[len(recs)-1] += "\n" + line
		}
	}
	return recs
}

// wholeLog feeds a job's whole log to a new stage, record by record, and
// returns the failures it closed.
func wholeLog(t *testing.T, log string) []assembly.Failure {
	t.Helper()
	f := &feeder{s: newStage(), in: Input{Resource: 1, Stream: 1, At: t0, Now: t0}}
	for _, rec := range agentRecords(log) {
		if at, ok := oom.HeaderTime(rec); ok {
			f.in.At, f.in.Now = at, at
		}
		f.record(rec, Marks{})
	}
	return f.s.Assembler.Flush(f.closed)
}

func jobLog(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../oom/testdata/jobs/" + name)
	require.NoError(t, err)
	return string(b)
}

// idleTable is the table nvidia-smi 580.159.04 printed on the idle H100 the
// real captures ran on (oom/testdata/real/manifest.json).
func idleTable(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../oom/testdata/real/manifest.json")
	require.NoError(t, err)
	var m struct {
		Versions struct {
			NvidiaSMI string `json:"nvidia_smi"`
		}
	}
	require.NoError(t, json.Unmarshal(raw, &m))
	require.Contains(t, m.Versions.NvidiaSMI, "NVIDIA-SMI 580")
	return m.Versions.NvidiaSMI + "\n"
}

// heldTable is the same driver's layout as a job script prints it with
// another process holding 58000 MiB of GPU 0.
func heldTable(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../oom/testdata/startup/nvidia-smi-580-held.txt")
	require.NoError(t, err)
	return string(b)
}

// tf1 is a TensorFlow 1.x job (gpu_device.cc's "Found device" block of
// v1.4-v1.13 and "Created TensorFlow device" of v1.7+, bfc_allocator.cc's
// dump and Stats of v1.x, op_kernel.cc's OOM and the raised
// ResourceExhaustedError), with the device's free memory and pool as given.
func tf1(free, pool, inUse, request string) string {
	return `2019-01-15 10:11:12.345678: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1432] Found device 0 with properties: 
name: GeForce GTX 1080 Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582
pciBusID: 0000:01:00.0
totalMemory: 11.17GiB freeMemory: ` + free + `
2019-01-15 10:11:12.400000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0 with ` + pool + ` MB memory) -> physical GPU (device: 0, name: GeForce GTX 1080 Ti, pci bus id: 0000:01:00.0, compute capability: 6.1)
2019-01-15 10:12:00.000000: W tensorflow/core/common_runtime/bfc_allocator.cc:267] Allocator (GPU_0_bfc) ran out of memory trying to allocate ` + request + `.  Current allocation summary follows.
2019-01-15 10:12:00.000100: I tensorflow/core/common_runtime/bfc_allocator.cc:678] Stats: 
Limit:                   ` + mib(pool) + `
InUse:                   ` + inUse + `
MaxInUse:                ` + inUse + `
NumAllocs:                       1234
MaxAllocSize:               100663296
2019-01-15 10:12:00.100000: W tensorflow/core/framework/op_kernel.cc:1273] OP_REQUIRES failed at conv_ops.cc:446 : Resource exhausted: OOM when allocating tensor with shape[64,64,112,112] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
Traceback (most recent call last):
  File "/home/me/train.py", line 41, in <module>
    sess.run(train_op)
tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[64,64,112,112] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
`
}

// mib is n MiB in bytes, as Stats prints them.
func mib(n string) string {
	var v int64
	for _, c := range n {
		v = v*10 + int64(c-'0')
	}
	return itoa(v << 20)
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}

// TestRulesOnWholeLogs: each rule that reads the job's start-up lines
// decides a whole job's log, each line in a format its framework or tool
// prints (source and version at each), with the facts on the failure.
func TestRulesOnWholeLogs(t *testing.T) {
	for _, c := range []struct {
		name     string
		log      string
		decision oom.Decision
		check    func(t *testing.T, f *assembly.Failure)
	}{
		{
			// The TensorFlow case the verdict must never call futile: 10.7 GB of the card held before the
			// job began, a 272 MiB pool, and a restart on a free GPU runs.
			name: "TensorFlow 1: held at start", log: tf1("497.25MiB", "272", "200000000", "144.00MiB"),
			decision: oom.Decision{Verdict: oom.RetryMayHelp, Rule: "held at start"},
			check: func(t *testing.T, f *assembly.Failure) {
				held, ok := f.Facts.Start.Held()
				assert.True(t, ok)
				assert.Equal(t, oom.ParseSize("11.17GiB").Bytes-oom.ParseSize("497.25MiB").Bytes, held.Bytes)
				assert.Equal(t, oom.ActionFreeHeldMemory, f.Report.Action)
				assert.Contains(t, f.Report.Remediation[0], "Other processes held 10.68 GiB of this GPU when the program started")
				assert.Equal(t, oom.FrameworkTensorFlow, f.Report.Framework)
			},
		},
		{
			name: "TensorFlow 1: the whole device free, its own pool filled", log: tf1("10.91GiB", "10802", "11200000000", "144.00MiB"),
			decision: oom.Decision{Verdict: oom.RetryFutile, Rule: "own pool filled"},
			check: func(t *testing.T, f *assembly.Failure) {
				assert.True(t, f.Facts.Start.WholeFree())
			},
		},
		{
			name: "TensorFlow 1: its own pool filled, nothing said of the free memory",
			log: strings.Replace(tf1("10.91GiB", "10802", "11200000000", "144.00MiB"),
				"totalMemory: 11.17GiB freeMemory: 10.91GiB\n", "", 1),
			decision: oom.Decision{Verdict: oom.RetryUnknown, Rule: "own pool filled", Missing: oom.MissingPoolBasis},
		},
		{
			// The job script's nvidia-smi before the real job shared_gpu_backoff_then_oom: its holder shown.
			name: "nvidia-smi: held at start", log: heldTable(t) + jobLog(t, "shared_gpu_backoff_then_oom.log"),
			decision: oom.Decision{Verdict: oom.RetryMayHelp, Rule: "held at start"},
			check: func(t *testing.T, f *assembly.Failure) {
				assert.Equal(t, []string{"python3 (pid 4242) 58000 MiB"}, f.Facts.Start.Holders)
				assert.Contains(t, f.Report.Remediation[0], "python3 (pid 4242) 58000 MiB")
				assert.Equal(t, "nvidia-smi", f.Facts.Start.FreeSource)
			},
		},
		{
			// The idle H100's table before the real job autotune_in_training_step (XLA's 2026 pool line).
			name: "nvidia-smi: the device free, the pool a share", log: idleTable(t) + jobLog(t, "autotune_in_training_step.log"),
			decision: oom.Decision{Verdict: oom.RetryFutile, Rule: "own pool filled"},
			check: func(t *testing.T, f *assembly.Failure) {
				assert.Equal(t, "share", f.Facts.Start.PoolBasis)
				assert.Equal(t, "NVIDIA H100 80GB HBM3", f.Facts.Start.Model)
			},
		},
		{
			// XLA's pool line (gpu_helpers.cc, 2019-2026 form) and a rematerialization warning whose peak
			// (hlo_rematerialization.cc, 2023-07+ form; the real capture jit_output) exceeds the pool, then
			// the runtime's status of a small request.
			name: "JAX: the compiler's plan over the pool",
			log: "I1126 11:16:20.000000  786 gpu_helpers.cc:136] XLA backend allocating 63763906560 bytes on device 0 for BFCAllocator.\n" +
				"W1126 11:16:30.000000  786 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574014121 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally\n" +
				"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2.00GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_step']\n",
			decision: oom.Decision{Verdict: oom.RetryFutile, Rule: "plan over the pool"},
			check: func(t *testing.T, f *assembly.Failure) {
				assert.Equal(t, oom.KnownSize(75003125004), f.Facts.Start.PlanPeak)
			},
		},
		{
			// TensorFlow 2's device line (gpu_device.cc, v2.7+ form) names the model; a 44.7 GiB tensor
			// cannot fit an A100 40GB.
			name: "TensorFlow 2: larger than the device, from its model",
			log: "2024-05-02 09:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 38367 MB memory:  -> device: 0, name: NVIDIA A100-PCIE-40GB, pci bus id: 0000:00:04.0, compute capability: 8.0\n" +
				"2024-05-02 09:01:00.000000: W tensorflow/core/common_runtime/bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 44.70GiB (rounded to 48000000000)requested by op AddV2\n" +
				"tensorflow.python.framework.errors_impl.ResourceExhaustedError: {{function_node __wrapped__AddV2_device_/job:localhost/replica:0/task:0/device:GPU:0}} OOM when allocating tensor with shape[12000,1000,1000] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc [Op:AddV2]\n",
			decision: oom.Decision{Verdict: oom.RetryFutile, Rule: "larger than the device"},
			check: func(t *testing.T, f *assembly.Failure) {
				assert.Equal(t, "model", f.Facts.Start.CapacitySource)
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := wholeLog(t, c.log)
			require.Len(t, fs, 1)
			f := &fs[0]
			assert.Equal(t, c.decision, f.Decision)
			if c.check != nil {
				c.check(t, f)
			}
		})
	}
}
