import jax.numpy as jnp

p = jnp.array([0.5, 0.3, 0.2])  # target model's next-token distribution
q = jnp.array([0.2, 0.6, 0.2])  # draft model's distribution

accept = jnp.minimum(1.0, p / q)  # chance of keeping a drafted token
residual = jnp.maximum(p - q, 0.0)
residual = residual / residual.sum()  # resample from here after a rejection
print("accept probability per drafted token:", accept)
print("resampling distribution after a rejection:", residual)

# chance that the drafted token is rejected
reject = jnp.sum(q * (1.0 - accept))
print(
    "kept drafts + resampled rejections:",
    q * accept + reject * residual,
    " target:",
    p,
)
