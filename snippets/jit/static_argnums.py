# platform: tpu rtol=1e-4 -- A TPU computes float32 tanh with its own approximation, so the last digits differ (up to 3e-5)
# platform: gpu differs -- A GPU computes float32 tanh with its own approximation, so the last digits differ

import jax
import jax.numpy as jnp


def mlp_activation(x, activation):
    """Apply a named activation. x: (n,), activation: str -> (n,)."""
    if activation == "relu":  # fine: activation is a Python str, not a tracer
        return jnp.maximum(x, 0.0)
    return jnp.tanh(x)


act = jax.jit(mlp_activation, static_argnums=1)
x = jnp.array([-1.0, 0.5, 2.0])
print("relu:", act(x, "relu"))
print("tanh:", act(x, "tanh"))
