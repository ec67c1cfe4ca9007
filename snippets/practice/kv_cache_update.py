import jax
import jax.numpy as jnp

from practice.attention.kv_cache_update.solution import (
    init_kv_cache,
    update_kv_cache,
)

cache = init_kv_cache(batch=2, max_len=5, num_kv_heads=1, head_dim=2)
traces = []


@jax.jit
def append(cache, k_new, v_new, pos):
    """Write (B, S, K, H) new keys and values at pos (B,) -> new cache."""
    traces.append(pos)  # a Python side effect: runs only while tracing
    return update_kv_cache(cache, k_new, v_new, pos)


pos = jnp.array([0, 2], jnp.int32)  # sequence 1 already holds two tokens
for step in range(3):
    k_new = jnp.full((2, 1, 1, 2), step + 1.0)  # one new token per sequence
    new_cache = append(cache, k_new, -k_new, pos)
    if step == 0:
        print("old cache untouched:", float(jnp.abs(cache["k"]).sum()) == 0.0)
    cache, pos = new_cache, pos + 1

print("keys of sequence 0 (feature 0):", cache["k"][0, :, 0, 0])
print("keys of sequence 1 (feature 0):", cache["k"][1, :, 0, 0])
print("traces for 3 positions:", len(traces))
