#!/usr/bin/env python3
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
"""Capture whole job logs of JAX jobs near a full GPU, as a job writes them.

capture.py records single failures; this script records *jobs*: a small
training program from start to exit, with its stdout and stderr written to
one file in the order they came (as `python train.py > job.log 2>&1` or a
container runtime would), while another process or library holds part of the
GPU. Some jobs die of an out-of-memory error, others see their allocator back
off and run to completion. The tests assert, per job, what a user must see:
failed or not, one incident per failure, the failing request's size.

    python3 scripts/gpu-capture/jobs.py --outdir DIR [--only NAME ...] [--deadline S]

Writes DIR/NAME.log (the whole job log), DIR/NAME.holder.log for a case whose
memory is held by a separate process, and DIR/jobs-manifest.json: per job the
environment, what held memory, the exit status, whether it failed and, for a
failure, the bytes of the request that failed.

Safety: ordinary device allocations only (JAX's allocators, PyTorch's and
CuPy's caching allocators; never managed memory); every process has a timeout.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)
GiB = 1 << 30
F32 = 4

# Sizes are chosen for an 80 GB card (H100/A100 80GB, about 79.6 GiB); on
# another card the jobs still back off or fail, with other figures.
HOLD_BACKOFF_GIB = 58      # leaves ~21 GiB: the default pool (75%) backs off ten times or so
HOLD_NEAR_FULL_GIB = 70    # leaves ~9 GiB
HOLD_LIBRARY_GIB = 40      # PyTorch or CuPy in the same process, before JAX
FAIL_ROWS = 100_000        # f32[FAIL_ROWS, FAIL_COLS]: 25e9 B, more than any backed-off pool
FAIL_COLS = 62_500
NEAR_FULL_REQUEST = 12_000_000_000   # one request larger than what is left near a full GPU
LEAK_CHUNK = 1 << 30                 # the leaking job keeps 1 GiB per step

LOG0 = {"TF_CPP_MIN_LOG_LEVEL": "0"}

# name -> (description, env, holder GiB in a separate process or 0, failing request bytes or None)
JOBS = [
    ("shared_gpu_backoff_exit0",
     "another process holds %d GiB; JAX's default pool (75%%) backs off until it fits, then "
     "trains an MLP for 30 steps and exits 0" % HOLD_BACKOFF_GIB,
     {}, HOLD_BACKOFF_GIB, None),
    ("shared_gpu_backoff_then_oom",
     "another process holds %d GiB; the pool backs off, 5 training steps run, then a step "
     "whose output f32[%d,%d] (%d bytes) does not fit" % (HOLD_BACKOFF_GIB, FAIL_ROWS, FAIL_COLS,
                                                            FAIL_ROWS * FAIL_COLS * F32),
     dict(LOG0), HOLD_BACKOFF_GIB, FAIL_ROWS * FAIL_COLS * F32),
    ("two_jobs_first",
     "the first of two JAX jobs on one GPU (default pool, 75%%): trains while the second starts, "
     "exits 0", {}, 0, None),
    ("two_jobs_second",
     "the second JAX job on the same GPU: its pool backs off to what the first left, then a step "
     "with output f32[%d,%d] (%d bytes) fails" % (FAIL_ROWS, FAIL_COLS, FAIL_ROWS * FAIL_COLS * F32),
     {}, 0, FAIL_ROWS * FAIL_COLS * F32),
    ("torch_then_jax_exit0",
     "PyTorch allocates %d GiB in the same process before JAX starts; JAX's pool backs off, "
     "training runs, exit 0" % HOLD_LIBRARY_GIB, dict(LOG0), 0, None),
    ("cupy_then_jax_oom",
     "CuPy allocates %d GiB in the same process before JAX starts; JAX's pool backs off, then a "
     "step with output f32[%d,%d] (%d bytes) fails" % (HOLD_LIBRARY_GIB, 2 * FAIL_ROWS, FAIL_COLS,
                                                       2 * FAIL_ROWS * FAIL_COLS * F32),
     dict(LOG0), 0, 2 * FAIL_ROWS * FAIL_COLS * F32),
    ("prealloc_false_leak_oom",
     "another process holds %d GiB; XLA_PYTHON_CLIENT_PREALLOCATE=false; a training loop that "
     "keeps 1 GiB per step (a leak) until the pool cannot grow" % HOLD_NEAR_FULL_GIB,
     dict(LOG0, XLA_PYTHON_CLIENT_PREALLOCATE="false"), HOLD_NEAR_FULL_GIB, LEAK_CHUNK),
    ("prealloc_false_near_full_exit0",
     "another process holds %d GiB; XLA_PYTHON_CLIENT_PREALLOCATE=false; training with 4 arrays "
     "of 1 GiB kept, exits 0" % HOLD_NEAR_FULL_GIB,
     dict(LOG0, XLA_PYTHON_CLIENT_PREALLOCATE="false"), HOLD_NEAR_FULL_GIB, None),
    ("platform_near_full_oom",
     "another process holds %d GiB; XLA_PYTHON_CLIENT_ALLOCATOR=platform; training, then a step "
     "needing %d bytes" % (HOLD_NEAR_FULL_GIB, NEAR_FULL_REQUEST),
     dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="platform"), HOLD_NEAR_FULL_GIB, NEAR_FULL_REQUEST),
    ("cuda_async_near_full_oom",
     "another process holds %d GiB; XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async; training, then a "
     "step needing %d bytes" % (HOLD_NEAR_FULL_GIB, NEAR_FULL_REQUEST),
     dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="cuda_async"), HOLD_NEAR_FULL_GIB, NEAR_FULL_REQUEST),
    ("autotune_in_training_step",
     "XLA_PYTHON_CLIENT_MEM_FRACTION=0.05 and the pool filled to ~8 MiB free by kept arrays, then "
     "a training step with a fresh matmul is compiled (the autotuner runs out of memory)",
     dict(LOG0, XLA_PYTHON_CLIENT_MEM_FRACTION="0.05"), 0, None),
    ("caught_oom_halving_exit0",
     "the program catches its own OOM (a step with output f32[%d,%d]) and halves the batch until "
     "it fits, then exits 0: the allocator's warning is logged although the job did not fail"
     % (4 * FAIL_ROWS, FAIL_COLS), {}, 0, None),
]
JOB_NAMES = [j[0] for j in JOBS]


# ==========================================================================
# Inside a job
# ==========================================================================
def say(msg):
    print("[job] %s %s" % (datetime.datetime.now().strftime("%H:%M:%S"), msg), flush=True)


def hold_with_torch(gib):
    import torch
    t = torch.empty(int(gib * GiB), dtype=torch.uint8, device="cuda")
    free, total = torch.cuda.mem_get_info()
    say("pytorch holds %d GiB; device free %d of %d bytes" % (gib, free, total))
    return t


def hold_with_cupy(gib):
    import cupy
    a = cupy.empty(int(gib * GiB), dtype=cupy.uint8)
    free, total = cupy.cuda.runtime.memGetInfo()
    say("cupy holds %d GiB; device free %d of %d bytes" % (gib, free, total))
    return a


def mlp(jax, jnp, optax, hidden=1024, batch=256):
    """A small MLP trained with optax: what a job does before its bad step."""
    k = jax.random.PRNGKey(0)
    k1, k2 = jax.random.split(k)
    params = {"w1": jax.random.normal(k1, (512, hidden)) * 0.02,
              "w2": jax.random.normal(k2, (hidden, 10)) * 0.02}
    opt = optax.adam(1e-3)
    state = opt.init(params)
    x = jnp.ones((batch, 512))
    y = jnp.zeros((batch,), jnp.int32)

    def loss_fn(p):
        logits = jax.nn.relu(x @ p["w1"]) @ p["w2"]
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    @jax.jit
    def step(p, s):
        loss, g = jax.value_and_grad(loss_fn)(p)
        u, s = opt.update(g, s, p)
        return optax.apply_updates(p, u), s, loss

    def train(n):
        nonlocal params, state
        for i in range(n):
            params, state, loss = step(params, state)
            if i % 5 == 0 or i == n - 1:
                say("step %d loss %.4f" % (i, float(loss)))
    return train


def big_output(jax, jnp, rows, cols):
    @jax.jit
    def activations(scale):
        return jnp.full((rows, cols), scale, jnp.float32)
    return activations


def run_job(name, ready_file, go_file):
    if name == "torch_then_jax_exit0":
        keep = hold_with_torch(HOLD_LIBRARY_GIB)  # noqa: F841
    if name == "cupy_then_jax_oom":
        keep = hold_with_cupy(HOLD_LIBRARY_GIB)  # noqa: F841
    import jax
    import jax.numpy as jnp
    import optax
    say("jax %s devices %s" % (jax.__version__, jax.devices()))
    d0 = jax.devices()[0]
    st = d0.memory_stats() or {}
    say("pool limit %s bytes" % st.get("bytes_limit"))
    train = mlp(jax, jnp, optax)

    if name == "two_jobs_first":
        train(5)
        open(ready_file, "w").close()
        t0 = time.time()
        while not os.path.exists(go_file) and time.time() - t0 < 120:
            train(5)
        say("the second job is done; finishing")
        train(5)
        return
    if name in ("shared_gpu_backoff_exit0", "torch_then_jax_exit0"):
        train(30)
        return
    if name in ("shared_gpu_backoff_then_oom", "two_jobs_second", "cupy_then_jax_oom"):
        train(5)
        say("evaluating a large batch")
        rows = 2 * FAIL_ROWS if name == "cupy_then_jax_oom" else FAIL_ROWS
        big_output(jax, jnp, rows, FAIL_COLS)(1.0).block_until_ready()
        return
    if name == "prealloc_false_leak_oom":
        kept = []
        for i in range(64):
            train(1)
            kept.append(jnp.full((LEAK_CHUNK // 4,), float(i), jnp.float32).block_until_ready())
            say("epoch %d: %d GiB of history kept" % (i, len(kept)))
        return
    if name == "prealloc_false_near_full_exit0":
        kept = []
        for i in range(4):
            train(2)
            kept.append(jnp.full((LEAK_CHUNK // 4,), float(i), jnp.float32).block_until_ready())
        train(5)
        say("kept %d GiB; done" % len(kept))
        return
    if name in ("platform_near_full_oom", "cuda_async_near_full_oom"):
        train(5)
        say("evaluating a large batch")
        big_output(jax, jnp, NEAR_FULL_REQUEST // (F32 * 100_000), 100_000)(1.0).block_until_ready()
        return
    if name == "autotune_in_training_step":
        train(3)
        st = d0.memory_stats() or {}
        want = st.get("bytes_limit", 0) - st.get("bytes_in_use", 0) - (8 << 20)
        kept = []
        while want >= (1 << 20):
            n = min(1 << 30, want)
            n -= n % 4
            kept.append(jnp.zeros((n // 4,), jnp.uint32).block_until_ready())
            want -= n
        say("pool filled; training a wider layer")
        a = jnp.ones((1000, 1536), jnp.float32)
        b = jnp.ones((1536, 3072), jnp.float32)

        @jax.jit
        def wide_step(a, b):
            return jnp.tanh(a @ b).sum()
        say("loss %.3f" % float(wide_step(a, b)))
        return
    if name == "caught_oom_halving_exit0":
        train(5)
        rows = 4 * FAIL_ROWS
        while True:
            try:
                big_output(jax, jnp, rows, FAIL_COLS)(1.0).block_until_ready()
                say("batch of %d rows fits" % rows)
                break
            except Exception:  # noqa: BLE001 - the program's own back-off
                say("batch of %d rows does not fit; halving" % rows)
                rows //= 2
        train(5)
        return
    raise SystemExit("unknown job " + name)


def run_holder(gib, ready_file, seconds):
    keep = hold_with_torch(gib)  # noqa: F841
    open(ready_file, "w").close()
    time.sleep(seconds)


# ==========================================================================
# Orchestrator
# ==========================================================================
def wait_for(path, proc, limit):
    t0 = time.time()
    while not os.path.exists(path):
        if proc.poll() is not None or time.time() - t0 > limit:
            return False
        time.sleep(0.2)
    return True


def child(args, log_path, env, timeout):
    f = open(log_path, "wb")
    p = subprocess.Popen([sys.executable, HERE] + args, stdout=f, stderr=subprocess.STDOUT,
                         env=env, stdin=subprocess.DEVNULL)
    return p, f, timeout


def finish(p, f, timeout):
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        rc = "timeout"
    f.close()
    return rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--deadline", type=float, default=420)
    ap.add_argument("--job")
    ap.add_argument("--hold", type=float)
    ap.add_argument("--ready")
    ap.add_argument("--go")
    a = ap.parse_args()
    if a.hold:
        return run_holder(a.hold, a.ready, 150)
    if a.job:
        return run_job(a.job, a.ready, a.go)

    os.makedirs(a.outdir, exist_ok=True)
    base = dict(os.environ, PYTHONUNBUFFERED="1")
    for k in list(base):
        if k.startswith(("XLA_", "TF_CPP", "JAX_")):
            del base[k]
    manifest = {"captured_at_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "python": platform.python_version(), "jobs": {}}
    try:
        manifest["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:  # noqa: BLE001
        manifest["nvidia_smi"] = str(e)
    try:
        manifest["versions"] = subprocess.run(
            [sys.executable, "-c", "import jax, jaxlib, optax, torch, cupy; print(jax.__version__, "
             "jaxlib.__version__, optax.__version__, torch.__version__, cupy.__version__)"],
            capture_output=True, text=True, timeout=120).stdout.strip()
    except Exception as e:  # noqa: BLE001
        manifest["versions"] = str(e)
    started = time.time()
    todo = [j for j in JOBS if not a.only or j[0] in a.only]
    done_second = False
    for name, desc, env_over, hold_gib, request in todo:
        if name == "two_jobs_second" and done_second:
            continue
        if time.time() - started > a.deadline:
            manifest["jobs"][name] = {"skipped": "deadline"}
            continue
        env = dict(base, **env_over)
        ready = os.path.join(a.outdir, ".%s.ready" % name)
        go = os.path.join(a.outdir, ".%s.go" % name)
        entry = {"description": desc, "env": env_over, "log": name + ".log"}
        holder = first = None
        t0 = time.time()
        if hold_gib:
            holder = child(["--hold", str(hold_gib), "--ready", ready],
                           os.path.join(a.outdir, name + ".holder.log"), base, 170)
            entry["held_by_another_process_gib"] = hold_gib
            entry["holder_log"] = name + ".holder.log"
            if not wait_for(ready, holder[0], 90):
                entry["error"] = "holder did not start"
        if name == "two_jobs_first":
            # Both jobs of the pair run together; each has its own log and entry.
            first = child(["--job", name, "--ready", ready, "--go", go],
                          os.path.join(a.outdir, name + ".log"), env, 200)
            if not wait_for(ready, first[0], 120):
                entry["error"] = "first job did not start training"
            s_name, s_desc, s_env, _, s_req = [j for j in JOBS if j[0] == "two_jobs_second"][0]
            t1 = time.time()
            rc2 = finish(*child(["--job", s_name], os.path.join(a.outdir, s_name + ".log"),
                                dict(base, **s_env), 150))
            manifest["jobs"][s_name] = {"description": s_desc, "env": s_env, "log": s_name + ".log",
                                        "returncode": rc2, "failed": rc2 != 0,
                                        "failing_request_bytes": s_req,
                                        "seconds": round(time.time() - t1, 1),
                                        "runs_beside": name}
            done_second = True
            open(go, "w").close()
            rc = finish(*first)
        else:
            rc = finish(*child(["--job", name], os.path.join(a.outdir, name + ".log"), env, 150))
        if holder:
            holder[0].kill()
            finish(*holder)
        entry.update({"returncode": rc, "failed": rc != 0, "failing_request_bytes": request,
                      "seconds": round(time.time() - t0, 1)})
        manifest["jobs"][name] = entry
        print("jobs: %-32s rc=%s %.1fs" % (name, rc, time.time() - t0), flush=True)
        with open(os.path.join(a.outdir, "jobs-manifest.json"), "w") as f:
            json.dump(manifest, f, indent=2, sort_keys=True)
        for p in (ready, go):
            if os.path.exists(p):
                os.remove(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
