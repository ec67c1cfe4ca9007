import gzip
import json
import tempfile
from pathlib import Path

import jax

from snippets.profiling._mlp import init_mlp, mlp
from snippets.profiling._trace import shown_name

params = init_mlp(jax.random.key(0), [256] * 5)
x = jax.random.normal(jax.random.key(1), (128, 256))
forward = jax.jit(mlp)
forward(params, x).block_until_ready()  # compile before tracing

with tempfile.TemporaryDirectory() as log_dir:
    with jax.profiler.trace(log_dir, create_perfetto_trace=True):
        for _ in range(3):
            # a named span in the timeline
            with jax.profiler.TraceAnnotation("forward_step"):
                forward(params, x).block_until_ready()

    shown = []
    for path in Path(log_dir).rglob("*"):
        if path.is_file():
            rel = path.relative_to(log_dir)  # plugins/profile/<stamp>/<file>
            name = shown_name(rel.name)
            shown.append(Path(*rel.parts[:2], "<run>", name))
    for path in sorted(shown):  # in the same order whatever the host's name
        print(path)  # sizes vary from run to run: the trace records timings

    trace_file = next(Path(log_dir).rglob("*.trace.json.gz"))
    events = json.loads(gzip.decompress(trace_file.read_bytes()))[
        "traceEvents"
    ]
    names = [event.get("name", "") for event in events]
    print("events named forward_step:", names.count("forward_step"))
    print(
        "jitted calls seen:",
        sorted({n for n in names if n.startswith("PjitFunction")}),
    )
