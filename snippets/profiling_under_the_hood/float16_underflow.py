# platform: tpu differs -- A TPU does float16 elementwise arithmetic in float32, and this compiled gradient does not round its tiny terms back to float16, so they survive: the float16 and bfloat16 gradients both print float32's 1.073e-06. A float16 product that is stored, or summed in float32 inside one jit, still comes out 0.0

import jax
import jax.numpy as jnp

from snippets.profiling._regression import loss, w, x, y

grad_fn = jax.jit(jax.grad(loss))
for dtype in (jnp.float32, jnp.bfloat16, jnp.float16):
    g = grad_fn(w.astype(dtype), x.astype(dtype), y.astype(dtype))
    print(f"{jnp.dtype(dtype).name:9} gradient: {float(g):.4g}")

terms = x * (x * w - y) / x.size  # each example's share of dL/dw (float32)
print(
    f"largest per-example term: {float(jnp.max(terms)):.2g}"
    " | smallest positive float16: "
    f"{float(jnp.finfo(jnp.float16).smallest_subnormal):.2g}"
)
print(
    "terms still nonzero as float16:",
    int(jnp.sum(terms.astype(jnp.float16) != 0)),
    "of",
    x.size,
)
