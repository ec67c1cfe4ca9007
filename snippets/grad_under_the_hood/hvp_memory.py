import jax
import jax.numpy as jnp


def f(x):
    """A scalar function with a dense Hessian. x: (n,) -> scalar."""
    return jnp.sum(jnp.sin(x)) * jnp.sum(x**2)


def hvp(f, x, v):
    """H(x) @ v without forming the Hessian H. x, v: (n,) -> (n,)."""
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


n = 1000
x, v = jnp.ones(n), jnp.ones(n)
hvp_program = str(jax.make_jaxpr(lambda x, v: hvp(f, x, v))(x, v))
full_program = str(jax.make_jaxpr(lambda x, v: jax.hessian(f)(x) @ v)(x, v))
print("hvp builds an (n, n) array:        ", "f32[1000,1000]" in hvp_program)
print("hessian(f)(x) @ v builds an (n, n):", "f32[1000,1000]" in full_program)
