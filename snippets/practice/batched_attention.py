import jax
import jax.numpy as jnp

from practice.vectorization.batched_attention.solution import (
    attention,
    batched_attention,
)

kq, kk, kv = jax.random.split(jax.random.key(0), 3)
q = jax.random.normal(kq, (2, 4, 3, 8))  # (B, T, N, H)
k = jax.random.normal(kk, (2, 4, 3, 8))
v = jax.random.normal(kv, (2, 4, 3, 8))

# float32 matrix products on any device (a GPU or TPU rounds them by default)
with jax.default_matmul_precision("float32"):
    out = batched_attention(q, k, v, causal=True)
    reference = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    example_1 = attention(q[1], k[1], v[1], causal=True)
print("output shape (B, T, N, H):", out.shape)
print(
    "matches jax.nn.dot_product_attention:",
    jnp.allclose(out, reference, atol=1e-5),
)
print(
    "position 0 of example 1 copies v[1, 0]:", jnp.allclose(out[1, 0], v[1, 0])
)
print(
    "example 1 equals attention(q[1], k[1], v[1]):",
    jnp.allclose(out[1], example_1),
)
