# tolerance: rtol=1e-3 -- float16 math rounds otherwise with AVX-512
import jax
import jax.numpy as jnp

from snippets.profiling._mixed import loss_mixed

LR, GROWTH_INTERVAL = 0.5, 50
kx, kn = jax.random.split(jax.random.key(1))
x = jax.random.normal(kx, (1024,))
y = 3.0 * x + 0.1 * jax.random.normal(kn, (1024,))
x16, y16 = x.astype(jnp.float16), y.astype(jnp.float16)


@jax.jit
def step(w, scale, good_steps):
    """w, scale: () f32, good_steps: () int -> the same three and finite."""
    g = jax.grad(lambda w: scale * loss_mixed(w, x16, y16))(w) / scale
    finite = jnp.isfinite(g)
    w = jnp.where(finite, w - LR * g, w)  # skip the update on inf or nan
    good_steps = jnp.where(finite, good_steps + 1, 0)
    grow = good_steps == GROWTH_INTERVAL
    scale = jnp.where(finite, jnp.where(grow, 2 * scale, scale), scale / 2)
    return w, scale, jnp.where(grow, 0, good_steps), finite


w, scale, good_steps = jnp.float32(0.0), jnp.float32(2.0**15), jnp.int32(0)
for i in range(200):
    w, new_scale, good_steps, finite = step(w, scale, good_steps)
    if new_scale != scale:
        event = "grow after 50 good steps" if finite else "overflow: skipped"
        print(
            f"step {i:3d}: {event:25s} scale 2**{jnp.log2(scale):.0f}"
            f" -> 2**{jnp.log2(new_scale):.0f}"
        )
    scale = new_scale
print(f"w after 200 steps: {float(w):.4f} ({w.dtype}); true slope 3")
