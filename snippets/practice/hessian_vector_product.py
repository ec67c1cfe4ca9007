# platform: tpu rtol=2e-5 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes float32 tanh with its own approximation, so the last digits move (up to 6e-6)
import jax
import jax.numpy as jnp

from practice.autodiff.hessian_vector_product.solution import hvp, sharpness


def f(x):
    """A scalar function of x: (n,) with a dense Hessian."""
    return jnp.sum(jnp.tanh(x)) * jnp.sum(x**2) + 0.25 * jnp.sum(x**4)


x = jnp.linspace(-1.0, 1.0, 5)
v = jnp.array([1.0, 0.0, 0.0, 0.0, -1.0])
print("hvp(f, x, v):        ", hvp(f, x, v))
print("jax.hessian(f)(x) @ v:", jax.hessian(f)(x) @ v)

d = jnp.array([1.0, -5.0, 3.0, 2.0, 0.5])


def quadratic(x):
    """x: (5,) -> scalar, with Hessian diag(d)."""
    return 0.5 * jnp.sum(d * x**2)


print(
    "sharpness of diag(d):",
    sharpness(quadratic, jnp.ones(5), jax.random.key(0)),
)

n = 1000
program = str(
    jax.make_jaxpr(lambda x, v: hvp(f, x, v))(jnp.ones(n), jnp.ones(n))
)
print(
    f"an ({n}, {n}) array in the hvp program:        ", f"[{n},{n}]" in program
)
program = str(
    jax.make_jaxpr(lambda x, v: jax.hessian(f)(x) @ v)(
        jnp.ones(n), jnp.ones(n)
    )
)
print(
    f"an ({n}, {n}) array in the jax.hessian program:", f"[{n},{n}]" in program
)
