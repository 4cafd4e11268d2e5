// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// smi580Free is the table nvidia-smi 580.159.04 printed on an idle H100 (oom/testdata/real/manifest.json).
func smi580Free(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile("../../testdata/real/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Versions struct {
			NvidiaSMI string `json:"nvidia_smi"`
		} `json:"versions"`
	}
	if err := json.Unmarshal(raw, &m); err != nil || !strings.Contains(m.Versions.NvidiaSMI, "NVIDIA-SMI 580") {
		t.Fatalf("no nvidia-smi table in the manifest (%v)", err)
	}
	return m.Versions.NvidiaSMI
}

// smi580Held is the same driver's layout with another process holding 58000 MiB (oom/testdata/startup).
var smi580Held = func() string {
	b, err := os.ReadFile("../../testdata/startup/nvidia-smi-580-held.txt")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// smi535 is the driver 535 layout of NVIDIA's Container Toolkit docs ("Running a Sample Workload"), with a
// process row in the columns its header names.
const smi535 = `+-----------------------------------------------------------------------------+
| NVIDIA-SMI 535.86.10    Driver Version: 535.86.10    CUDA Version: 12.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla T4            On   | 00000000:00:1E.0 Off |                    0 |
| N/A   34C    P8     9W /  70W |   9000MiB / 15109MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|    0   N/A  N/A     31337      C   /usr/bin/python3                 8996MiB |
+-----------------------------------------------------------------------------+`

// smi418 is an older driver's layout (no MIG columns), two GPUs, the second held.
const smi418 = `+-----------------------------------------------------------------------------+
| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla V100-SXM2...  On   | 00000000:00:1B.0 Off |                    0 |
| N/A   40C    P0    40W / 300W |      0MiB / 16130MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
|   1  Tesla V100-SXM2...  On   | 00000000:00:1C.0 Off |                    0 |
| N/A   41C    P0    55W / 300W |  12011MiB / 16130MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                       GPU Memory |
|  GPU       PID   Type   Process name                             Usage      |
|=============================================================================|
|    1      7771      C   python                                     12001MiB |
+-----------------------------------------------------------------------------+`

// fourGPUs is a 580-layout table of four H100s; GPU 2 is held.
func fourGPUs() string {
	var b strings.Builder
	b.WriteString("| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |\n")
	b.WriteString("| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n")
	for i, used := range []string{"      0", "      0", "  61437", "      0"} {
		b.WriteString("|   " + string(rune('0'+i)) + "  NVIDIA H100 80GB HBM3          On  |   00000000:1" + string(rune('0'+i)) + ":00.0 Off |                    0 |\n")
		b.WriteString("| N/A   34C    P0             70W /  700W | " + used + "MiB /  81559MiB |      0%      Default |\n")
	}
	b.WriteString("|    2   N/A  N/A            4242      C   python3                               58000MiB |\n")
	return b.String()
}

const h100Total = 81559 << 20

// TestNvidiaSMI: a table printed before the framework gives the memory free at start and its holders,
// read for the framework's ordinal (CUDA_VISIBLE_DEVICES remapped, MIG refused).
func TestNvidiaSMI(t *testing.T) {
	xla0 := "I1126 11:16:29.738180     786 gpu_helpers.cc:162] XLA backend allocating 59.38GiB (63763906560 bytes) on device 0 for BFCAllocator."
	tests := []struct {
		name    string
		records []string
		ordinal int
		want    Device
		held    bool
		whole   bool
	}{
		{
			name:    "580, idle H100 (real)",
			records: []string{"smi580Free"},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known(h100Total), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI},
			whole: true,
		},
		{
			name:    "580, another process holds 58000 MiB, then XLA's pool",
			records: []string{smi580Held, xla0},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known((81559 - 61437) << 20), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Holders: []string{"python3 (pid 4242) 58000 MiB"}, Pool: known(63763906560), PoolBasis: BasisShare},
			held: true,
		},
		{
			name:    "535 layout, T4 held",
			records: []string{smi535},
			want: Device{Model: "Tesla T4", Capacity: known(15109 << 20), CapacitySource: SourceNvidiaSMI,
				Free: known((15109 - 9000) << 20), FreeTotal: known(15109 << 20), FreeSource: SourceNvidiaSMI,
				Holders: []string{"/usr/bin/python3 (pid 31337) 8996 MiB"}},
			held: true,
		},
		{
			name:    "418 layout, two GPUs, ordinal 1 by position",
			records: []string{smi418},
			ordinal: 1,
			want: Device{Model: "Tesla V100-SXM2...", Capacity: known(16130 << 20), CapacitySource: SourceNvidiaSMI,
				Free: known((16130 - 12011) << 20), FreeTotal: known(16130 << 20), FreeSource: SourceNvidiaSMI,
				FreeByPosition: true, Holders: []string{"python (pid 7771) 12001 MiB"}},
			held: true,
		},
		{
			name:    "418 layout, ordinal 0 free by position: not the whole for sure",
			records: []string{smi418},
			want: Device{Model: "Tesla V100-SXM2...", Capacity: known(16130 << 20), CapacitySource: SourceNvidiaSMI,
				Free: known(16130 << 20), FreeTotal: known(16130 << 20), FreeSource: SourceNvidiaSMI, FreeByPosition: true},
		},
		{
			name:    "CUDA_VISIBLE_DEVICES=2,3: ordinal 0 is GPU 2",
			records: []string{"CUDA_VISIBLE_DEVICES=2,3", fourGPUs(), xla0},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known((81559 - 61437) << 20), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Holders: []string{"python3 (pid 4242) 58000 MiB"}, Pool: known(63763906560), PoolBasis: BasisShare},
			held: true,
		},
		{
			name:    "CUDA_VISIBLE_DEVICES: 3,2 (a colon), ordinal 1 is GPU 2",
			records: []string{"CUDA_VISIBLE_DEVICES: 3,2", fourGPUs()},
			ordinal: 1,
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known((81559 - 61437) << 20), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Holders: []string{"python3 (pid 4242) 58000 MiB"}},
			held: true,
		},
		{
			name:    "a GPU UUID among four: no row is known to be the device",
			records: []string{"CUDA_VISIBLE_DEVICES=GPU-5b4a1e2c-0f3d-4c55-9a7e-1d2f3a4b5c6d", fourGPUs(), xla0},
			want:    Device{Pool: known(63763906560), PoolBasis: BasisShare},
		},
		{
			name:    "a MIG UUID: no nvidia-smi memory",
			records: []string{"export CUDA_VISIBLE_DEVICES=MIG-8ef4c9b2-1b1e-5a7b-9f0e-3b8c2d1a0f9e", smi580Held},
		},
		{
			name:    "a MIG devices section: the GPU row is not one device",
			records: []string{smi580Held + "\n| MIG devices:                                                                            |\n|  0    1   0   0  |          4096MiB /  9984MiB  | 14      0 |  1   0    0    0    0 |"},
		},
		{
			name:    "MIG M. Enabled on the GPU: no nvidia-smi memory",
			records: []string{strings.Replace(smi580Held, "            Disabled |", "             Enabled |", 1)},
		},
		{
			name: "the MIG section a line per record (its BAR1-Usage header)",
			records: append(strings.Split(smi580Held, "\n"),
				"| GPU  GI  CI  MIG |         Memory-Usage |        Vol|         Shared        |",
				"|      ID  ID  Dev |           BAR1-Usage | SM     Unc| CE  ENC  DEC  OFA  JPG |",
				"|  0    1   0   0  |          4096MiB /  9984MiB  | 14      0 |  1   0    0    0    0 |"),
		},
		{
			name:    "the table a line per record",
			records: strings.Split(smi580Held, "\n"),
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known((81559 - 61437) << 20), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Holders: []string{"python3 (pid 4242) 58000 MiB"}},
			held: true,
		},
		{
			name:    "the framework names another model: the row is not this device",
			records: []string{smi580Held, "  StreamExecutor device (0): NVIDIA A100-PCIE-40GB, Compute Capability 8.0"},
			want:    Device{Model: "NVIDIA A100-PCIE-40GB", Capacity: known(40 * gib), CapacitySource: SourceModel},
		},
		{
			name:    "the CSV query, memory only",
			records: []string{"memory.used [MiB], memory.total [MiB]\n20195 MiB, 32607 MiB"},
			want: Device{Capacity: known(32607 << 20), CapacitySource: SourceNvidiaSMI,
				Free: known((32607 - 20195) << 20), FreeTotal: known(32607 << 20), FreeSource: SourceNvidiaSMI},
			held: true,
		},
		{
			name: "the CSV query with index and name, a line per record, CUDA_VISIBLE_DEVICES=1",
			records: []string{"CUDA_VISIBLE_DEVICES=1", "index, name, memory.used [MiB], memory.total [MiB]",
				"0, NVIDIA H100 80GB HBM3, 0 MiB, 81559 MiB", "1, NVIDIA H100 80GB HBM3, 61437 MiB, 81559 MiB", xla0},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known((81559 - 61437) << 20), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Pool: known(63763906560), PoolBasis: BasisShare},
			held: true,
		},
		{
			name:    "the CSV query with memory.free",
			records: []string{"memory.free [MiB], memory.total [MiB]", "81000 MiB, 81559 MiB"},
			want: Device{Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known(81000 << 20), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI},
			whole: true,
		},
		{
			name:    "the CSV query after the pool: a monitor's",
			records: []string{xla0, "memory.used [MiB], memory.total [MiB]", "61437 MiB, 81559 MiB"},
			want:    Device{Pool: known(63763906560), PoolBasis: BasisShare},
		},
		{
			name:    "a CSV row that is not the header's shape",
			records: []string{"memory.used [MiB], memory.total [MiB]", "61437 MiB, 81559 MiB, 3 MiB", "x MiB, 81559 MiB"},
		},
		{
			name:    "a monitor loop's table after the pool is never read",
			records: []string{smi580Free(t), xla0, smi580Held},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known(h100Total), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Pool: known(63763906560), PoolBasis: BasisShare},
			whole: true,
		},
		{
			name:    "a second table before the framework is ignored",
			records: []string{smi580Free(t), smi580Held, xla0},
			want: Device{Model: "NVIDIA H100 80GB HBM3", Capacity: known(h100Total), CapacitySource: SourceNvidiaSMI,
				Free: known(h100Total), FreeTotal: known(h100Total), FreeSource: SourceNvidiaSMI,
				Pool: known(63763906560), PoolBasis: BasisShare},
			whole: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Process
			for _, r := range tt.records {
				if r == "smi580Free" {
					r = smi580Free(t)
				}
				p.Read(r)
			}
			got := p.Device(tt.ordinal)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
			if _, held := got.Held(); held != tt.held {
				t.Errorf("Held = %v, want %v", held, tt.held)
			}
			if whole := got.WholeFree(); whole != tt.whole {
				t.Errorf("WholeFree = %v, want %v", whole, tt.whole)
			}
		})
	}
}

// TestSameFeed: a table or a TensorFlow device record gives the same facts as one record and as a line per
// record (as the agent's rules or a raw feed deliver it).
func TestSameFeed(t *testing.T) {
	texts := []string{smi580Held, smi535, smi418, fourGPUs(), "index, name, memory.used [MiB], memory.total [MiB]\n0, NVIDIA H100 80GB HBM3, 0 MiB, 81559 MiB\n1, NVIDIA H100 80GB HBM3, 61437 MiB, 81559 MiB",
		"Found device 0 with properties: \nname: Tesla K80 major: 3 minor: 7 memoryClockRate(GHz): 0.8235\npciBusID: 0000:00:04.0\ntotalMemory: 11.17GiB freeMemory: 497.25MiB"}
	for _, text := range texts {
		var whole, lines Process
		whole.Read(text)
		for l := range strings.SplitSeq(text, "\n") {
			lines.Read(l)
		}
		for o := range 4 {
			if a, b := whole.Device(o), lines.Device(o); !reflect.DeepEqual(a, b) {
				t.Errorf("%.40q ordinal %d: one record %+v, a line per record %+v", text, o, a, b)
			}
		}
	}
}

// TestHeldThreshold: max(1 GiB, 5% of the total).
func TestHeldThreshold(t *testing.T) {
	tests := []struct {
		total, free int64
		held        bool
	}{
		{h100Total, h100Total - 500<<20, false},          // a context's few hundred MiB
		{h100Total, h100Total - 3<<30, false},            // under 5% of 79.6 GiB
		{h100Total, h100Total - 4200<<20, true},          // over it
		{15109 << 20, (15109 - 1000) << 20, false},       // a T4: 1 GiB is the floor
		{15109 << 20, (15109 - 1100) << 20, true},        //
		{11993696174, 521404416, true},                   // TensorFlow 1's 497.25MiB free of 11.17GiB
		{16130 << 20, 16130 << 20, false},                //
		{16130 << 20, 17000 << 20, false},                // free over total (unreadable): nothing held
		{2 << 30, 0, true},                               //
		{h100Total, h100Total - (h100Total / 20), false}, // exactly 5%: not above
	}
	for _, tt := range tests {
		d := Device{Free: known(tt.free), FreeTotal: known(tt.total)}
		if _, held := d.Held(); held != tt.held {
			t.Errorf("total %d free %d: held %v, want %v", tt.total, tt.free, held, tt.held)
		}
		if d.WholeFree() == tt.held {
			t.Errorf("total %d free %d: WholeFree %v", tt.total, tt.free, d.WholeFree())
		}
	}
	if _, held := (Device{Free: known(1)}).Held(); held {
		t.Error("Free without FreeTotal: held")
	}
}

// TestCopied: a Process kept by value (copied between records, as a map of streams does) reads a table
// split across records as one kept in place does.
func TestCopied(t *testing.T) {
	var inPlace, copied Process
	streams := map[string]Process{}
	for l := range strings.SplitSeq(smi580Held, "\n") {
		inPlace.Read(l)
		p := streams["job"]
		p.Read(l)
		streams["job"] = p
	}
	copied = streams["job"]
	if a, b := inPlace.Device(0), copied.Device(0); !reflect.DeepEqual(a, b) || len(b.Holders) != 1 {
		t.Errorf("in place %+v, copied %+v", a, b)
	}
}
