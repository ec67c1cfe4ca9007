import jax
import jax.numpy as jnp

n_q_heads, n_kv_heads, d, cache_len = 8, 2, 16, 10
group = n_q_heads // n_kv_heads  # query heads that share one key/value head
kq, kk, kv = jax.random.split(jax.random.key(0), 3)
q = jax.random.normal(kq, (n_q_heads, d))  # one new token
k_cache = jax.random.normal(kk, (n_kv_heads, cache_len, d))
v_cache = jax.random.normal(kv, (n_kv_heads, cache_len, d))

# query heads grouped by the kv head they read
q = q.reshape(n_kv_heads, group, d)
scores = jnp.einsum("hgd,htd->hgt", q, k_cache) / jnp.sqrt(d)
out = jnp.einsum("hgt,htd->hgd", jax.nn.softmax(scores, axis=-1), v_cache)
print("scores:", scores.shape, " output:", out.reshape(n_q_heads, d).shape)
print("cache entries per position:", n_kv_heads, "heads instead of", n_q_heads)
