// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

package stage

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/xlaoom/xlaoomprocessor/hostoom"
	"github.com/xlaoom/xlaoomprocessor/internal/assembly"
	"github.com/xlaoom/xlaoomprocessor/oom"
)

// Records of one failure of the real job shared_gpu_backoff_then_oom
// (oom/testdata/jobs).
const (
	attemptLine = "E1126 11:16:43.148424     786 cuda_executor.cc:1365] [0] Failed to allocate device memory of 26.73GiB (28706263040 bytes): RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory"
	bfcLine     = "W1126 11:16:43.148484     786 bfc_allocator.cc:598] Allocator (GPU_0_bfc) ran out of memory trying to allocate 23.28GiB (rounded to 25000000000) from the lower end requested by op \n" +
		"If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.\nCurrent allocation summary follows."
	statsLine  = "I1126 11:16:43.148614     786 bfc_allocator.cc:1508] Stats: \nLimit:                        59.38GiB\nInUse:                         6.62MiB"
	raisedLine = "W1126 11:16:43.148619     786 bfc_allocator.cc:609] *____\nTraceback (most recent call last):\n" +
		"  File \"/home/me/train.py\", line 194, in run_job\n    big_output(1.0).block_until_ready()\n" +
		"jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 23.28GiB with allocator GPU_0_bfc on device 0. [tf-allocator-allocation-error=''] [executable_name='jit_activations']"
	slurmLine = "slurmstepd: error: Detected 1 oom_kill event in StepId=8841.0. Some of the step tasks have been OOM Killed."
)

var t0 = time.Date(2026, 11, 26, 11, 16, 43, 0, time.UTC)

func newStage() *Stage {
	return New(Config{Assembly: assembly.Config{Window: time.Minute}, MemoryWarnings: true, HostKillTails: true, MaxScanSize: 1 << 20})
}

// feeder gives a stage the records of one stream as a reader does: the
// prefilter's texts to Candidate, the others to Evidence.
type feeder struct {
	s      *Stage
	in     Input
	closed []assembly.Failure
}

func (f *feeder) input(bool) Input { return f.in }

func (f *feeder) record(text string, marks Marks) Tags {
	var t Tags
	if hostoom.Recognizer().MayContain(text) {
		f.closed = f.s.Candidate([]string{text}, marks, f.input, &t, f.closed)
	} else {
		f.closed = f.s.Evidence(f.input, text, f.closed)
	}
	return t
}

func TestOneFailure(t *testing.T) {
	f := &feeder{s: newStage(), in: Input{Resource: 1, Stream: 2, Job: 3, At: t0, Now: t0}}
	attempt := f.record(attemptLine, Marks{})
	assert.Equal(t, Warning, attempt.Outcome)
	assert.Equal(t, oom.WarningAllocationAttempt, attempt.Warning.Kind)
	first := f.record(bfcLine, Marks{})
	require.Equal(t, Statement, first.Outcome)
	assert.Equal(t, "E0007", first.Report.Code)
	assert.Equal(t, t0, first.Opened)
	assert.True(t, f.s.Assembler.OpenIn(1))
	assert.False(t, f.s.Assembler.OpenIn(9), "another resource")
	assert.Equal(t, Untouched, f.record(statsLine, Marks{}).Outcome)
	last := f.record(raisedLine, Marks{})
	assert.Equal(t, first.FailureID, last.FailureID, "one failure")
	require.Len(t, f.closed, 1)
	c := f.closed[0]
	assert.Equal(t, assembly.ClosedRaised, c.Closed)
	assert.Equal(t, 1, c.Attempts)
	assert.Equal(t, oom.ParseSize("59.38GiB"), c.Report.PoolLimit, "Stats, read as evidence")
	assert.False(t, f.s.Assembler.OpenIn(1))
}

// A record tagged or warned upstream is left as it is; one sent with a
// verdict keeps it.
func TestMarks(t *testing.T) {
	f := &feeder{s: newStage(), in: Input{Stream: 1, At: t0, Now: t0}}
	assert.Equal(t, Untouched, f.record(bfcLine, Marks{Tagged: true}).Outcome)
	assert.Equal(t, Untouched, f.record(bfcLine, Marks{Warned: true}).Outcome)
	assert.Equal(t, Untouched, f.record(attemptLine, Marks{Warned: true}).Outcome)
	assert.False(t, f.s.Assembler.Open())
	sent := f.record(bfcLine, Marks{RetrySent: true})
	assert.Equal(t, Statement, sent.Outcome)
	assert.Empty(t, sent.Report.Retry, "the sender's verdict is kept")
	assert.NotEmpty(t, f.record(bfcLine, Marks{}).Report.Retry)
}

// The kernel's lines of one real kill, one record each: the record of the
// "Killed process" line carries the kill, the others their statements.
func TestKernelKill(t *testing.T) {
	b, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	require.NoError(t, err)
	f := &feeder{s: newStage(), in: Input{Stream: 1, Now: t0}}
	var outcomes []Outcome
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f.in.At = t0.Add(time.Duration(i) * time.Millisecond)
		outcomes = append(outcomes, f.record(line, Marks{}).Outcome)
	}
	assert.Equal(t, HostKill, outcomes[len(outcomes)-1])
	count := map[Outcome]int{}
	for _, o := range outcomes {
		count[o]++
	}
	assert.Equal(t, 1, count[HostKill])
	assert.Positive(t, count[HostStatement], "the kill's other lines")
}

func TestTail(t *testing.T) {
	s := newStage()
	require.True(t, s.Tail(slurmLine))
	var tags Tags
	s.Texts(Input{Stream: 1, At: t0, Now: t0}, Marks{}, []string{slurmLine}, &tags, nil)
	assert.Equal(t, HostKill, tags.Outcome)
	assert.Equal(t, "slurm", tags.Kill.Kind.Source()[:5])
	s.Texts(Input{Stream: 2, At: t0, Now: t0}, Marks{HostRead: true}, []string{slurmLine}, &tags, nil)
	assert.Equal(t, Untouched, tags.Outcome, "read upstream")
	assert.False(t, s.Tail("an ordinary line"))
	assert.False(t, New(Config{}).Tail(slurmLine), "host_kill_tails off")
	tags = Tags{}
	s.Texts(Input{Stream: 3, At: t0, Now: t0}, Marks{}, []string{"srun: error: node-7: task 0: Out Of Memory"}, &tags, nil)
	assert.Equal(t, HostStatement, tags.Outcome, "srun's echo is a statement, no kill")
	assert.True(t, tags.Host.Kind.Echo())
	assert.Empty(t, tags.Ended)
}

type rawObject map[string]any

func (o rawObject) Str(key string) (string, bool) { s, ok := o[key].(string); return s, ok }
func (o rawObject) Raw() map[string]any           { return o }

func TestStructured(t *testing.T) {
	kill := "Memory cgroup out of memory: Killed process 29330 (python3) total-vm:82116kB, anon-rss:59136kB, file-rss:6612kB, shmem-rss:0kB, UID:0 pgtables:188kB oom_score_adj:0"
	_, ok := Structured(kill, "kernel", nil)
	assert.True(t, ok)
	_, ok = Structured(kill, "stdout", nil)
	assert.False(t, ok, "a program quoting the kernel")
	var pod, event rawObject
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"Pod","metadata":{"name":"trainer-0","uid":"8d1e"},
	 "status":{"containerStatuses":[{"name":"trainer","lastState":{"terminated":{"exitCode":137,"reason":"OOMKilled","finishedAt":"2026-11-27T18:48:46Z"}}}]}}`), &pod))
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"Event","reason":"SystemOOM","message":"System OOM encountered, victim process: python3, pid: 4242"}`), &event))
	st, ok := Structured("", "", pod)
	assert.True(t, ok)
	assert.Equal(t, "k8s_oomkilled", st.Kind.String())
	st, ok = Structured("", "", event)
	assert.True(t, ok)
	assert.Equal(t, "k8s_system_oom", st.Kind.String())
	_, ok = Structured("", "", rawObject{"kind": "Node"})
	assert.False(t, ok)
	_, ok = Structured("", "", nil)
	assert.False(t, ok)
}

// Evidence reads nothing over MaxScanSize and nothing while no failure is
// open: it does not ask for the record's keys.
func TestEvidenceAsksForKeysOnlyWhileOpen(t *testing.T) {
	s := newStage()
	asked := 0
	in := func(bool) Input { asked++; return Input{Resource: 1, Stream: 1, Now: t0} }
	s.Evidence(in, statsLine, nil)
	assert.Zero(t, asked)
	var tags Tags
	s.Candidate([]string{bfcLine}, Marks{}, in, &tags, nil)
	asked = 0
	s.Evidence(in, statsLine, nil)
	assert.Equal(t, 1, asked)
	s.Evidence(in, strings.Repeat("x", 1<<20+1), nil)
	assert.Equal(t, 1, asked, "over MaxScanSize")
}

// A whole saved kernel log as one record: one kill, numbered by its first
// line, carried by the record and ended once, at the input's end.
func TestTextsOfAWholeLog(t *testing.T) {
	b, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	require.NoError(t, err)
	s := newStage()
	var tags Tags
	s.Texts(Input{Stream: 1, Line: 1}, Marks{}, []string{string(b)}, &tags, nil)
	assert.Equal(t, HostKill, tags.Outcome)
	assert.Empty(t, tags.Ended, "held until its event ends")
	ended := s.Assembler.FlushKills(1)
	require.Len(t, ended, 1)
	assert.Equal(t, int64(1), ended[0].Ref, "its first line")
	assert.Equal(t, tags.Kill, ended[0])
}

// A kill whose "Killed process" line never comes ends at the stream's next
// kill and is carried by the record that ended it; the next is carried by
// its own line's record; each ends once. So it is read from every line (a
// saved log) and from the lines the prefilter passes (a collector), which
// lack the kill's first line.
func TestKillWithoutItsLine(t *testing.T) {
	b, err := os.ReadFile("../../hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	log := append(append([]string{}, lines[:len(lines)-1]...), lines...)
	for _, prefilter := range []bool{false, true} {
		f := &feeder{s: newStage(), in: Input{Stream: 1, At: t0, Now: t0}}
		var kills, ended []hostoom.Kill
		for i, line := range log {
			var tags Tags
			f.in.Line = i + 1
			if prefilter {
				tags = f.record(line, Marks{})
			} else {
				f.s.Texts(f.in, Marks{}, []string{line}, &tags, nil)
			}
			if tags.Outcome == HostKill {
				kills = append(kills, tags.Kill)
			}
			ended = append(ended, tags.Ended...)
		}
		ended = append(ended, f.s.Assembler.FlushKills(1)...)
		require.Len(t, kills, 2, "prefilter %v", prefilter)
		assert.False(t, kills[0].Complete)
		assert.True(t, kills[1].Complete)
		assert.Equal(t, kills, ended)
	}
}
