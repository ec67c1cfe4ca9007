"""Mixed precision: float32 master weight and loss, float16 activations."""

import jax.numpy as jnp


def loss_mixed(w, x, y):
    """Float16 forward, float32 mean. w: () f32, x, y: (n,) f16 -> () f32."""
    residual = x * w.astype(jnp.float16) - y  # float16 activations
    return jnp.mean(0.5 * residual.astype(jnp.float32) ** 2)
