import jax
import jax.numpy as jnp


def f(x):
    """A map from R^3 to R^2. x: (3,) -> (2,)."""
    return jnp.array([x[0] * x[1], jnp.sin(x[2]) + x[0]])


x = jnp.array([1.0, 2.0, 3.0])
J = jax.jacobian(f)(x)  # (2, 3), only to check the results below

v = jnp.array([1.0, 0.0, -1.0])  # a tangent: an input-space direction
y, Jv = jax.jvp(f, (x,), (v,))  # forward mode: f(x) and J @ v in one pass
print("f(x):  ", y)
print("J @ v: ", Jv, " check:", J @ v)

u = jnp.array([1.0, 2.0])  # a cotangent: an output-space weighting
y, f_vjp = jax.vjp(f, x)  # reverse mode: f(x) and a function u -> u @ J
(uJ,) = f_vjp(u)  # one entry per input of f
print("u @ J: ", uJ, " check:", u @ J)


def loss(x):
    """A scalar function. x: (3,) -> scalar."""
    return jnp.sum(f(x) ** 2)


_, loss_vjp = jax.vjp(loss, x)
print("vjp with u = 1.0:", loss_vjp(1.0)[0])
print("grad:            ", jax.grad(loss)(x))
