import jax


def power(x, n):
    """x**n by n multiplications. x: (), n: int -> ()."""
    y = 1.0
    for _ in range(n):  # n is a plain Python int now
        y = y * x
    return y


power_jit = jax.jit(power, static_argnames="n")
print("2.0 ** 3 =", power_jit(2.0, n=3))
jaxpr = jax.make_jaxpr(power, static_argnums=1)(2.0, 3)
print("the loop, unrolled:", [str(e.primitive) for e in jaxpr.eqns])
