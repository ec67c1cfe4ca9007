"""Read a trace: the forward_step spans, the program's operations, and
the gaps between steps, when no operation runs."""

import gzip
import json
import tempfile
from pathlib import Path

import jax

from _mlp import init_mlp, mlp
from _trace import draw_timeline, record_forward_steps

params = init_mlp(jax.random.key(0), [256] * 5)
x = jax.random.normal(jax.random.key(1), (128, 256))
forward = jax.jit(mlp)

with tempfile.TemporaryDirectory() as log_dir:
    record_forward_steps(log_dir, forward, params, x)  # the same 3 steps
    trace_file = next(Path(log_dir).rglob("*.trace.json.gz"))
    events = json.loads(gzip.decompress(trace_file.read_bytes()))[
        "traceEvents"
    ]

# a span ("ph": "X") starts at "ts" and lasts "dur", both in µs
spans = sorted(
    (e for e in events if e.get("ph") == "X"), key=lambda e: e["ts"]
)
steps = [e for e in spans if e["name"] == "forward_step"]
# an operation of the compiled program names its HLO instruction:
# in "hlo_op" on a CPU, in "long_name" on a TPU
ops = [e for e in spans if {"hlo_op", "long_name"} & e.get("args", {}).keys()]
n = len(ops) // len(steps)  # each step ran the same program
runs = [ops[i : i + n] for i in range(0, len(ops), n)]
# a gap: from the last operation of one run to the first of the next
gaps = [
    (max(op["ts"] + op["dur"] for op in a), b[0]["ts"])
    for a, b in zip(runs, runs[1:])
]

t0 = steps[0]["ts"]
print("                     start [ms]  length [ms]  operations [ms]")
for i, (step, run) in enumerate(zip(steps, runs)):
    print(
        f"forward_step {i + 1}       {(step['ts'] - t0) / 1e3:10.3f}"
        f"  {step['dur'] / 1e3:11.3f}"
        f"  {sum(op['dur'] for op in run) / 1e3:15.3f}"
    )
    if i < len(gaps):
        start, end = gaps[i]
        print(
            f"  gap: no operation  {(start - t0) / 1e3:10.3f}"
            f"  {(end - start) / 1e3:11.3f}"
        )
print(f"\noperations per step: {n}")

draw_timeline(steps, ops, gaps, t0)
