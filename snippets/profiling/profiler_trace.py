import tempfile

import jax

from _mlp import init_mlp, mlp
from _trace import record_forward_steps, trace_files

params = init_mlp(jax.random.key(0), [256] * 5)
x = jax.random.normal(jax.random.key(1), (128, 256))
forward = jax.jit(mlp)

with tempfile.TemporaryDirectory() as log_dir:
    record_forward_steps(log_dir, forward, params, x)  # the function above
    for name in trace_files(log_dir):  # <run>: the time stamp of the run
        print(name)
