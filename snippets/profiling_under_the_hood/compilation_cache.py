import json
import tempfile
from pathlib import Path

from snippets.sharding._process import new_process

# What each new process runs: python -c CHILD <cache folder> <n> <dtype>
CHILD = """
import json
import sys

import jax
import jax.numpy as jnp
import numpy as np

folder, n, dtype = sys.argv[1], int(sys.argv[2]), sys.argv[3]
defaults = {  # as this process read them, before its updates
    name: getattr(jax.config, name)
    for name in [
        "jax_compilation_cache_dir",
        "jax_persistent_cache_min_compile_time_secs",
        "jax_persistent_cache_min_entry_size_bytes",
        "jax_compilation_cache_max_size",
    ]
}
if jax.config.jax_compilation_cache_dir is None:  # not set by a variable
    jax.config.update("jax_compilation_cache_dir", folder)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)

events = []  # the name of every monitoring event JAX records
jax.monitoring.register_event_listener(lambda name, **_: events.append(name))
timed = []  # the name of every timed step (lowering to MLIR is one)
jax.monitoring.register_event_duration_secs_listener(
    lambda name, _secs, **_: timed.append(name)
)
traces = 0


@jax.jit
def layer(w, x):
    global traces
    traces += 1  # Python runs this line only while JAX traces layer
    return jnp.tanh(x @ w)


w = np.ones((n, n), dtype)
x = np.ones((8, n), dtype)
layer(w, x).block_until_ready()
print(json.dumps({
    "defaults": defaults,
    "traces": traces,
    "lowered": timed.count("/jax/core/compile/jaxpr_to_mlir_module_duration"),
    "min_size_now": jax.config.jax_persistent_cache_min_entry_size_bytes,
    "hit": "/jax/compilation_cache/cache_hits" in events,
    "wrote": "/jax/compilation_cache/cache_misses" in events,
}))
"""


FLAG = {"XLA_FLAGS": "--xla_cpu_prefer_vector_width=128"}
with tempfile.TemporaryDirectory() as folder:
    by_variable = {"JAX_COMPILATION_CACHE_DIR": folder}
    runs = [  # what changes, n, dtype, environment
        ("first process", 64, "float32", {}),
        ("same, by variable", 64, "float32", by_variable),
        ("another shape", 32, "float32", {}),
        ("another dtype", 64, "float16", {}),
        ("another XLA flag", 64, "float32", FLAG),
    ]
    reports = [
        json.loads(new_process(["-c", CHILD, folder, str(n), dtype], **env))
        for _, n, dtype, env in runs
    ]
    names = [p.name for p in Path(folder).iterdir()]

for name, value in reports[0]["defaults"].items():
    print(f"default {name + ':':43} {value}")
print(
    "jax_persistent_cache_min_entry_size_bytes once the cache started:",
    reports[0]["min_size_now"],
)
print()
print("process             x                traced lowered cache hit wrote")
for k, ((what, n, dtype, _), r) in enumerate(zip(runs, reports), start=1):
    x = f"(8, {n}) {dtype}"
    print(
        f"{k} {what:17} {x:16} {r['traces']:<6d} {r['lowered']:<7d} "
        f"{r['hit']!s:9} {r['wrote']}"
    )
print()
print("entries in the folder:", len(names))
print(
    "all named jit_layer-<hash>-cache:",
    all(p.startswith("jit_layer-") and p.endswith("-cache") for p in names),
)
