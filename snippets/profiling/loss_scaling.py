import jax
import jax.numpy as jnp

from snippets.profiling._regression import loss, w, x, y

w16, x16, y16 = (a.astype(jnp.float16) for a in (w, x, y))
print(
    "float32 reference gradient: "
    f"{float(jax.jit(jax.grad(loss))(w, x, y)):.4g}"
)


def scaled_grad(scale):
    """Gradient of scale * loss in float16, then divided by scale in
    float32."""
    s16 = jnp.asarray(scale).astype(jnp.float16)
    g16 = jax.jit(jax.grad(lambda w: s16 * loss(w, x16, y16)))(w16)
    return s16, g16, g16.astype(jnp.float32) / scale


for power in (10, 16):
    s16, g16, g = scaled_grad(2.0**power)
    print(
        f"S = 2**{power}: S as float16 {float(s16):g}, float16 grad "
        f"{float(g16):.4g},"
        f" unscaled {float(g):.4g}, finite: {bool(jnp.isfinite(g))}"
    )
