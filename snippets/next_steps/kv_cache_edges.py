import jax
import jax.numpy as jnp
from jax import lax


def rows_changed(before, after):
    """Indices of the rows that differ. before, after: (n, d) -> list."""
    return jnp.flatnonzero(jnp.any(before != after, axis=1)).tolist()


cache = jnp.zeros((6, 3))  # 6 positions
two = jnp.ones((2, 3))  # 2 new rows, written at position 5: one too many
clamped = lax.dynamic_update_slice(cache, two, (5, 0))
print("dynamic_update_slice, 2 rows at 5: rows", rows_changed(cache, clamped))
dropped = cache.at[7].set(jnp.ones(3))  # position 7 of 6
print(".at[7].set:                        rows", rows_changed(cache, dropped))


def write(cache, new, pos):
    """Write one row. cache: (max_len, d), new: (d,), pos: () -> cache."""
    return lax.dynamic_update_slice(cache, new[None, :], (pos, 0))


row = jnp.ones(64)
for donate in (False, True):
    step = jax.jit(write, donate_argnums=0) if donate else jax.jit(write)
    old = jnp.zeros((1024, 64))  # 256 KiB
    address = old.unsafe_buffer_pointer()
    new = step(old, row, 3)
    reused = new.unsafe_buffer_pointer() == address
    print(
        f"donate={donate!s:5}: old cache deleted {old.is_deleted()!s:5} |"
        f" new cache in the old buffer {reused}"
    )
