// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package explain

import (
	"bufio"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitRecords(t *testing.T) {
	const (
		glog   = "E0912 07:02:44.350251   27487 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory"
		tsl    = "2025-09-12 07:02:43.112233: W external/xla/xla/tsl/framework/bfc_allocator.cc:291] Allocator (GPU_0_bfc) ran out of memory"
		vllm   = "(EngineCore_DP0 pid=896988) ERROR 09-12 07:23:02 [core.py:700] EngineCore failed to start."
		python = "2025-09-12 07:11:20,331 - eval - ERROR - Perplexity pass failed"
	)
	tests := []struct {
		name   string
		in     string
		buffer int // reader buffer; 0: readerSize
		max    int // record cap; 0: maxScanSize
		want   []Record
	}{
		{name: "a header starts a record, other lines join it",
			in: glog + "\nBufferAssignment OOM Debugging.\n  Buffer 1:\n" + tsl + "\n" + python + "\nTraceback (most recent call last):\n",
			want: []Record{{Line: 1, Text: []byte(glog + "\nBufferAssignment OOM Debugging.\n  Buffer 1:")}, {Line: 4, Text: []byte(tsl)},
				{Line: 5, Text: []byte(python + "\nTraceback (most recent call last):")}}},
		{name: "lines before the first header are a record of their own",
			in:   "Traceback (most recent call last):\n  File \"a.py\", line 1\n" + vllm + "\n",
			want: []Record{{Line: 1, Text: []byte("Traceback (most recent call last):\n  File \"a.py\", line 1")}, {Line: 3, Text: []byte(vllm)}}},
		{name: "blank lines are trimmed and whitespace alone is no record",
			in:   "\n\n  \n" + glog + "\n\n\n" + tsl + "\n  \n",
			want: []Record{{Line: 4, Text: []byte(glog)}, {Line: 7, Text: []byte(tsl)}}},
		{name: "no final newline, CRLF line ends",
			in:   glog + "\r\nnext\r\n" + tsl,
			want: []Record{{Line: 1, Text: []byte(glog + "\r\nnext")}, {Line: 3, Text: []byte(tsl)}}},
		{name: "Kubernetes CRI prefixes are stripped and partial lines joined, as the container parser does",
			in: "2025-09-12T07:02:44.350251Z stderr F " + glog + "\n" +
				"2025-09-12T07:02:44.350252Z stderr P part one, \n" +
				"2025-09-12T07:02:44.350253Z stderr F part two\n" +
				"2025-09-12T07:02:44.350254Z stdout F\n" +
				"2025-09-12T07:02:45.000000+00:00 stdout F " + python + "\n",
			want: []Record{{Line: 1, Text: []byte(glog + "\npart one, part two")}, {Line: 5, Text: []byte(python)}}},
		{name: "an ISO header that is not a CRI prefix starts a record",
			in:   "2025-09-12T07:02:44.350251Z stderr X text\ncontinued\n",
			want: []Record{{Line: 1, Text: []byte("2025-09-12T07:02:44.350251Z stderr X text\ncontinued")}}},
		{name: "a line longer than the reader's buffer is read whole",
			in: glog + strings.Repeat(" x", 100) + "\n" + strings.Repeat("y", 150) + "\n" + tsl + "\n", buffer: 64,
			want: []Record{{Line: 1, Text: []byte(glog + strings.Repeat(" x", 100) + "\n" + strings.Repeat("y", 150))}, {Line: 3, Text: []byte(tsl)}}},
		{name: "a record over the cap is counted, not kept",
			in: glog + "\n" + strings.Repeat("z", 200) + "\n" + tsl + "\n", max: len(glog) + 100,
			want: []Record{{Line: 1, Over: true}, {Line: 3, Text: []byte(tsl)}}},
		{name: "a record exactly at the cap is kept",
			in: glog + "\nab\n", max: len(glog) + 3,
			want: []Record{{Line: 1, Text: []byte(glog + "\nab")}}},
		{name: "empty input", in: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			size, max := cmpOr(tt.buffer, readerSize), cmpOr(tt.max, maxScanSize)
			var got []Record
			require.NoError(t, splitRecords(bufio.NewReaderSize(strings.NewReader(tt.in), size), max, func(r *Record) {
				c := *r
				c.Text = append([]byte(nil), r.Text...)
				if c.Over {
					c.Text = nil
				}
				got = append(got, c)
			}))
			for i := range got { // Size is checked apart: it counts untrimmed bytes
				assert.GreaterOrEqual(t, got[i].Size, len(got[i].Text))
				assert.Equal(t, got[i].Over, got[i].Size > max)
				got[i].Size = 0
			}
			for i := range tt.want {
				if tt.want[i].Text == nil && !tt.want[i].Over {
					tt.want[i].Text = []byte{}
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func cmpOr(v, fallback int) int {
	if v == 0 {
		return fallback
	}
	return v
}
