from functools import partial

import jax
import jax.numpy as jnp
from jax import lax

traces = 0


@partial(jax.jit, donate_argnums=0)  # the old cache's buffer is reused
def write_kv(cache, new, pos):
    """Write one position into the cache.

    cache: (max_len, d), new: (d,), pos: () int -> (max_len, d).
    """
    global traces
    traces += 1
    return lax.dynamic_update_slice(cache, new[None, :], (pos, 0))


cache = jnp.zeros((6, 3))
for pos in range(4):  # decode 4 tokens
    cache = write_kv(cache, jnp.full(3, pos + 1.0), pos)
print(cache)
# pos is traced, so one program serves them all
print("positions written: 4, traces:", traces)
same = jnp.zeros((6, 3)).at[2].set(jnp.full(3, 9.0))
print(
    ".at[2].set gives the same as dynamic_update_slice:",
    jnp.array_equal(same, write_kv(jnp.zeros((6, 3)), jnp.full(3, 9.0), 2)),
)
