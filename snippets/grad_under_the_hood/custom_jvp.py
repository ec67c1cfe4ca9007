import jax
import jax.numpy as jnp


def norm(x):
    """Euclidean norm. x: (n,) -> scalar."""
    return jnp.sqrt(jnp.sum(x**2))


@jax.custom_jvp
def safe_norm(x):
    """Euclidean norm, with derivative 0 at x = 0. x: (n,) -> scalar."""
    return jnp.sqrt(jnp.sum(x**2))


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    """The rule: the norm, and its directional derivative x . dx / |x|."""
    (x,), (dx,) = primals, tangents
    y = safe_norm(x)
    nonzero = y > 0
    return y, jnp.where(nonzero, x @ dx / jnp.where(nonzero, y, 1.0), 0.0)


zero, x = jnp.zeros(3), jnp.array([3.0, 0.0, 4.0])
print("grad norm at 0:      ", jax.grad(norm)(zero))
print("grad safe_norm at 0: ", jax.grad(safe_norm)(zero))
print("grad safe_norm at x: ", jax.grad(safe_norm)(x))
print(
    "agrees with norm at x:",
    jnp.allclose(jax.grad(safe_norm)(x), jax.grad(norm)(x)),
)
print("jvp along x (forward):", jax.jvp(safe_norm, (x,), (x,))[1])
