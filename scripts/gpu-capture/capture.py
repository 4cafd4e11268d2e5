#!/usr/bin/env python3
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
"""Capture real JAX/XLA GPU out-of-memory messages as test data.

Run on a machine with one NVIDIA GPU and JAX installed (see README.md next to it):

    python3 scripts/gpu-capture/capture.py --outdir DIR [--deadline SECONDS]

The orchestrator (this file without --case) starts one fresh Python process
per case (``--case NAME``), each with its own environment variables, and
writes into DIR, per case:

    NAME.stderr.txt     the child's stderr, verbatim (C++ log lines, then, if
                        the case raised, Python's own uncaught-exception print:
                        the child re-raises after recording, as a user's
                        program would die)
    NAME.stdout.txt     the child's stdout (progress lines printed by this
                        script, prefixed "capture:")
    NAME.exception.txt  str(e) of the first exception, verbatim
    NAME.traceback.txt  traceback.format_exc() of that exception, verbatim

and manifest.json describing versions, environments, requested sizes and
outcomes.  Nothing is edited: files are written as the bytes came.

Safety: only ordinary device allocations made by JAX's allocators (BFC,
platform = cudaMalloc, cuda_async = cuMemAllocAsync); never managed memory.
Each child has a wall-clock timeout and a host-RSS watchdog (large host
arrays are np.zeros, i.e. lazily mapped pages that are never written).
"""

import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
GiB = 1 << 30

F32 = 4
BF16 = 2

# --------------------------------------------------------------------------
# Sizes (exact bytes are computed from these and recorded in the manifest).
# --------------------------------------------------------------------------
# device_put: a host array far larger than an 80 GB H100 (100e9 bytes,
# deliberately not a power of two so human-readable sizes get exercised).
DEVICE_PUT_SHAPE = (25_000, 1_000_000)            # float32 -> 100,000,000,000 B
# jitted program whose two live temporaries exceed the default BFC pool
# (75% of the card) but not the card itself.
TEMPS_COLS = 250_000
TEMPS_ROWS_POOL = 50_000        # f32 50e9 B + bf16 25e9 B = 75e9 B live at once
# ... and one whose temporaries exceed the whole card (also > 139 GiB H200).
TEMPS_ROWS_CARD = 120_000       # f32 120e9 B + bf16 60e9 B = 180e9 B
# jitted program whose single output exceeds the default BFC pool.
OUTPUT_ROWS = 100_000           # f32[100000,250000] = 100e9 B
# small MEM_FRACTION (0.05 of an 80 GB card is about 4 GiB)
SMALL_FRACTION = "0.05"
SMALL_TEMPS_ROWS = 4_000        # cols 250000: f32 4e9 B + bf16 2e9 B = 6e9 B
FRAG_BLOCK_SHAPE = (256, 1024, 1024)   # float32 -> 1 GiB per block
FRAG_REQUEST_SHAPE = (384, 1024, 1024)  # float32 -> 1.5 GiB
# autotune_starved leaves about this much of the small pool free
STARVE_LEFT_BYTES = 48 << 20
# mem_fraction_device_put asks for 4 x 1.5 GiB = 6 GiB (more than the ~4 GiB pool)
MEM_FRACTION_DEVICE_PUT_SHAPE = (4 * 384, 1024, 1024)
# solver_workspace: eigh of an f32[4096,4096] needs its output (64 MiB) from
# XLA's pool and a cuSOLVER workspace (~134 MB) at run time; the pool is
# filled to leave room for the first only.
SOLVER_N = 4096
SOLVER_LEFT_BYTES = 160 << 20


def nbytes(shape, itemsize):
    n = itemsize
    for d in shape:
        n *= d
    return n


def temps_sizes(rows, cols=TEMPS_COLS):
    a = nbytes((rows, cols), F32)
    b = nbytes((rows, cols), BF16)
    return {
        "input": {"shape": "f32[%d]" % cols, "bytes": nbytes((cols,), F32)},
        "temporaries": [
            {"name": "a = broadcast(x)*2", "shape": "f32[%d,%d]" % (rows, cols), "bytes": a},
            {"name": "b = bf16(a*3)", "shape": "bf16[%d,%d]" % (rows, cols), "bytes": b},
        ],
        "temporaries_total_bytes": a + b,
        "output": {"shape": "f32[]", "bytes": 4},
        "note": "a and b are kept live together by lax.optimization_barrier, "
                "so XLA must hold both at once; XLA may add small extra temporaries "
                "(reduction scratch), see memory_analysis.",
    }


# --------------------------------------------------------------------------
# Cases: name -> (env overrides, description, timeout seconds)
# TF_CPP_MIN_LOG_LEVEL=0 everywhere unless the case is about the default.
# --------------------------------------------------------------------------
LOG0 = {"TF_CPP_MIN_LOG_LEVEL": "0"}

CASES = [
    ("control", dict(LOG0), "non-OOM control: a small jit, environment info, memory_stats", 90),
    ("device_put", dict(LOG0),
     "jax.device_put of a float32%s host array (%d bytes) with the default BFC allocator"
     % (str(DEVICE_PUT_SHAPE), nbytes(DEVICE_PUT_SHAPE, F32)), 90),
    ("jit_temps", dict(LOG0),
     "jitted program whose live temporaries (%d bytes) exceed the default BFC pool"
     % temps_sizes(TEMPS_ROWS_POOL)["temporaries_total_bytes"], 90),
    ("mem_fraction_jit", dict(LOG0, XLA_PYTHON_CLIENT_MEM_FRACTION=SMALL_FRACTION),
     "XLA_PYTHON_CLIENT_MEM_FRACTION=%s, jitted program with %d bytes of temporaries"
     % (SMALL_FRACTION, temps_sizes(SMALL_TEMPS_ROWS)["temporaries_total_bytes"]), 90),
    ("mem_fraction_fragmented", dict(LOG0, XLA_PYTHON_CLIENT_MEM_FRACTION=SMALL_FRACTION),
     "XLA_PYTHON_CLIENT_MEM_FRACTION=%s, three 1 GiB arrays, the middle one freed, "
     "then jnp.ones of 1.5 GiB (fragmented pool)" % SMALL_FRACTION, 90),
    ("platform_device_put", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="platform"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=platform, device_put of %d bytes" % nbytes(DEVICE_PUT_SHAPE, F32), 90),
    ("platform_jit", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="platform"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=platform, jitted program with %d bytes of temporaries (> card)"
     % temps_sizes(TEMPS_ROWS_CARD)["temporaries_total_bytes"], 90),
    ("cuda_async_device_put", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="cuda_async"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async, device_put of %d bytes" % nbytes(DEVICE_PUT_SHAPE, F32), 90),
    ("cuda_async_jit", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="cuda_async"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async, jitted program with %d bytes of temporaries (> card)"
     % temps_sizes(TEMPS_ROWS_CARD)["temporaries_total_bytes"], 90),
    ("compile_exceeds_device", dict(LOG0),
     "AOT jax.jit(f).lower(x).compile() of a program whose temporaries (%d bytes) exceed the "
     "whole card, then calling the compiled executable" % temps_sizes(TEMPS_ROWS_CARD)["temporaries_total_bytes"], 90),
    ("jit_output", dict(LOG0),
     "jitted program whose single output f32[%d,%d] (%d bytes) exceeds the default BFC pool"
     % (OUTPUT_ROWS, TEMPS_COLS, nbytes((OUTPUT_ROWS, TEMPS_COLS), F32)), 90),
    ("memory_analysis", dict(LOG0, XLA_PYTHON_CLIENT_PREALLOCATE="false"),
     "not an OOM: compile the jit programs above and record compiled.memory_analysis()", 120),
    ("jit_temps_defaultlog", {},
     "same as jit_temps with JAX's default logging (TF_CPP_MIN_LOG_LEVEL not set)", 90),
    ("cuda_async_jit_pool", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="cuda_async"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async, jitted program with %d bytes of temporaries "
     "(> 75%% default limit, < card)" % temps_sizes(TEMPS_ROWS_POOL)["temporaries_total_bytes"], 90),
    ("mem_fraction_device_put", dict(LOG0, XLA_PYTHON_CLIENT_MEM_FRACTION=SMALL_FRACTION),
     "XLA_PYTHON_CLIENT_MEM_FRACTION=%s, device_put of a float32%s host array (%d bytes)"
     % (SMALL_FRACTION, str(MEM_FRACTION_DEVICE_PUT_SHAPE), nbytes(MEM_FRACTION_DEVICE_PUT_SHAPE, F32)), 90),
    ("prealloc_099", dict(LOG0, XLA_PYTHON_CLIENT_PREALLOCATE="true", XLA_PYTHON_CLIENT_MEM_FRACTION="0.99"),
     "preallocate 99% of the card, then small jit, cuBLAS matmul, cuDNN convolution "
     "(library handles need memory outside the pool)", 90),
    ("prealloc_100", dict(LOG0, XLA_PYTHON_CLIENT_PREALLOCATE="true", XLA_PYTHON_CLIENT_MEM_FRACTION="1.0"),
     "preallocate 100% of the card (more than is free), then small jit, matmul, convolution", 90),
    ("prealloc_0995", dict(LOG0, XLA_PYTHON_CLIENT_PREALLOCATE="true", XLA_PYTHON_CLIENT_MEM_FRACTION="0.995"),
     "preallocate 99.5% of the card (about what is free after the CUDA context), then small jit, "
     "cuBLAS matmul, cuDNN convolution", 90),
    ("autotune_starved", dict(LOG0, XLA_PYTHON_CLIENT_MEM_FRACTION=SMALL_FRACTION),
     "XLA_PYTHON_CLIENT_MEM_FRACTION=%s, pool filled to within ~%d MiB, then a fresh f32 matmul "
     "and convolution are compiled and run (autotuning with almost no scratch memory)"
     % (SMALL_FRACTION, STARVE_LEFT_BYTES >> 20), 90),
    ("vmm_device_put", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="vmm"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=vmm (virtual-memory allocator), device_put of %d bytes"
     % nbytes(DEVICE_PUT_SHAPE, F32), 90),
    ("vmm_jit", dict(LOG0, XLA_PYTHON_CLIENT_ALLOCATOR="vmm"),
     "XLA_PYTHON_CLIENT_ALLOCATOR=vmm, jitted program with %d bytes of temporaries (> card)"
     % temps_sizes(TEMPS_ROWS_CARD)["temporaries_total_bytes"], 90),
    ("pinned_host_device_put", dict(LOG0),
     "device_put of a float32%s host array (%d bytes) into pinned host memory "
     "(memory_kind='pinned_host'), more than the default host memory limit"
     % (str(DEVICE_PUT_SHAPE), nbytes(DEVICE_PUT_SHAPE, F32)), 90),
    ("solver_workspace", dict(LOG0, XLA_PYTHON_CLIENT_MEM_FRACTION=SMALL_FRACTION),
     "XLA_PYTHON_CLIENT_MEM_FRACTION=%s, pool filled to within ~%d MiB, then jnp.linalg.eigh of "
     "f32[%d,%d] (the cuSOLVER workspace does not fit)"
     % (SMALL_FRACTION, SOLVER_LEFT_BYTES >> 20, SOLVER_N, SOLVER_N), 90),
    ("jit_temps_vmodule", dict(LOG0, TF_CPP_VMODULE="gpu_executable=3,buffer_assignment=1"),
     "same as jit_temps with TF_CPP_VMODULE=gpu_executable=3,buffer_assignment=1 (looking for the "
     "BufferAssignment OOM Debugging dump, which jit_temps does not show)", 90),
]
CASE_NAMES = [c[0] for c in CASES]


# ==========================================================================
# Child side
# ==========================================================================
def qualname(tp):
    return "%s.%s" % (tp.__module__, tp.__qualname__)


class Child:
    def __init__(self, name, outdir):
        self.name = name
        self.outdir = outdir
        self.result = {"case": name, "steps": [], "requested": {}}
        self.t0 = time.time()

    def log(self, msg):
        print("capture: [%7.2fs] %s" % (time.time() - self.t0, msg), flush=True)

    def path(self, suffix):
        return os.path.join(self.outdir, "%s.%s" % (self.name, suffix))

    def write_result(self):
        with open(self.path("result.json"), "w") as f:
            json.dump(self.result, f, indent=2, sort_keys=True, default=str)

    def step(self, label, fn):
        """Run fn(); on exception record it verbatim, write files, re-raise."""
        self.log("step %s: start" % label)
        t = time.time()
        try:
            out = fn()
        except BaseException as e:  # noqa: BLE001 - record everything
            tb = traceback.format_exc()
            with open(self.path("exception.txt"), "w") as f:
                f.write(str(e))
            with open(self.path("traceback.txt"), "w") as f:
                f.write(tb)
            info = {
                "label": label,
                "seconds": round(time.time() - t, 3),
                "exception_type": qualname(type(e)),
                "exception_mro": [qualname(c) for c in type(e).__mro__],
                "exception_repr_head": repr(e)[:300],
            }
            try:
                import jax
                info["isinstance_jax.errors.JaxRuntimeError"] = isinstance(
                    e, getattr(jax.errors, "JaxRuntimeError", ()))
            except Exception:  # noqa: BLE001
                pass
            self.result["steps"].append(info)
            self.result["exception"] = {
                "step": label,
                "type": info["exception_type"],
                "exception_file": os.path.basename(self.path("exception.txt")),
                "traceback_file": os.path.basename(self.path("traceback.txt")),
            }
            self.log("step %s: raised %s" % (label, info["exception_type"]))
            self.write_result()
            raise
        if isinstance(out, (int, float, str)) or (
                isinstance(out, (list, tuple)) and all(isinstance(v, (int, str)) for v in out)):
            value = out
        else:  # never repr() device arrays: that would copy them to the host
            value = "<%s>" % qualname(type(out))
        self.result["steps"].append({"label": label, "seconds": round(time.time() - t, 3),
                                     "ok": True, "value": value})
        self.log("step %s: ok" % label)
        self.write_result()
        return out


def memory_stats_safe(dev):
    try:
        s = dev.memory_stats()
        return dict(s) if s is not None else None
    except Exception as e:  # noqa: BLE001
        return "memory_stats() raised %s: %s" % (qualname(type(e)), e)


def run_child(name, outdir):
    c = Child(name, outdir)
    c.write_result()
    import numpy as np
    import jax
    import jax.numpy as jnp

    c.result["jax_version"] = jax.__version__
    dev = c.step("init_devices", lambda: [str(d) for d in jax.devices()])
    d0 = jax.devices()[0]
    c.result["device"] = {"str": str(d0), "platform": d0.platform,
                          "device_kind": getattr(d0, "device_kind", None)}
    c.result["memory_stats_at_start"] = memory_stats_safe(d0)
    del dev

    def temps_fn(rows):
        def temps_exceed_memory(x):
            a = jnp.broadcast_to(x, (rows, x.shape[0])) * 2.0
            b = (a * 3.0).astype(jnp.bfloat16)
            a, b = jax.lax.optimization_barrier((a, b))
            return a.sum() + b.astype(jnp.float32).sum()
        return temps_exceed_memory

    def make_x():
        x = jnp.ones((TEMPS_COLS,), jnp.float32)
        x.block_until_ready()
        return x

    def run_temps(rows):
        c.result["requested"] = temps_sizes(rows)
        x = c.step("make_input", make_x)
        f = jax.jit(temps_fn(rows))
        c.result["memory_stats_before_oom"] = memory_stats_safe(d0)
        c.step("jit_call", lambda: float(f(x)))

    def fill_pool(leave):
        """Fill the pool with 1 GiB (then smaller) arrays until about leave bytes are free."""
        st = d0.memory_stats() or {}
        free = st.get("bytes_limit", 0) - st.get("bytes_in_use", 0)
        want = max(0, free - leave)
        fill_arrays, sizes = [], []
        chunk = 1 << 30
        while want >= (1 << 20):
            n = min(chunk, want)
            n -= n % 4
            fill_arrays.append(jnp.zeros((n // 4,), jnp.uint32).block_until_ready())
            sizes.append(n)
            want -= n
        return fill_arrays, sizes

    def device_put(shape):
        c.result["requested"] = {"shape": "float32%s" % (shape,), "dtype": "float32",
                                 "bytes": nbytes(shape, F32),
                                 "host_array": "np.zeros (lazily mapped pages, never written)"}
        host = np.zeros(shape, np.float32)
        c.result["memory_stats_before_oom"] = memory_stats_safe(d0)
        c.step("device_put", lambda: jax.device_put(host).block_until_ready().shape)

    if name == "control":
        x = c.step("make_input", lambda: jnp.arange(1024, dtype=jnp.float32))

        @jax.jit
        def control_fn(v):
            return jnp.sum(jnp.sin(v) ** 2 + jnp.cos(v) ** 2)
        c.step("jit_call", lambda: float(control_fn(x)))
        m = jnp.ones((512, 512), jnp.float32)
        c.step("matmul", lambda: float((m @ m).sum()))
        c.result["memory_stats_after"] = memory_stats_safe(d0)

        def env_info():
            try:
                return jax.print_environment_info(return_string=True)
            except TypeError:
                return "print_environment_info(return_string=True) not supported"
        info = c.step("environment_info", env_info)
        with open(os.path.join(outdir, "environment_info.txt"), "w") as f:
            f.write(info)
        c.result["steps"][-1]["value"] = "written to environment_info.txt"
        c.write_result()
    elif name in ("device_put", "platform_device_put", "cuda_async_device_put", "vmm_device_put"):
        device_put(DEVICE_PUT_SHAPE)
    elif name == "vmm_jit":
        run_temps(TEMPS_ROWS_CARD)
    elif name == "pinned_host_device_put":
        c.result["requested"] = {"shape": "float32%s" % (DEVICE_PUT_SHAPE,), "dtype": "float32",
                                 "bytes": nbytes(DEVICE_PUT_SHAPE, F32), "memory_kind": "pinned_host",
                                 "host_array": "np.zeros (lazily mapped pages, never written)"}
        host = np.zeros(DEVICE_PUT_SHAPE, np.float32)
        sharding = jax.sharding.SingleDeviceSharding(d0, memory_kind="pinned_host")
        c.step("device_put_pinned_host", lambda: jax.device_put(host, sharding).block_until_ready().shape)
    elif name == "solver_workspace":
        a = c.step("make_input", lambda: (jnp.eye(SOLVER_N, dtype=jnp.float32) * 2.0).block_until_ready())
        # Compiled (and autotuned) before the pool is filled, so that only the
        # run-time workspace allocation can fail.
        eigh = c.step("compile", lambda: jax.jit(lambda m: jnp.linalg.eigh(m)[0].sum()).lower(a).compile())
        fill_arrays, sizes = c.step("fill_pool", lambda: fill_pool(SOLVER_LEFT_BYTES))
        c.result["requested"] = {"fill_arrays_bytes": sizes, "fill_total_bytes": sum(sizes),
                                 "eigh": "f32[%d,%d] (input and eigenvectors %d B each)"
                                         % (SOLVER_N, SOLVER_N, nbytes((SOLVER_N, SOLVER_N), F32))}
        c.result["memory_stats_before_oom"] = memory_stats_safe(d0)
        c.write_result()
        c.step("eigh", lambda: float(eigh(a)))
        del fill_arrays
    elif name == "mem_fraction_device_put":
        device_put(MEM_FRACTION_DEVICE_PUT_SHAPE)
    elif name in ("jit_temps", "jit_temps_defaultlog", "cuda_async_jit_pool"):
        run_temps(TEMPS_ROWS_POOL)
    elif name in ("platform_jit", "cuda_async_jit"):
        run_temps(TEMPS_ROWS_CARD)
    elif name == "mem_fraction_jit":
        run_temps(SMALL_TEMPS_ROWS)
    elif name == "mem_fraction_fragmented":
        blk = nbytes(FRAG_BLOCK_SHAPE, F32)
        c.result["requested"] = {
            "blocks": [{"shape": "f32%s" % (FRAG_BLOCK_SHAPE,), "bytes": blk}] * 3,
            "freed": "the second block",
            "final_request": {"shape": "f32%s" % (FRAG_REQUEST_SHAPE,),
                              "bytes": nbytes(FRAG_REQUEST_SHAPE, F32),
                              "op": "jnp.ones"},
        }

        def alloc_blocks():
            bs = [jnp.ones(FRAG_BLOCK_SHAPE, jnp.float32) for _ in range(3)]
            for b in bs:
                b.block_until_ready()
            return bs
        blocks = c.step("three_blocks", alloc_blocks)
        blocks[1].delete()
        c.result["memory_stats_before_oom"] = memory_stats_safe(d0)
        c.write_result()
        c.step("ones_1_5GiB", lambda: jnp.ones(FRAG_REQUEST_SHAPE, jnp.float32).block_until_ready().shape)
    elif name == "compile_exceeds_device":
        c.result["requested"] = temps_sizes(TEMPS_ROWS_CARD)
        x = c.step("make_input", make_x)
        f = jax.jit(temps_fn(TEMPS_ROWS_CARD))
        compiled = c.step("lower_compile", lambda: f.lower(x).compile())
        try:
            ma = compiled.memory_analysis()
            c.result["memory_analysis"] = {k: getattr(ma, k) for k in dir(ma)
                                           if k.endswith("_in_bytes")}
        except Exception as e:  # noqa: BLE001
            c.result["memory_analysis"] = "raised %s: %s" % (qualname(type(e)), e)
        c.write_result()
        c.step("compiled_call", lambda: float(compiled(x)))
    elif name == "jit_output":
        c.result["requested"] = {
            "input": {"shape": "f32[%d]" % TEMPS_COLS, "bytes": nbytes((TEMPS_COLS,), F32)},
            "output": {"shape": "f32[%d,%d]" % (OUTPUT_ROWS, TEMPS_COLS),
                       "bytes": nbytes((OUTPUT_ROWS, TEMPS_COLS), F32)},
        }
        x = c.step("make_input", make_x)

        @jax.jit
        def make_big_output(v):
            return jnp.broadcast_to(v, (OUTPUT_ROWS, v.shape[0])) + 1.0
        c.result["memory_stats_before_oom"] = memory_stats_safe(d0)
        c.step("jit_call", lambda: make_big_output(x).block_until_ready().shape)
    elif name == "memory_analysis":
        x = c.step("make_input", make_x)
        progs = {
            "temps_pool_rows_%d" % TEMPS_ROWS_POOL: jax.jit(temps_fn(TEMPS_ROWS_POOL)),
            "temps_card_rows_%d" % TEMPS_ROWS_CARD: jax.jit(temps_fn(TEMPS_ROWS_CARD)),
            "temps_small_rows_%d" % SMALL_TEMPS_ROWS: jax.jit(temps_fn(SMALL_TEMPS_ROWS)),
            "big_output_rows_%d" % OUTPUT_ROWS: jax.jit(
                lambda v: jnp.broadcast_to(v, (OUTPUT_ROWS, v.shape[0])) + 1.0),
        }
        analyses = {}
        for k, f in progs.items():
            try:
                ma = f.lower(x).compile().memory_analysis()
                analyses[k] = {a: getattr(ma, a) for a in dir(ma) if a.endswith("_in_bytes")}
            except Exception as e:  # noqa: BLE001
                analyses[k] = "raised %s: %s" % (qualname(type(e)), str(e)[:2000])
            c.log("memory_analysis %s: %s" % (k, analyses[k]))
        c.result["memory_analysis"] = analyses
        c.write_result()
    elif name == "autotune_starved":
        def inputs():
            a = jnp.ones((2048, 2048), jnp.float32) * 0.5
            img = jnp.ones((8, 64, 64, 64), jnp.float32) * 0.5
            ker = jnp.ones((64, 64, 3, 3), jnp.float32) * 0.5
            for v in (a, img, ker):
                v.block_until_ready()
            return a, img, ker
        a, img, ker = c.step("make_inputs", inputs)

        fill_arrays, sizes = c.step("fill_pool", lambda: fill_pool(STARVE_LEFT_BYTES))
        c.result["requested"] = {
            "fill_arrays_bytes": sizes, "fill_total_bytes": sum(sizes),
            "matmul": "f32[2048,2048] @ f32[2048,2048] (operands 16777216 B each, output 16777216 B)",
            "conv": "f32[8,64,64,64] * f32[64,64,3,3] SAME (input 8388608 B, kernel 147456 B, output 8388608 B)",
        }
        c.result["memory_stats_before_oom"] = memory_stats_safe(d0)
        c.write_result()
        c.step("matmul_f32_2048", lambda: float(jax.jit(lambda m: (m @ m.T).sum())(a)))
        c.step("conv_nchw", lambda: float(jax.lax.conv_general_dilated(img, ker, (1, 1), "SAME").sum()))
        c.result["memory_stats_after"] = memory_stats_safe(d0)
        c.write_result()
        del fill_arrays
    elif name == "jit_temps_vmodule":
        run_temps(TEMPS_ROWS_POOL)
    elif name in ("prealloc_099", "prealloc_100", "prealloc_0995"):
        c.result["memory_stats_after_init"] = memory_stats_safe(d0)
        x = c.step("make_input", lambda: jnp.arange(1024, dtype=jnp.float32))
        c.step("small_jit", lambda: float(jax.jit(lambda v: (v * 2).sum())(x)))
        def matmul():
            m = jnp.ones((2048, 2048), jnp.float32)
            return float(jax.jit(lambda a: (a @ a).sum())(m))
        c.step("matmul_f32_2048", matmul)

        def conv():
            img = jnp.ones((8, 64, 64, 64), jnp.float32)
            ker = jnp.ones((64, 64, 3, 3), jnp.float32)
            y = jax.lax.conv_general_dilated(img, ker, (1, 1), "SAME")
            return float(y.sum())
        c.step("conv_nchw", conv)
        c.result["memory_stats_after"] = memory_stats_safe(d0)
        c.write_result()
    else:
        raise SystemExit("unknown case %r" % name)
    c.log("done without exception")


# ==========================================================================
# Orchestrator side
# ==========================================================================
def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout
    except Exception as e:  # noqa: BLE001
        return "error running %r: %s" % (cmd, e)


def rss_bytes(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def gpu_mem_used():
    out = sh(["nvidia-smi", "--query-gpu=memory.used,memory.total", "--format=csv,noheader"])
    return out.strip()


def versions():
    v = {"python": sys.version, "python_executable": sys.executable,
         "platform": platform.platform()}
    try:
        from importlib import metadata
        pkgs = {}
        for dist in metadata.distributions():
            n = (dist.metadata["Name"] or "")
            ln = n.lower()
            if ln.startswith("jax") or ln in ("numpy", "ml-dtypes", "ml_dtypes") or \
                    ln.startswith("nvidia-cudnn") or ln.startswith("nvidia-cublas") or \
                    ln.startswith("nvidia-cuda-runtime") or ln.startswith("nvidia-nccl"):
                pkgs[n] = dist.version
        v["packages"] = dict(sorted(pkgs.items()))
    except Exception as e:  # noqa: BLE001
        v["packages"] = "error: %s" % e
    v["nvidia_smi_query"] = sh(["nvidia-smi", "--query-gpu=name,memory.total,driver_version",
                                "--format=csv"])
    v["nvidia_smi"] = sh(["nvidia-smi"])
    return v


STRING_PATTERNS = [
    b"BufferAssignment OOM", b"OOM Debugging", b"Peak buffers", b"Out of memory while trying",
    b"with allocator", b"Failed to allocate request for", b"tf-allocator-allocation-error",
    b"executable_name", b"ran out of memory", b"Failed to allocate device memory",
    b"cuMemAllocAsync failed", b"Can't reduce memory use", b"exceeds the base limit",
    b"Source Location Trace", b"CompileTimeHbmOom", b"RuntimeBufferAllocationFailure",
    b"openxla.org/xla/errors", b"Execution of replica", b"while running replica",
    b"Out of memory allocating", b"freed_by_count", b"Allocator memory summary",
    b"Spatial partitioning summary", b"region growth hint", b"XLA backend allocating",
    b"XLA backend will use up to", b"Reported by CUDA", b"Out of host memory",
    b"Please set", b"memory fragmentation",
]


def plugin_strings(outdir):
    """Print the OOM-related string constants compiled into the XLA plugin and jaxlib.

    A read-only scan of the installed shared libraries for printable runs that
    contain one of STRING_PATTERNS; it shows which message templates this build
    can print at all.
    """
    import glob
    import mmap
    libs = []
    for mod in ("jax_plugins", "jaxlib"):
        try:
            m = __import__(mod)
            for base in list(getattr(m, "__path__", [])):
                libs += glob.glob(os.path.join(base, "**", "*.so*"), recursive=True)
        except Exception as e:  # noqa: BLE001
            libs.append("import %s failed: %s" % (mod, e))
    ok = set(range(0x20, 0x7f)) | {0x09}
    lines = []
    for lib in sorted(set(libs)):
        if not os.path.isfile(lib) or os.path.getsize(lib) < (1 << 20):
            continue
        found = []
        with open(lib, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            spans = set()
            for pat in STRING_PATTERNS:
                i = mm.find(pat)
                while i != -1 and len(spans) < 2000:
                    a, b = i, i + len(pat)
                    while a > 0 and mm[a - 1] in ok and i - a < 2000:
                        a -= 1
                    while b < len(mm) and mm[b] in ok and b - i < 2000:
                        b += 1
                    spans.add((a, b))
                    i = mm.find(pat, b)
            for a, b in sorted(spans):
                found.append(mm[a:b][:600].decode("ascii", "replace"))
        if found:
            lines.append("### %s (%d bytes): %d matching strings" % (lib, os.path.getsize(lib), len(found)))
            seen = set()
            for sv in found:
                if len(seen) >= 300:
                    lines.append("# ... capped at 300 unique strings for this library")
                    break
                if sv not in seen:
                    seen.add(sv)
                    lines.append(repr(sv))
    with open(os.path.join(outdir, "plugin_strings.txt"), "w") as f:
        f.write("# OOM-related printable strings found in the installed jax plugin / jaxlib "
                "shared libraries (python repr of each string; patterns: %s)\n"
                % ", ".join(p.decode() for p in STRING_PATTERNS))
        f.write("\n".join(lines) + "\n")
    return len(lines)


TRIM_LIMIT = 200 * 1024


def maybe_trim(path):
    """Trim an absurdly long repetitive BFC chunk listing; returns a note or None."""
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    if size <= TRIM_LIMIT:
        return None
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    keep, dropped, seen = [], 0, 0
    for ln in lines:
        if b"bfc_allocator.cc" in ln and (b"] InUse at " in ln or b"] Free  at " in ln
                                          or b"] Chunk at " in ln):
            seen += 1
            if seen > 100:
                dropped += 1
                continue
        keep.append(ln)
    if not dropped:
        return "%d bytes, not trimmed (no repetitive chunk listing found)" % size
    os.rename(path, path + ".full")
    with open(path, "wb") as f:
        f.write(b"\n".join(keep))
    return ("trimmed: kept the first 100 BFC chunk lines, dropped %d further chunk lines "
            "(%d bytes -> %d bytes); full file kept as %s.full in the device tarball only"
            % (dropped, size, os.path.getsize(path), os.path.basename(path)))


def orchestrate(outdir, deadline, only):
    os.makedirs(outdir, exist_ok=True)
    t_start = time.time()
    manifest = {
        "what": "Real JAX/XLA GPU out-of-memory messages captured by scripts/gpu-capture/capture.py",
        "captured_at_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "script": "scripts/gpu-capture/capture.py (run through scripts/gpu-capture/capture.sh)",
        "base_environment_note": "each case runs `%s %s --case NAME --outdir DIR` with the "
                                 "orchestrator's environment plus env_overrides; "
                                 "PYTHONUNBUFFERED=1 is always set" % ("python3", "scripts/gpu-capture/capture.py"),
        "inherited_xla_env": {k: v for k, v in os.environ.items()
                              if k.startswith(("XLA_", "TF_", "JAX_", "CUDA_", "NVIDIA_"))},
        "versions": versions(),
        "cases": [],
    }
    cases = [c for c in CASES if not only or c[0] in only]
    for name, env_over, desc, timeout in cases:
        entry = {"case": name, "description": desc, "env_overrides": env_over,
                 "command": "%s scripts/gpu-capture/capture.py --case %s --outdir DIR"
                            % ("python3", name)}
        elapsed = time.time() - t_start
        if elapsed + 20 > deadline:
            entry["skipped"] = "orchestrator deadline (%.0fs elapsed of %ds)" % (elapsed, deadline)
            manifest["cases"].append(entry)
            print("capture: skip %s (deadline)" % name, flush=True)
            continue
        timeout = min(timeout, max(20, int(deadline - elapsed)))
        entry["gpu_memory_used_before"] = gpu_mem_used()
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        env.update(env_over)
        err_path = os.path.join(outdir, "%s.stderr.txt" % name)
        out_path = os.path.join(outdir, "%s.stdout.txt" % name)
        t0 = time.time()
        max_rss = 0
        status = None
        with open(err_path, "wb") as ferr, open(out_path, "wb") as fout:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--case", name,
                                  "--outdir", outdir], env=env, stdout=fout, stderr=ferr,
                                 stdin=subprocess.DEVNULL)
            while True:
                rc = p.poll()
                if rc is not None:
                    status = "exited"
                    break
                r = rss_bytes(p.pid)
                max_rss = max(max_rss, r)
                if r > 24 * GiB:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    status = "killed by host-RSS watchdog (%d bytes)" % r
                    break
                if time.time() - t0 > timeout:
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    status = "killed after timeout %ds" % timeout
                    break
                time.sleep(0.1)
        entry.update({"status": status, "returncode": p.returncode,
                      "seconds": round(time.time() - t0, 2),
                      "max_host_rss_bytes_sampled": max_rss,
                      "stderr_file": os.path.basename(err_path),
                      "stdout_file": os.path.basename(out_path)})
        res_path = os.path.join(outdir, "%s.result.json" % name)
        if os.path.exists(res_path):
            with open(res_path) as f:
                entry["result"] = json.load(f)
            os.remove(res_path)
        for suffix in ("exception.txt", "traceback.txt"):
            pth = os.path.join(outdir, "%s.%s" % (name, suffix))
            entry[suffix.replace(".txt", "_file")] = os.path.basename(pth) if os.path.exists(pth) else None
        note = maybe_trim(err_path)
        if note:
            entry["stderr_trim"] = note
        entry["gpu_memory_used_after"] = gpu_mem_used()
        manifest["cases"].append(entry)
        exc = (entry.get("result") or {}).get("exception") or {}
        print("capture: %-26s %-10s rc=%-4s %6.1fs exc=%s" % (
            name, status, p.returncode, entry["seconds"], exc.get("type")), flush=True)
        with open(os.path.join(outdir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=2, sort_keys=False, default=str)
    try:
        t = time.time()
        n = plugin_strings(outdir)
        manifest["plugin_strings"] = {"file": "plugin_strings.txt", "lines": n,
                                      "seconds": round(time.time() - t, 1)}
    except Exception as e:  # noqa: BLE001
        manifest["plugin_strings"] = "failed: %s: %s" % (qualname(type(e)), e)
    manifest["total_seconds"] = round(time.time() - t_start, 1)
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=False, default=str)
        f.write("\n")
    print("capture: all done in %.1fs" % manifest["total_seconds"], flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--case", choices=CASE_NAMES)
    ap.add_argument("--only", nargs="*", default=None, help="orchestrate only these cases")
    ap.add_argument("--deadline", type=int, default=450,
                    help="seconds for all cases together (later cases are skipped)")
    a = ap.parse_args()
    if a.case:
        run_child(a.case, a.outdir)
    else:
        orchestrate(a.outdir, a.deadline, a.only)


if __name__ == "__main__":
    main()
