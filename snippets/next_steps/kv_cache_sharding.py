import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

batch, n_q_heads, n_kv_heads, d, cache_len = 8, 8, 2, 16, 10
group = n_q_heads // n_kv_heads
kq, kk, kv = jax.random.split(jax.random.key(0), 3)
q = jax.random.normal(kq, (batch, n_q_heads, d))  # one new token a sequence
k_cache = jax.random.normal(kk, (batch, n_kv_heads, cache_len, d))
v_cache = jax.random.normal(kv, (batch, n_kv_heads, cache_len, d))


def decode(q, k_cache, v_cache):
    """GQA attention of one new token. q: (b, hq, d), caches: (b, hkv, t, d)
    -> (b, hq, d)."""
    q = q.reshape(batch, n_kv_heads, group, d)
    scores = jnp.einsum("bhgd,bhtd->bhgt", q, k_cache) / jnp.sqrt(d)
    weights = jax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("bhgt,bhtd->bhgd", weights, v_cache)
    return out.reshape(batch, n_q_heads, d)


def bytes_per_device(a):
    """Bytes of a's block on device 0."""
    return a.addressable_shards[0].data.nbytes


tp = jax.make_mesh((8,), ("model",))  # 8-way tensor parallelism
try:  # 2 key/value heads cannot be split 8 ways
    jax.device_put(k_cache, NamedSharding(tp, P(None, "model")))
except ValueError as error:
    print(
        "kv heads over 8 devices:",
        type(error).__name__,
        "| does not evenly divide:",
        "does not evenly divide" in str(error),
    )

layouts = {  # per layout: (mesh, query spec, cache spec)
    # 2 groups of 4 devices: each kv head is copied on the 4 devices that
    # hold the 4 query heads reading it.
    "kv heads copied 4 times": (
        jax.make_mesh((2, 4), ("kv", "q")),
        P(None, ("kv", "q")),
        P(None, "kv"),
    ),
    # Data parallel decoding: each device holds whole sequences.
    "batch split 8 ways": (
        jax.make_mesh((8,), ("data",)),
        P("data"),
        P("data"),
    ),
}
whole = decode(q, k_cache, v_cache)
print(f"whole cache: {k_cache.nbytes} bytes of keys")
for name, (mesh, q_spec, cache_spec) in layouts.items():
    args = [
        jax.device_put(a, NamedSharding(mesh, s))
        for a, s in ((q, q_spec), (k_cache, cache_spec), (v_cache, cache_spec))
    ]
    out = jax.jit(decode)(*args)
    print(
        f"{name}: {bytes_per_device(args[1])} bytes of keys a device,"
        f" same output: {bool(jnp.allclose(out, whole, atol=1e-6))}"
    )
