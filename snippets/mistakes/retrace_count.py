import jax
import jax.numpy as jnp
import numpy as np

traces = 0


@jax.jit
def mean_score(x):
    """Mean of tanh over a sequence. x: (length,) -> scalar."""
    global traces
    # counts traces: Python code in a jitted function runs only while tracing
    traces += 1
    return jnp.mean(jnp.tanh(x))


for length in range(5, 17):  # 12 different sequence lengths
    mean_score(np.ones(length, dtype=np.float32))
print("after 12 new lengths, traces:", traces)
for length in range(5, 17):  # the same lengths again
    mean_score(np.ones(length, dtype=np.float32))
print("after repeating them, traces:", traces)
