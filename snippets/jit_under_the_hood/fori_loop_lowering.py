import jax
from jax import lax


def power(x, n):
    """x**n by n multiplications. x: (), n: int -> ()."""
    return lax.fori_loop(0, n, lambda i, y: y * x, 1.0)


static_n = jax.make_jaxpr(lambda x: power(x, 3))(2.0)  # n = 3 known
traced_n = jax.make_jaxpr(power)(2.0, 3)  # n is a tracer
print(
    "n static:",
    [e.primitive.name for e in static_n.eqns],
    "length =",
    static_n.eqns[0].params["length"],
)
print("n traced:", [e.primitive.name for e in traced_n.eqns])


def dpower_dx(x, n):
    """d(x**n)/dx by forward mode (jvp). x: (), n: int -> ()."""
    return jax.jvp(lambda x: power(x, n), (x,), (1.0,))[1]


print("grad, n static:", jax.jit(jax.grad(power), static_argnums=1)(2.0, 3))
print("jvp,  n traced:", jax.jit(dpower_dx)(2.0, 3))
