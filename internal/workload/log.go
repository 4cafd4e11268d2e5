// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package workload

import "bytes"

// Log returns the generator's lines as one log file of at least size bytes:
// each line (an OOM message may span several) ends with a newline.
func (g *Generator) Log(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 8<<10)
	for b.Len() < size {
		b.WriteString(g.Line().Text)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
