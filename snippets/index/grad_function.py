import jax


def f(x):
    """A scalar function of a scalar: x**3."""
    return x**3


df = jax.grad(f)  # a new Python function: x -> 3 x**2
print("df is a function:", callable(df))
print("df(3.0) =", df(3.0))
print("grad of df at 3.0 =", jax.grad(df)(3.0))  # 6 x
