import logging
import sys

import jax
import jax.numpy as jnp


def normalize(x):
    """Scale x to unit norm. x: (n,) -> (n,)."""
    return x / jnp.linalg.norm(x)


normalize_jit = jax.jit(normalize)
# created before logging starts
a, b, c = jnp.ones(3), jnp.zeros(3), jnp.ones(5)

# On your machine, jax.log_compiles() alone prints these lines to stderr,
# with timing lines beside them. This handler only moves the "Compiling"
# lines into this page's output: you need not write it.
handler = logging.StreamHandler(sys.stdout)
handler.addFilter(lambda record: record.getMessage().startswith("Compiling"))
logging.getLogger("jax").addHandler(handler)

with jax.log_compiles():
    for name, x in [("a", a), ("b", b), ("c", c)]:
        print(f"call with {name}: shape {x.shape}")
        normalize_jit(x)

logging.getLogger("jax").removeHandler(handler)
