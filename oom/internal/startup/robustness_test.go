// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"math/rand/v2"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestGarbage: 10,000 random lines, made of the cues, the real lines' pieces and random bytes, never panic
// and keep every answer within its bounds.
func TestGarbage(t *testing.T) {
	pieces := append([]string{
		"|", " ", "\n", "(", ")", ": ", ", ", "MiB", "GiB", " bytes", "-1", "99999999999999999999", "16", "0", "...",
		"device ", "on device ", " for BFCAllocator.", "allocating ", "out of ", "[", "]: ", "device (", "name: ",
		"with ", " MB memory", "device:GPU:", "freeMemory: ", "N/A", "C", "GPU-", "MIG-", "=", "Driver Version",
		"Can't reduce memory use below ", "only reduced to ", "input/output arguments (", "\xff\xfe", "\x00",
		phXLA, phExecutor, phVMM, phFound, phTotalMemory, phDeviceMemorySize, phTotalMemoryT1, phFreeMemoryT1,
		phTFCreated, phSMIColumns, "Disp.A", phSMIBusID, phSMIMiB, "MiB /", phSMIMIG, phSMIMIGEnabled, phCSVHeader,
		"memory.used [MiB]", " MiB, ", phVisible, phSchedule, phRemat,
	}, Cues...)
	r := rand.New(rand.NewPCG(45, 1))
	var p Process
	for i := range 10000 {
		var b strings.Builder
		for range 1 + r.IntN(24) {
			if r.IntN(5) == 0 {
				b.WriteByte(byte(r.IntN(256)))
			} else {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
		}
		line := b.String()
		p.Read(line)
		if i%97 == 0 {
			p.Ended()
		}
		for o := -1; o < MaxDevices+1; o++ {
			d := p.Device(o)
			if len(d.Holders) > MaxHolders || len(d.Model) > maxText || d.Free.Bytes < 0 || d.Pool.Bytes < 0 {
				t.Fatalf("out of bounds after %q: %+v", line, d)
			}
			d.Held()
			d.WholeFree()
		}
	}
}

// TestNoAllocation: a line without a cue costs no allocation.
func TestNoAllocation(t *testing.T) {
	var p Process
	lines := []string{
		"I1126 11:16:29.741244     786 pjrt_c_api_client.cc:186] PjRtCApiClient created.",
		"[job] 11:16:29 jax 0.11.2 devices [CudaDevice(id=0)]\nEpoch 1/10 loss 0.25",
		"",
	}
	for _, l := range lines {
		if n := testing.AllocsPerRun(100, func() { p.Read(l) }); n != 0 {
			t.Errorf("%q: %v allocations", l, n)
		}
	}
}

// TestModelsDocumented: docs/devices.md lists every row of Models with its memory; ModelMemory reads them.
func TestModelsDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/devices.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	seen := map[string]bool{}
	for _, m := range Models {
		if seen[m.Name] {
			t.Errorf("%s: two rows", m.Name)
		}
		seen[m.Name] = true
		if row := "| `" + m.Name + "` | " + strconv.FormatInt(m.GiB, 10) + " |"; !strings.Contains(doc, row) {
			t.Errorf("docs/devices.md has no row %q", row)
		}
		if got, ok := ModelMemory(m.Name); !ok || got.Bytes != m.GiB<<30 {
			t.Errorf("ModelMemory(%q) = %v, %v", m.Name, got, ok)
		}
	}
	for _, name := range []string{"", "NVIDIA A100-SXM4-80G...", "NVIDIA GeForce RTX 4070 Ti SUPER", "NVIDIA A100-SXM4-40GB MIG 1g.5gb"} {
		if _, ok := ModelMemory(name); ok {
			t.Errorf("ModelMemory(%q) known", name)
		}
	}
	for _, cue := range Cues {
		if !strings.Contains(doc, "`"+strings.ReplaceAll(cue, "|", `\|`)+"`") {
			t.Errorf("docs/devices.md does not name the cue %q", cue)
		}
	}
}

// TestResetClearsAll: reset clears only what was written, yet leaves the
// Process as a fresh one (the next process must not inherit a fact).
func TestResetClearsAll(t *testing.T) {
	var p Process
	for _, text := range []string{smi580Held, "CUDA_VISIBLE_DEVICES=0",
		"I0000 00:00:1758277414.566053 1017489 gpu_helpers.cc:136] XLA backend allocating 63763906560 bytes on device 0 for BFCAllocator.",
		"W1122 10:53:57.456290    1629 hlo_rematerialization.cc:3363] Can't reduce memory use below 56.41GiB (60574761232 bytes) by rematerialization; only reduced to 69.85GiB (75003125004 bytes), down from 69.85GiB (75003125004 bytes) originally",
		smi535} {
		p.Read(text)
	}
	n := p.processes
	p.reset(false)
	if !reflect.DeepEqual(p, Process{processes: n + 1}) {
		t.Errorf("reset left %+v", p)
	}
}
