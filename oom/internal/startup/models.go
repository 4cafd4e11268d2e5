// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package startup

import (
	"strings"

	"github.com/xlaoom/xlaoomprocessor/oom/internal/families/grammar"
)

// Model is one accelerator model by the name CUDA, HIP, nvidia-smi or JAX print, with its memory: the
// nominal size read in GiB, at least what the device reports (an upper bound, so that "larger than the
// device" is never said of a request the device could hold). docs/devices.md lists each row with its source.
type Model struct {
	Name string
	GiB  int64
}

// Models is the table ModelMemory reads.
var Models = []Model{
	{"Tesla K80", 12},
	{"Tesla P4", 8},
	{"Tesla P100-SXM2-16GB", 16},
	{"Tesla P100-PCIE-16GB", 16},
	{"Tesla P100-PCIE-12GB", 12},
	{"Tesla V100-SXM2-16GB", 16},
	{"Tesla V100-SXM2-32GB", 32},
	{"Tesla V100-PCIE-16GB", 16},
	{"Tesla V100-PCIE-32GB", 32},
	{"Tesla V100-FHHL-16GB", 16},
	{"Tesla T4", 16},
	{"NVIDIA T4", 16},
	{"NVIDIA A10", 24},
	{"NVIDIA A10G", 24},
	{"NVIDIA A30", 24},
	{"NVIDIA A40", 48},
	{"NVIDIA A100-SXM4-40GB", 40},
	{"NVIDIA A100-PCIE-40GB", 40},
	{"NVIDIA A100-SXM4-80GB", 80},
	{"NVIDIA A100 80GB PCIe", 80},
	{"NVIDIA L4", 24},
	{"NVIDIA L40", 48},
	{"NVIDIA L40S", 48},
	{"NVIDIA H100 80GB HBM3", 80},
	{"NVIDIA H100 PCIe", 80},
	{"NVIDIA H100 NVL", 94},
	{"NVIDIA H200", 141},
	{"NVIDIA H200 141GB HBM3e", 141},
	{"NVIDIA B200", 180},
	{"NVIDIA GB200", 186},
	{"NVIDIA B300 SXM6 AC", 288},
	{"NVIDIA GB300", 288},
	{"NVIDIA GeForce RTX 3070", 8},
	{"NVIDIA GeForce RTX 3080", 10},
	{"NVIDIA GeForce RTX 3080 Ti", 12},
	{"NVIDIA GeForce RTX 3090", 24},
	{"NVIDIA GeForce RTX 3090 Ti", 24},
	{"NVIDIA GeForce RTX 4070 Ti", 12},
	{"NVIDIA GeForce RTX 4080", 16},
	{"NVIDIA GeForce RTX 4090", 24},
	{"NVIDIA GeForce RTX 5080", 16},
	{"NVIDIA GeForce RTX 5090", 32},
	{"NVIDIA RTX A6000", 48},
	{"NVIDIA RTX 6000 Ada Generation", 48},
	{"AMD Instinct MI210", 64},
	{"AMD Instinct MI250", 64},
	{"AMD Instinct MI250X", 64},
	{"AMD Instinct MI300X", 192},
	{"AMD Instinct MI300X OAM", 192},
	{"AMD Instinct MI325X", 256},
	{"AMD Instinct MI350X", 288},
	{"AMD Instinct MI355X", 288},
	{"TPU v2", 16},
	{"TPU v3", 32},
	{"TPU v4", 32},
	{"TPU v5 lite", 16},
	{"TPU v5e", 16},
	{"TPU v5", 95},
	{"TPU v5p", 95},
	{"TPU v6 lite", 32},
	{"TPU v6e", 32},
	{"TPU7x", 192},
}

// ModelMemory is the memory of an accelerator model by the name CUDA/HIP/nvidia-smi/JAX print, exactly. A
// name nvidia-smi cut ("NVIDIA A100-SXM4-80G...") is unknown: a longer, larger model may share its prefix.
func ModelMemory(name string) (grammar.Size, bool) {
	name = strings.TrimSpace(name)
	for _, m := range Models {
		if m.Name == name {
			return grammar.KnownSize(m.GiB << 30), true
		}
	}
	return grammar.Size{}, false
}
