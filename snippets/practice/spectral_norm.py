import jax
import jax.numpy as jnp

from practice.jit_scan.spectral_norm.solution import (
    power_iteration,
    spectral_normalize,
)

w = jax.random.normal(jax.random.key(0), (6, 4))
print(f"jnp.linalg.norm(w, ord=2): {jnp.linalg.norm(w, ord=2):.4f}")
for n_iters in [0, 1, 3, 10, 50]:
    sigma, u, v = power_iteration(w, jax.random.key(1), n_iters)
    print(f"power iteration, {n_iters:2d} steps: {sigma:.4f}")

sigma, u, v = power_iteration(w, jax.random.key(1), 100)
print("w @ v == sigma * u:", jnp.allclose(w @ v, sigma * u, atol=1e-5))

for n_iters in [3, 100]:
    jaxpr = jax.make_jaxpr(
        lambda w: power_iteration(w, jax.random.key(1), n_iters)
    )(w)
    print(
        f"traced program for {n_iters:3d} steps: "
        f"{len(str(jaxpr).splitlines())} lines"
    )
oracle = jax.make_jaxpr(lambda w: jnp.linalg.norm(w, ord=2))(w)
print("jnp.linalg.norm(w, ord=2) calls an SVD:", "svd" in str(oracle))

w_sn = jax.jit(spectral_normalize)(w, jax.random.key(1))
sigma_sn = jnp.linalg.norm(w_sn, ord=2)
print(f"spectral norm after spectral_normalize: {sigma_sn:.4f}")
