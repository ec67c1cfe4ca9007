import tempfile

import jax

from snippets.profiling._mlp import init_mlp, mlp
from snippets.profiling._trace import trace_files

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

    for name in trace_files(log_dir):  # <run>: the time stamp of the run
        print(name)
