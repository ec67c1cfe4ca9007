import logging
import sys

import jax
import jax.numpy as jnp


def normalize(x):
    """Scale x to unit norm. x: (n,) -> (n,)."""
    return x / jnp.linalg.norm(x)


normalize_jit = jax.jit(normalize)
# created before logging starts; d is put on device 0, the default, explicitly
a = jnp.ones(3)
d = jax.device_put(jnp.ones(3), jax.devices()[0])

# JAX logs compiles to stderr; show its "Compiling" lines here instead
handler = logging.StreamHandler(sys.stdout)
handler.addFilter(lambda record: record.getMessage().startswith("Compiling"))
logging.getLogger("jax").addHandler(handler)

with jax.log_compiles():
    for name, x in [("a", a), ("d", d)]:
        print(f"call with {name}: shape {x.shape}")
        normalize_jit(x)

logging.getLogger("jax").removeHandler(handler)

traces = []


@jax.jit
def scale(x):
    """Double x, counting traces. x: a pytree of arrays -> the same pytree."""
    traces.append(1)  # runs only while tracing
    return jax.tree.map(lambda v: 2 * v, x)


scale(2.0)  # a Python float: weakly typed
scale(jnp.float32(2.0))  # same shape and dtype, but strongly typed
print("weak, then strong scalar: traces", len(traces))
traces.clear()
scale((jnp.ones(3),))  # a tuple holding one array
scale([jnp.ones(3)])  # a list holding the same array
print("tuple, then list:         traces", len(traces))
