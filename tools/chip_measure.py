"""``python -m tools.chip_measure``: what one accelerator chip does, measured, for the book's
performance pages (docs/accelerators.md, guide/sharding_costs.md), which render the committed record
and never measure again on the CPU build.

Each part writes its figures into ``--out``/chip.json as soon as it ends, stamped like the
accelerator check (:func:`tools.accelerator.stamp`), so a run stopped early still leaves what it
measured:

- ``roofline``: ``(M, 8192) @ (8192, 8192)`` products for M from 1 to 8192 (arithmetic intensity
  from about 1 to a few thousand FLOPs per byte), in bfloat16 and in float32 at each precision:
  achieved TFLOP/s; and memory-bound operations' GB/s;
- ``training``: a decoder-only transformer like the capstone's, scaled to fill the chip: step time,
  MFU and compiled temporary memory, with and without remat, in bfloat16 and float32;
- ``trace``: one ``jax.profiler`` trace of three training steps, summarised from its Perfetto JSON
  (device time by kind of operation, host gaps); the trace itself is kept beside chip.json;
- ``scan``: the rolled-scan cost per step against ``unroll=16``;
- ``float16``: the float16 gradient that underflows on a CPU, and loss scaling, on this chip.

``--small`` runs every part at sizes a CPU finishes in a minute (a rehearsal, not a measurement).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
import traceback
from functools import partial
from pathlib import Path

#: Published figures of the chips the book quotes (per chip), with their source.
DATASHEETS = {
    "TPU v5 lite": {
        "name": "TPU v5e",
        "bf16_tflops": 197.0,
        "int8_tops": 394.0,
        "hbm_gib": 16,
        "hbm_gbps": 819.0,
        "ici_gbit_per_chip": 1600,
        "source": "https://cloud.google.com/tpu/docs/v5e",
    },
}


#: The training runs' checkpoint policy (jax.checkpoint_policies): the products with the weights
#: are saved; attention's batched products, softmax, norms and GELU are recomputed.
REMAT_POLICY = "dots_with_no_batch_dims_saveable"


def now() -> float:
    return time.perf_counter()


def timed(fn, *args, reps: int = 10, warm: int = 2) -> dict:
    """Seconds per call of ``fn(*args)`` (already jitted): ``reps`` calls dispatched back to back
    and waited for once, after ``warm`` calls (the first compiles); median of three such batches."""
    import jax

    for _ in range(warm):
        jax.block_until_ready(fn(*args))
    batches = []
    for _ in range(3):
        start = now()
        out = None
        for _ in range(reps):
            out = fn(*args)
        jax.block_until_ready(out)
        batches.append((now() - start) / reps)
    return {"seconds": statistics.median(batches), "batches": batches}


class Record:
    """chip.json, written again after each part."""

    def __init__(self, out: Path, small: bool):
        from tools import accelerator

        self.path = out / "chip.json"
        self.data = {"stamp": accelerator.stamp(), "small": small, "parts": {}, "errors": {}}
        kind = self.data["stamp"]["device_kind"]
        self.data["datasheet"] = DATASHEETS.get(kind)
        self.save()

    def save(self) -> None:
        self.path.write_text(json.dumps(self.data, indent=1) + "\n", encoding="utf-8")

    def part(self, name: str, fn, *args) -> None:
        start = now()
        print(f"== {name}", flush=True)
        try:
            self.data["parts"][name] = fn(*args)
        except Exception:  # noqa: BLE001 - one part's failure must not lose the others
            self.data["errors"][name] = traceback.format_exc()[-3000:]
            print(self.data["errors"][name], flush=True)
        self.data["parts"].setdefault(name, {})
        if isinstance(self.data["parts"][name], dict):
            self.data["parts"][name]["part_seconds"] = round(now() - start, 1)
        self.save()


# ---------------------------------------------------------------- roofline


def roofline(small: bool) -> dict:
    import jax
    import jax.numpy as jnp
    from jax import lax

    k = n = 512 if small else 8192
    ms = [1, 4, 16, 64, 256] if small else [1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192]
    variants = [
        ("bfloat16", jnp.bfloat16, None),
        ("float32 default", jnp.float32, None),
        ("float32 high", jnp.float32, lax.Precision.HIGH),
        ("float32 highest", jnp.float32, lax.Precision.HIGHEST),
    ]
    keys = iter(jax.random.split(jax.random.key(0), len(variants) * (len(ms) + 1)))
    rows = []
    for label, dtype, precision in variants:
        b = jax.random.normal(next(keys), (k, n), dtype)
        product = jax.jit(partial(jnp.matmul, precision=precision))
        for m in ms:
            a = jax.random.normal(next(keys), (m, k), dtype)
            t = timed(product, a, b, reps=5 if small else 10)["seconds"]
            size = jnp.dtype(dtype).itemsize
            flops, moved = 2 * m * k * n, size * (m * k + k * n + m * n)
            rows.append(
                {
                    "variant": label,
                    "m": m,
                    "k": k,
                    "n": n,
                    "seconds": t,
                    "intensity": flops / moved,
                    "tflops": flops / t / 1e12,
                    "gbps": moved / t / 1e9,
                }
            )
            print(f"  {label:16} M={m:5}  {t * 1e6:9.1f} us  {flops / t / 1e12:7.1f} TFLOP/s", flush=True)
        del b
    # memory-bound: read and write (scale), read only (sum), in float32 and bfloat16
    count = (1 << 20) if small else (1 << 28)  # 1 GiB of float32
    memory = []
    for label, dtype in (("float32", jnp.float32), ("bfloat16", jnp.bfloat16)):
        x = jnp.ones((count,), dtype)
        size = jnp.dtype(dtype).itemsize
        for op, fn, moved in (
            ("x * 2 + 1", jax.jit(lambda x: x * 2 + 1), 2 * count * size),
            ("sum(x)", jax.jit(lambda x: jnp.sum(x, dtype=jnp.float32)), count * size),
        ):
            t = timed(fn, x, reps=5 if small else 20)["seconds"]
            memory.append({"op": op, "dtype": label, "bytes": moved, "seconds": t, "gbps": moved / t / 1e9})
            print(f"  {op:10} {label:9} {moved / t / 1e9:8.1f} GB/s", flush=True)
        del x
    best = {}
    for row in rows:
        best[row["variant"]] = max(best.get(row["variant"], 0.0), row["tflops"])
    gbps = max(m["gbps"] for m in memory)
    peak = best.get("bfloat16", 0.0)
    return {
        "matmul": rows,
        "memory": memory,
        "best_tflops": best,
        "best_gbps": gbps,
        "measured_ridge": peak * 1e12 / (gbps * 1e9),
    }


# ---------------------------------------------------------------- training


def transformer(config: dict):
    """init(key) and a train step of a decoder-only transformer like the capstone's (pre-norm,
    layers stacked and scanned, float32 master weights cast to ``dtype``, Adam)."""
    import jax
    import jax.numpy as jnp
    import optax
    from jax import lax

    V, D, H, F, L, S = (config[x] for x in ("vocab", "width", "heads", "mlp", "layers", "seq"))
    K = D // H
    dt = jnp.dtype(config["dtype"])

    def init(key):
        ks = jax.random.split(key, 6)

        def normal(key, shape, fan_in):
            return jax.random.normal(key, shape, jnp.float32) / math.sqrt(fan_in)

        return {
            "embed": normal(ks[0], (V, D), 1),
            "pos": normal(ks[1], (S, D), 100),
            "blocks": {
                "norm1": jnp.ones((L, D)),
                "qkv": normal(ks[2], (L, D, 3, H, K), D),
                "out": normal(ks[3], (L, H, K, D), 2 * L * D),
                "norm2": jnp.ones((L, D)),
                "up": normal(ks[4], (L, D, F), D),
                "down": normal(ks[5], (L, F, D), 2 * L * F),
            },
            "norm": jnp.ones((D,)),
        }

    def rms_norm(x, scale):
        y = x.astype(jnp.float32)
        y = y * lax.rsqrt(jnp.mean(y * y, axis=-1, keepdims=True) + 1e-6)
        return (y * scale).astype(x.dtype)

    def block(x, p):
        h = rms_norm(x, p["norm1"])
        q, k, v = jnp.einsum("bsd,dthk->tbshk", h, p["qkv"].astype(dt))
        scores = jnp.einsum("bshk,bthk->bhst", q, k, preferred_element_type=jnp.float32)
        causal = jnp.tril(jnp.ones((S, S), bool))
        scores = jnp.where(causal, scores / math.sqrt(K), -jnp.inf)
        att = jax.nn.softmax(scores, axis=-1).astype(dt)
        o = jnp.einsum("bhst,bthk->bshk", att, v)
        x = x + jnp.einsum("bshk,hkd->bsd", o, p["out"].astype(dt))
        h = rms_norm(x, p["norm2"])
        h = jax.nn.gelu(h @ p["up"].astype(dt))
        return x + h @ p["down"].astype(dt)

    if config["remat"]:
        block = jax.checkpoint(block, policy=getattr(jax.checkpoint_policies, REMAT_POLICY))

    def loss(params, tokens):
        x = (params["embed"][tokens[:, :-1]] + params["pos"][:S]).astype(dt)
        x, _ = lax.scan(lambda x, p: (block(x, p), None), x, params["blocks"])
        x = rms_norm(x, params["norm"])
        logits = jnp.einsum("bsd,vd->bsv", x, params["embed"].astype(dt), preferred_element_type=jnp.float32)
        return optax.softmax_cross_entropy_with_integer_labels(logits, tokens[:, 1:]).mean()

    optimizer = optax.adam(1e-4)

    def step(params, state, tokens):
        value, grads = jax.value_and_grad(loss)(params, tokens)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, value

    n_params = L * (3 * D * D + D * D + 2 * D * F + 2 * D) + V * D + S * D + D
    # 6 N per token for the weights' products (forward and backward), plus attention's scores and
    # weighted sum: 2 products of s x s x D per layer forward, half of them masked (counted whole,
    # as MFU conventions do), times 3 with the backward.
    flops_per_token = 6 * (n_params - S * D) + 6 * 2 * L * S * D
    return init, step, optimizer, n_params, flops_per_token


def training(small: bool, peak_tflops: float | None, record: Record | None = None) -> dict:

    base = (
        {"vocab": 256, "width": 64, "heads": 4, "mlp": 256, "layers": 2, "seq": 64, "batch": 4}
        if small
        else {"vocab": 32768, "width": 1024, "heads": 8, "mlp": 4096, "layers": 16, "seq": 512, "batch": 8}
    )
    rows = []
    if record is not None:  # each run is saved as it ends
        record.data["parts"]["training"] = {"config": base, "runs": rows}
    for dtype in ("bfloat16", "float32"):
        for remat in (False, True):
            config = dict(base, dtype=dtype, remat=remat)
            if remat:  # the record names what was recomputed
                config["remat_policy"] = REMAT_POLICY
            try:
                rows.append(train_run(config, base, peak_tflops, small))
            except Exception as exc:  # noqa: BLE001 - out of memory, say: the other runs still count
                rows.append({**config, "error": f"{type(exc).__name__}: {str(exc)[:500]}"})
                print(f"  {dtype} remat={remat}: {rows[-1]['error']}", flush=True)
            if record is not None:
                record.save()
    return {"config": base, "runs": rows}


def train_run(config: dict, base: dict, peak_tflops: float | None, small: bool) -> dict:
    """One configuration's compile, memory and step time."""
    import jax

    init, step, optimizer, n_params, flops_per_token = transformer(config)
    params = jax.jit(init)(jax.random.key(0))
    state = jax.jit(optimizer.init)(params)
    tokens = jax.random.randint(jax.random.key(1), (base["batch"], base["seq"] + 1), 0, base["vocab"])
    jitted = jax.jit(step, donate_argnums=(0, 1))
    start = now()
    compiled = jitted.lower(params, state, tokens).compile()
    compile_s = now() - start
    memory = compiled.memory_analysis()
    temp = getattr(memory, "temp_size_in_bytes", None) if memory is not None else None
    for _ in range(2):
        params, state, value = compiled(params, state, tokens)
    jax.block_until_ready(value)
    times = []
    for _ in range(3 if small else 5):
        start = now()
        params, state, value = compiled(params, state, tokens)
        jax.block_until_ready(value)
        times.append(now() - start)
    t = statistics.median(times)
    tokens_per_step = base["batch"] * base["seq"]
    achieved = flops_per_token * tokens_per_step / t / 1e12
    row = {
        **config,
        "params": n_params,
        "tokens_per_step": tokens_per_step,
        "flops_per_step": flops_per_token * tokens_per_step,
        "compile_seconds": compile_s,
        "step_seconds": t,
        "step_times": times,
        "tflops": achieved,
        "mfu": achieved / peak_tflops if peak_tflops else None,
        "temp_bytes": temp,
        "loss": float(value),
    }
    print(
        f"  {config['dtype']:8} remat={config['remat']!s:5} step {t * 1e3:8.1f} ms  {achieved:6.1f} TFLOP/s"
        f"  temp {temp / 2**30 if temp else float('nan'):.2f} GiB",
        flush=True,
    )
    del params, state, compiled
    return row


# ---------------------------------------------------------------- trace


def trace(small: bool, out: Path) -> dict:
    """Three steps of the bfloat16 model traced; the trace summarised from its Perfetto JSON."""
    import jax

    base = (
        {"vocab": 256, "width": 64, "heads": 4, "mlp": 256, "layers": 2, "seq": 64, "batch": 4}
        if small
        else {"vocab": 32768, "width": 1024, "heads": 8, "mlp": 4096, "layers": 16, "seq": 512, "batch": 8}
    )
    config = dict(base, dtype="bfloat16", remat=False)
    init, step, optimizer, _, _ = transformer(config)
    params = jax.jit(init)(jax.random.key(0))
    state = jax.jit(optimizer.init)(params)
    tokens = jax.random.randint(jax.random.key(1), (base["batch"], base["seq"] + 1), 0, base["vocab"])
    jitted = jax.jit(step, donate_argnums=(0, 1))
    for _ in range(2):
        params, state, value = jitted(params, state, tokens)
    jax.block_until_ready(value)
    folder = Path(tempfile.mkdtemp(prefix="jaxbook-trace-"))
    start = now()
    with jax.profiler.trace(str(folder), create_perfetto_trace=True):
        for i in range(3):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                params, state, value = jitted(params, state, tokens)
                float(value)  # the host waits for each step, as a loop that logs the loss does
    wall = now() - start
    files = sorted(glob.glob(str(folder / "**" / "*"), recursive=True))
    found = {
        "run": {"dtype": config["dtype"], "remat": config["remat"]},
        "files": [str(Path(f).relative_to(folder)) for f in files if os.path.isfile(f)],
        "wall_seconds": wall,
    }
    perfetto = [f for f in files if f.endswith("perfetto_trace.json.gz")]
    if perfetto:
        kept = out / "perfetto_trace.json.gz"
        shutil.copyfile(perfetto[0], kept)
        found["kept"] = kept.name
        found["summary"] = summarise(kept)
    return found


def summarise(path: Path) -> dict | None:
    """Where a traced step's time went (:func:`tools.chip_record.trace_summary`: time by kind of
    operation, while loops counted once, idle time and the host's gap between steps). The raw trace
    is kept beside chip.json, so that a better summary can be made again from it without a chip."""
    from tools.chip_record import trace_summary

    return trace_summary(path)


# ---------------------------------------------------------------- scan


def scan(small: bool) -> dict:
    """The control-flow page's RNN: 1024 steps of a 16-unit tanh cell, rolled and unrolled."""
    import jax
    import jax.numpy as jnp

    steps, units = 1024, 16
    w = jax.random.normal(jax.random.key(0), (units, units)) / 4
    xs = jax.random.normal(jax.random.key(1), (steps, units))

    def run(unroll):
        def f(h, xs):
            def cell(h, x):
                h = jnp.tanh(h @ w + x)
                return h, None

            return jax.lax.scan(cell, h, xs, unroll=unroll)[0]

        return jax.jit(f)

    rows = []
    h = jnp.zeros((units,))
    for unroll in (1, 16, 128):
        t = timed(run(unroll), h, xs, reps=5 if small else 20)["seconds"]
        rows.append({"unroll": unroll, "seconds": t, "per_step_us": t / steps * 1e6})
        print(f"  unroll={unroll:4}  {t * 1e3:8.3f} ms  {t / steps * 1e6:6.2f} us/step", flush=True)
    return {"steps": steps, "units": units, "runs": rows}


# ---------------------------------------------------------------- float16


def float16(small: bool) -> dict:
    """The profiling page's float16 gradient (snippets/profiling/_regression.py) in each dtype, and
    loss scaling, on this chip; plus what a float16 product keeps when it is stored."""
    import jax
    import jax.numpy as jnp

    from snippets.profiling._mixed import loss_mixed
    from snippets.profiling._regression import loss, w, x, y

    grad_fn = jax.jit(jax.grad(loss))
    grads = {
        jnp.dtype(d).name: float(grad_fn(w.astype(d), x.astype(d), y.astype(d)))
        for d in (jnp.float32, jnp.bfloat16, jnp.float16)
    }
    x16, y16 = x.astype(jnp.float16), y.astype(jnp.float16)

    @jax.jit
    def unscaled(w, scale, x, y):
        return jax.grad(lambda w: scale * loss_mixed(w, x, y))(w) / scale

    scaled = {p: float(unscaled(w, jnp.float32(2.0**p), x16, y16)) for p in (0, 4, 8, 15, 24, 34, 36)}
    tiny = jnp.float16(1e-4)
    stored = jax.jit(lambda a: a * a)(tiny)  # 1e-8: below float16's smallest subnormal (6e-8)
    in_sum = jax.jit(lambda a: jnp.sum(jnp.full((4096,), a) * a, dtype=jnp.float32))(tiny)
    return {
        "gradients": grads,
        "loss_scaling": scaled,
        "product_stored_float16": float(stored),
        "products_summed_in_float32": float(in_sum),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.chip_measure", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("_build/chip"))
    parser.add_argument("--small", action="store_true", help="CPU-sized: a rehearsal, not a measurement")
    parser.add_argument("--parts", default="float16,scan,roofline,trace,training")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    record = Record(args.out, args.small)
    sheet = record.data["datasheet"] or {}
    for name in args.parts.split(","):
        if name == "roofline":
            record.part(name, roofline, args.small)
        elif name == "training":
            record.part(name, training, args.small, sheet.get("bf16_tflops"), record)
        elif name == "trace":
            record.part(name, trace, args.small, args.out)
        elif name == "scan":
            record.part(name, scan, args.small)
        elif name == "float16":
            record.part(name, float16, args.small)
        else:
            raise SystemExit(f"--parts: no part named {name}")
    print(f"chip.json: {record.path}")
    return 1 if record.data["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
