import jax
import jax.numpy as jnp
import numpy as np

from practice.arrays.stable_logsumexp.solution import log_softmax, logsumexp

x = jnp.array([1000.0, 1000.0])
print("naive log(sum(exp(x))):", jnp.log(jnp.sum(jnp.exp(x))))
print("logsumexp(x):          ", logsumexp(x))
print("1000 + log 2:          ", 1000 + jnp.log(2.0))
print("naive, for -x:         ", jnp.log(jnp.sum(jnp.exp(-x))))
print("logsumexp(-x):         ", logsumexp(-x))

rows = jnp.array([[0.0, -jnp.inf, 0.0], [-jnp.inf, -jnp.inf, -jnp.inf]])
print("logsumexp(rows, axis=1):", logsumexp(rows, axis=1))

y = jax.random.normal(jax.random.key(0), (2, 3, 4)) * 50
print(
    "matches jax.nn.logsumexp, axis=(0, 2):",
    jnp.allclose(logsumexp(y, axis=(0, 2)), jax.nn.logsumexp(y, axis=(0, 2))),
)
log_probs = log_softmax(jnp.array([1000.0, 1000.0, 0.0]))
print(
    "log_softmax([1000, 1000, 0]):",
    np.array2string(np.asarray(log_probs), precision=3, suppress_small=True),
)
