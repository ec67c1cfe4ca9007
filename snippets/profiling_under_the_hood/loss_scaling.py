# platform: tpu differs -- A TPU does float16 elementwise arithmetic in float32, and this compiled gradient does not round its tiny terms back to float16, so S = 2**0 already gives the float32 gradient to float16's precision

import jax
import jax.numpy as jnp

from snippets.profiling._mixed import loss_mixed
from snippets.profiling._regression import loss, w, x, y

x16, y16 = x.astype(jnp.float16), y.astype(jnp.float16)


@jax.jit
def unscaled_grad(w, scale, x, y):
    """w, scale: () float32, x, y: (n,) float16 -> float32 gradient."""
    g = jax.grad(lambda w: scale * loss_mixed(w, x, y))(w)
    return g / scale  # unscale in float32, before any update


print(f"float32 reference gradient: {float(jax.grad(loss)(w, x, y)):.5g}")
for power in (0, 4, 8, 15, 24, 34, 36):
    g = unscaled_grad(w, jnp.float32(2.0**power), x16, y16)
    print(f"S = 2**{power:<2}  unscaled gradient {float(g):.5g}  ({g.dtype})")
