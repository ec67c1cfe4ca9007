import jax
import jax.numpy as jnp


def attention(q, k, v):
    """Scaled dot-product attention for ONE head of ONE sequence.
    q: (T, H), k: (S, H), v: (S, H) -> (T, H)."""
    scores = q @ k.T / jnp.sqrt(q.shape[-1])  # (T, S)
    return jax.nn.softmax(scores, axis=-1) @ v


batch, seq, heads, head_dim = 2, 5, 4, 8
kq, kk, kv = jax.random.split(jax.random.key(0), 3)
q = jax.random.normal(kq, (batch, seq, heads, head_dim))  # layout (B, T, N, H)
k = jax.random.normal(kk, (batch, seq, heads, head_dim))  # (B, S, N, H); S = T
v = jax.random.normal(kv, (batch, seq, heads, head_dim))

# q: (T, N, H), k and v: (S, N, H) -> (T, N, H)
over_heads = jax.vmap(attention, in_axes=1, out_axes=1)
# (B, T, N, H) -> (B, T, N, H)
over_batch = jax.vmap(over_heads, in_axes=0, out_axes=0)
out = over_batch(q, k, v)
print("output shape:", out.shape)
print(
    "matches jax.nn.dot_product_attention:",
    jnp.allclose(out, jax.nn.dot_product_attention(q, k, v), atol=1e-5),
)
