// Copyright The xla_oom Authors
// SPDX-License-Identifier: Apache-2.0

// Package workload generates the deterministic log traffic the benchmarks run
// on: ordinary training and serving log lines of realistic shapes and lengths,
// with a configurable fraction of real XLA out-of-memory messages.
//
// Everything is derived from a seeded PCG generator and a fixed clock, so the
// same Config always yields the same lines and the same batches, on every
// machine and run.
package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// Defaults of Config.
const (
	DefaultSeed        = 20261122
	DefaultOOMFraction = 0.001 // 0.1 %: one OOM per 1,000 records
	DefaultBatchSize   = 1000
	DefaultResources   = 4
)

// Config selects the traffic.
type Config struct {
	// Seed seeds the PCG generator.
	Seed uint64
	// OOMFraction is the fraction of records that carry an OOM message, in
	// [0, 1]. OOM records are spaced evenly (one every 1/OOMFraction records,
	// at a random phase), so every window of 1/OOMFraction records holds
	// exactly one: a 1,000-record batch at the default 0.1 % holds exactly one.
	OOMFraction float64
	// Resources is the number of resources a batch is spread over.
	Resources int
	// OOM lists the messages OOM records are drawn from (round-robin from a
	// random start); nil means OOMMessages.
	OOM []Message
}

// DefaultConfig is the benchmark traffic: seed DefaultSeed, 0.1 % OOM, four
// resources, every message of OOMMessages.
func DefaultConfig() Config {
	return Config{Seed: DefaultSeed, OOMFraction: DefaultOOMFraction, Resources: DefaultResources}
}

// Line is one generated log line or record body.
type Line struct {
	Text string
	// OOM is the message the line carries, nil for an ordinary line.
	OOM *Message
}

// Generator produces lines and batches. It is not safe for concurrent use.
type Generator struct {
	cfg   Config
	rng   *rand.Rand
	clock time.Time
	acc   float64 // OOM accumulator: a record is an OOM when it reaches 1
	next  int     // next OOM message (round-robin)
	step  int     // training step counter, so lines read like a real run
}

// epoch is the fixed start of the generated clock.
var epoch = time.Date(2026, 11, 22, 10, 2, 3, 123456000, time.UTC)

// New returns a generator for cfg.
func New(cfg Config) *Generator {
	if cfg.OOMFraction < 0 || cfg.OOMFraction > 1 {
		panic(fmt.Sprintf("workload: OOMFraction %v out of [0, 1]", cfg.OOMFraction))
	}
	if cfg.Resources <= 0 {
		cfg.Resources = DefaultResources
	}
	if cfg.OOM == nil {
		cfg.OOM = OOMMessages
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	return &Generator{
		cfg:   cfg,
		rng:   rng,
		clock: epoch,
		acc:   rng.Float64(), // random phase
		next:  rng.IntN(len(cfg.OOM)),
		step:  1000 + rng.IntN(50000),
	}
}

// Line returns the next line.
func (g *Generator) Line() Line {
	g.clock = g.clock.Add(time.Duration(50+g.rng.IntN(5000)) * time.Microsecond)
	if g.cfg.OOMFraction > 0 {
		g.acc += g.cfg.OOMFraction
		if g.acc >= 1 {
			g.acc--
			m := &g.cfg.OOM[g.next%len(g.cfg.OOM)]
			g.next++
			return Line{Text: m.Text, OOM: m}
		}
	}
	w := g.rng.IntN(totalWeight)
	for _, t := range templates {
		if w < t.weight {
			return Line{Text: t.line(g)}
		}
		w -= t.weight
	}
	panic("unreachable")
}

// Lines returns the next n lines.
func (g *Generator) Lines(n int) []Line {
	out := make([]Line, n)
	for i := range out {
		out[i] = g.Line()
	}
	return out
}

// Batch returns the next n records as one plog.Logs, spread evenly over
// Config.Resources resources (one scope each), the way a file_log receiver
// tailing a few pods' logs delivers them: string bodies, timestamps, the
// log.file.name attribute and no severity.
func (g *Generator) Batch(n int) plog.Logs {
	ld := plog.NewLogs()
	r := g.cfg.Resources
	for ri := 0; ri < r; ri++ {
		count := n / r
		if ri < n%r {
			count++
		}
		if count == 0 {
			continue
		}
		rl := ld.ResourceLogs().AppendEmpty()
		res := rl.Resource().Attributes()
		res.PutStr("service.name", services[ri%len(services)])
		res.PutStr("k8s.namespace.name", "ml-training")
		res.PutStr("k8s.pod.name", fmt.Sprintf("%s-%d", services[ri%len(services)], ri))
		res.PutStr("host.name", fmt.Sprintf("tpu-vm-%02d", ri))
		sl := rl.ScopeLogs().AppendEmpty()
		lrs := sl.LogRecords()
		lrs.EnsureCapacity(count)
		file := fmt.Sprintf("/var/log/pods/ml-training_%s-%d/main/0.log", services[ri%len(services)], ri)
		for k := 0; k < count; k++ {
			l := g.Line()
			lr := lrs.AppendEmpty()
			lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(g.clock))
			lr.SetTimestamp(pcommon.NewTimestampFromTime(g.clock))
			lr.Body().SetStr(l.Text)
			lr.Attributes().PutStr("log.file.name", file)
		}
	}
	return ld
}

// Batches returns count batches of size records each, from one generator.
func Batches(cfg Config, count, size int) []plog.Logs {
	g := New(cfg)
	out := make([]plog.Logs, count)
	for i := range out {
		out[i] = g.Batch(size)
	}
	return out
}

var services = []string{"trainer", "vllm-server", "ray-worker", "data-loader"}

// template writes one ordinary line; weight is its share of the traffic.
type template struct {
	weight int
	line   func(g *Generator) string
}

// totalWeight is the sum of the template weights.
var totalWeight = func() int {
	n := 0
	for _, t := range templates {
		n += t.weight
	}
	return n
}()

// Ordinary line templates, weighted like a busy training and serving fleet:
// periodic progress, metrics and access lines make most of the traffic,
// start-up lines (devices, allocator set-up, memory profiling) a few percent.
// Each writes one line of 60-300 bytes. A few
// mention memory and allocation innocently, or contain the bytes the OOM
// prefilter anchors on ('R', sizes ending in B), so that they exercise its
// confirmation paths the way real traffic does.
var templates = []template{
	// absl / glog (JAX, libtpu, Python absl), training progress.
	{18, func(g *Generator) string {
		g.step++
		return g.glog('I', "train.py", 211) + fmt.Sprintf("step %d: loss=%.4f grad_norm=%.4f lr=%.2e tokens/s=%.1f mfu=%.1f%%",
			g.step, 1+g.rng.Float64()*2, g.rng.Float64(), 3e-4*g.rng.Float64(), 150000+g.rng.Float64()*50000, 30+g.rng.Float64()*20)
	}},
	{2, func(g *Generator) string {
		return g.glog('I', "checkpoint_manager.py", 1423) + fmt.Sprintf("Saved checkpoint to gs://ml-runs-%d/run-%d/checkpoints/%d in %.2fs (%d files)",
			g.rng.IntN(100), g.rng.IntN(1000), g.step, g.rng.Float64()*30, 50+g.rng.IntN(400))
	}},
	{2, func(g *Generator) string {
		return g.glog('I', "pxla.py", 1890) + fmt.Sprintf("Compiling train_step with global shapes and types [ShapedArray(bfloat16[%d,%d]), ShapedArray(int32[%d])]. Argument mapping: (GSPMDSharding({devices=[%d,1]<=[%d]}),).",
			64<<g.rng.IntN(4), 1024<<g.rng.IntN(3), 64<<g.rng.IntN(4), 4<<g.rng.IntN(3), 4<<g.rng.IntN(3))
	}},
	{2, func(g *Generator) string {
		return g.glog('I', "dispatch.py", 182) + fmt.Sprintf("Finished XLA compilation of jit(train_step) in %.3f sec", g.rng.Float64()*90)
	}},
	// Innocent memory mentions.
	{4, func(g *Generator) string {
		return g.glog('W', "memory_utils.py", 44) + fmt.Sprintf("Device memory: %.2fG total, %.2fG in use, peak %.2fG (host RSS %.1f GB)",
			95.74, g.rng.Float64()*90, g.rng.Float64()*95, 20+g.rng.Float64()*100)
	}},
	// TSL sink (XLA C++), GPU start-up and allocator info lines.
	{1, func(g *Generator) string {
		return g.tsl('I', "external/xla/xla/pjrt/gpu/gpu_helpers.cc", 136) + fmt.Sprintf("XLA backend allocating %d bytes on device %d for BFCAllocator.",
			16000000000+g.rng.Int64N(60000000000), g.rng.IntN(8))
	}},
	{1, func(g *Generator) string {
		return g.tsl('I', "external/xla/xla/service/service.cc", 168) + fmt.Sprintf("XLA service 0x%x initialized for platform CUDA (this does not guarantee that XLA will be used). Devices:",
			0x55d0c8a00000+g.rng.Int64N(1<<20))
	}},
	{1, func(g *Generator) string {
		return g.tsl('I', "external/xla/xla/service/service.cc", 176) + fmt.Sprintf("  StreamExecutor device (%d): NVIDIA H100 80GB HBM3, Compute Capability 9.0", g.rng.IntN(8))
	}},
	{2, func(g *Generator) string {
		return g.tsl('W', "external/xla/xla/service/gpu/autotuning/gemm_fusion_autotuner.cc", 1026) + fmt.Sprintf("Compiling %d configs for %d fusions on a single thread.",
			g.rng.IntN(400), 1+g.rng.IntN(30))
	}},
	// Python logging.
	{8, func(g *Generator) string {
		return g.pylog("INFO", "trainer") + fmt.Sprintf("Epoch %d | step %d/%d | loss %.4f | elapsed %d:%02d:%02d",
			1+g.rng.IntN(10), g.step, 50000, 1+g.rng.Float64()*2, g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60))
	}},
	{3, func(g *Generator) string {
		return g.pylog("WARNING", "data_loader") + fmt.Sprintf("Slow batch: took %.1f ms (p99 %.1f ms) on worker %d; prefetch queue %d/%d",
			100+g.rng.Float64()*900, 80+g.rng.Float64()*200, g.rng.IntN(32), g.rng.IntN(8), 8)
	}},
	{2, func(g *Generator) string {
		return fmt.Sprintf("INFO:absl:Allocated %d pinned host buffers of %d bytes each for the input pipeline (shard %d of %d)",
			2+g.rng.IntN(30), 1<<(20+g.rng.IntN(8)), g.rng.IntN(64), 64)
	}},
	// vLLM.
	{10, func(g *Generator) string {
		return g.vllm("core.py", 72) + fmt.Sprintf("Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%",
			g.rng.Float64()*5000, g.rng.Float64()*5000, g.rng.IntN(64), g.rng.IntN(8), g.rng.Float64()*100, g.rng.Float64()*100)
	}},
	{1, func(g *Generator) string {
		return g.vllm("gpu_worker.py", 276) + fmt.Sprintf("Memory profiling takes %.2f seconds. Total non-torch memory: %.2fGiB; torch peak memory increase: %.2fGiB; Available KV cache memory: %.2f GiB",
			g.rng.Float64()*10, g.rng.Float64()*2, g.rng.Float64()*4, 20+g.rng.Float64()*50)
	}},
	{1, func(g *Generator) string {
		return g.vllm("kv_cache_utils.py", 1087) + fmt.Sprintf("Reserved memory for KV cache: %.2f GiB; GPU KV cache size: %d tokens; Maximum concurrency for %d tokens per request: %.2fx",
			20+g.rng.Float64()*50, 100000+g.rng.IntN(900000), 4096<<g.rng.IntN(4), g.rng.Float64()*100)
	}},
	// Ray.
	{8, func(g *Generator) string {
		return fmt.Sprintf("(RayTrainWorker pid=%d, ip=10.0.%d.%d) [rank %d] step=%d loss=%.3f throughput=%.1f samples/s",
			10000+g.rng.IntN(90000), g.rng.IntN(8), g.rng.IntN(255), g.rng.IntN(64), g.step, 1+g.rng.Float64()*2, g.rng.Float64()*4000)
	}},
	{1, func(g *Generator) string {
		return g.clock.Format("2006-01-02 15:04:05,000") + "\tINFO worker.py:1821 -- " +
			fmt.Sprintf("Connected to Ray cluster at 10.0.%d.%d:6379. View the dashboard at 127.0.0.1:8265 (node %x)",
				g.rng.IntN(8), g.rng.IntN(255), g.rng.Uint32())
	}},
	{2, func(g *Generator) string {
		return fmt.Sprintf("(autoscaler +%dm%ds) Resized to %d CPUs, %d GPUs. Ran %d tasks in the last minute; %d pending.",
			g.rng.IntN(60), g.rng.IntN(60), 16*g.rng.IntN(64), 8*g.rng.IntN(16), g.rng.IntN(5000), g.rng.IntN(50))
	}},
	// uvicorn access log.
	{12, func(g *Generator) string {
		paths := [...]string{"/v1/completions", "/v1/chat/completions", "/health", "/metrics", "/v1/models"}
		return fmt.Sprintf("INFO:     10.0.%d.%d:%d - \"%s %s HTTP/1.1\" %d %s (request id %016x)",
			g.rng.IntN(8), g.rng.IntN(255), 30000+g.rng.IntN(30000), []string{"POST", "GET"}[g.rng.IntN(2)],
			paths[g.rng.IntN(len(paths))], []int{200, 200, 200, 404, 429}[g.rng.IntN(5)], "OK", g.rng.Uint64())
	}},
	{8, func(g *Generator) string {
		paths := [...]string{"/health", "/metrics", "/v1/models", "/healthz"}
		return fmt.Sprintf("INFO:     10.244.%d.%d:%d - \"GET %s HTTP/1.1\" 200 OK",
			10+g.rng.IntN(245), 10+g.rng.IntN(245), 30000+g.rng.IntN(30000), paths[g.rng.IntN(len(paths))])
	}},
	// Short progress lines.
	{2, func(g *Generator) string {
		return g.glog('I', "train.py", 187) + fmt.Sprintf("Starting epoch %d of %d", 1+g.rng.IntN(100), 100)
	}},
	// Kubernetes-style JSON lines (zap).
	{8, func(g *Generator) string {
		return fmt.Sprintf(`{"level":"info","ts":"%s","caller":"server/handler.go:142","msg":"request completed","method":"POST","path":"/v1/chat/completions","status":200,"duration_ms":%.1f,"request_id":"%08x"}`,
			g.clock.Format("2006-01-02T15:04:05.000Z"), g.rng.Float64()*2000, g.rng.Uint32())
	}},
	{3, func(g *Generator) string {
		return fmt.Sprintf(`{"level":"warn","ts":%d.%06d,"logger":"kubelet","msg":"Container memory usage above 80%% of limit","pod":"trainer-%d","usage_bytes":%d}`,
			g.clock.Unix(), g.clock.Nanosecond()/1000, g.rng.IntN(16), 60000000000+g.rng.Int64N(20000000000))
	}},
}

func (g *Generator) glog(sev byte, file string, line int) string {
	return fmt.Sprintf("%c%s %7d %s:%d] ", sev, g.clock.Format("0102 15:04:05.000000"), 100000+g.rng.IntN(900000), file, line+g.rng.IntN(3))
}

func (g *Generator) tsl(sev byte, file string, line int) string {
	return fmt.Sprintf("%s: %c %s:%d] ", g.clock.Format("2006-01-02 15:04:05.000000"), sev, file, line)
}

func (g *Generator) pylog(level, logger string) string {
	return g.clock.Format("2006-01-02 15:04:05,000") + " - " + level + " - " + logger + " - "
}

func (g *Generator) vllm(file string, line int) string {
	prefix := ""
	if g.rng.IntN(2) == 0 {
		prefix = fmt.Sprintf("(EngineCore_DP%d pid=%d) ", g.rng.IntN(2), 800000+g.rng.IntN(100000))
	}
	return prefix + "INFO " + g.clock.Format("01-02 15:04:05") + " [" + file + ":" + fmt.Sprint(line) + "] "
}

// Stats describes a set of lines.
type Stats struct {
	Lines, OOM       int
	MinLen, MaxLen   int // of ordinary lines
	MeanLen          float64
	MentionsMemory   int // ordinary lines mentioning memory or allocation
	ContainsRExhaust int // ordinary lines containing RESOURCE_EXHAUSTED (must be 0)
}

// Describe computes Stats over lines.
func Describe(lines []Line) Stats {
	s := Stats{Lines: len(lines), MinLen: 1 << 30}
	total, ordinary := 0, 0
	for _, l := range lines {
		if l.OOM != nil {
			s.OOM++
			continue
		}
		ordinary++
		n := len(l.Text)
		total += n
		s.MinLen = min(s.MinLen, n)
		s.MaxLen = max(s.MaxLen, n)
		low := strings.ToLower(l.Text)
		if strings.Contains(low, "memory") || strings.Contains(low, "allocat") {
			s.MentionsMemory++
		}
		if strings.Contains(l.Text, "RESOURCE_EXHAUSTED") {
			s.ContainsRExhaust++
		}
	}
	if ordinary > 0 {
		s.MeanLen = float64(total) / float64(ordinary)
	}
	return s
}
