import jax
import jax.numpy as jnp


def f(x):
    """A scalar function with a dense Hessian. x: (n,) -> scalar."""
    return jnp.sum(jnp.sin(x)) * jnp.sum(x**2)


def hvp(f, x, v):
    """H(x) @ v without forming the Hessian H. x, v: (n,) -> (n,)."""
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


x = jnp.array([0.5, -1.0, 2.0, 0.1])
v = jnp.array([1.0, 0.0, 2.0, -1.0])
print("hvp:          ", hvp(f, x, v))
print("hessian @ v:  ", jax.hessian(f)(x) @ v)
print("match:", jnp.allclose(hvp(f, x, v), jax.hessian(f)(x) @ v, atol=1e-5))
