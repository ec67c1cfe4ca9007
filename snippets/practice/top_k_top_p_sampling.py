# platform: tpu differs -- A TPU computes float32 log with its own approximation: log(0.2) prints -1.6094602 where the CPU prints -1.609438, and the printed columns shift with it; the filters and the token frequencies are the same
import jax
import jax.numpy as jnp
import numpy as np

from practice.decoding.top_k_top_p_sampling.solution import (
    sample,
    top_k_filter,
    top_p_filter,
)

logits = jnp.log(jnp.array([0.5, 0.2, 0.2, 0.1]))
print("top_k_filter(k=2):  ", top_k_filter(logits, 2))
print("top_p_filter(p=0.6):", top_p_filter(logits, 0.6))
print("top_p_filter(p=0.75):", top_p_filter(logits, 0.75))

# 10,000 draws, one per row, with a single key
batch = jnp.tile(logits, (10_000, 1))
for kwargs in [{}, {"top_k": 2}, {"top_p": 0.75}, {"temperature": 0.5}]:
    tokens = sample(jax.random.key(0), batch, **kwargs)
    freq = np.bincount(np.asarray(tokens), minlength=4) / tokens.size
    print(f"{str(kwargs):20s} token frequencies: {np.round(freq, 3)}")

# p = 1 keeps every token, though the float32 mass before the last is 1.0
z = jnp.array([0.0, -20.0, -3.0])
probs = jnp.sort(jax.nn.softmax(z))[::-1]  # most probable first
print("mass before each token:", jnp.cumsum(probs) - probs)
print("top_p_filter(z, p=1.0):", top_p_filter(z, 1.0))
