import jax
import jax.numpy as jnp


def f(x):
    """A map from R^3 to R^2. x: (3,) -> (2,)."""
    return jnp.array([x[0] * x[1], jnp.sin(x[2]) + x[0]])


x = jnp.array([1.0, 2.0, 3.0])
J_fwd = jax.jacfwd(f)(x)  # built from jvps, one per input
J_rev = jax.jacrev(f)(x)  # built from vjps, one per output
print("Jacobian shape (outputs, inputs):", J_fwd.shape)
print(J_fwd)
print("jacfwd == jacrev:", jnp.allclose(J_fwd, J_rev))


def g(x):
    """A scalar function. x: (3,) -> scalar."""
    return jnp.sum(x**3) + x[0] * x[1]


H = jax.hessian(g)(x)
print("Hessian of g:\n", H)
print(
    "hessian == jacfwd(jacrev(g)):",
    jnp.allclose(H, jax.jacfwd(jax.jacrev(g))(x)),
)
