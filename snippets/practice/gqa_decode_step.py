import jax
import jax.numpy as jnp

from practice.attention.gqa_decode_step.solution import gqa_decode_step

B, L, N, K, H = 2, 6, 8, 2, 4  # 8 query heads share 2 KV heads: groups of 4
kq, kk, kv = jax.random.split(jax.random.key(0), 3)
q = jax.random.normal(kq, (B, N, H))  # the new token of each sequence
k_cache = jax.random.normal(kk, (B, L, K, H))
v_cache = jax.random.normal(kv, (B, L, K, H))
lengths = jnp.array([3, 6], jnp.int32)  # valid cache rows per sequence

out = jax.jit(gqa_decode_step)(q, k_cache, v_cache, lengths)
print("output (B, N, H):", out.shape)

reference = jax.nn.dot_product_attention(
    q[:, None], k_cache, v_cache, key_value_seq_lengths=lengths
)[:, 0]
print(
    "matches jax.nn.dot_product_attention:",
    jnp.allclose(out, reference, atol=1e-5),
)

garbage = k_cache.at[0, 3:].set(1e4)  # rows past the length of sequence 0
print(
    "rows past the length are ignored:",
    jnp.allclose(
        gqa_decode_step(q, garbage, v_cache, lengths), out, atol=1e-6
    ),
)
print(
    "cache size with 2 KV heads vs 8:",
    k_cache.size,
    "vs",
    k_cache.size * N // K,
)
