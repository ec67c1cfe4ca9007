# raises: jax.experimental.checkify.JaxRuntimeError
# match: index 5 is out of bounds
import jax
import jax.numpy as jnp
from jax.experimental import checkify


def normalized_log(x):
    """log(x) / sum(log(x)), checking its input. x: (n,) -> (n,)."""
    checkify.check(jnp.all(x > 0), "non-positive input, min {m}", m=x.min())
    logs = jnp.log(x)
    return logs / logs.sum()


checked = jax.jit(checkify.checkify(normalized_log))
err, out = checked(jnp.array([2.0, 4.0]))
print("good input: error", err.get(), "| out", jnp.round(out, 4))
err, out = checked(jnp.array([2.0, -4.0]))
print("bad input:  error", err.get())


def sqrt_at(x, i):
    """Square root of one entry. x: (n,), i: () -> ()."""
    return jnp.sqrt(x[i])


# errors= adds automatic checks, here for NaNs and out-of-bounds indices
pick = jax.jit(checkify.checkify(sqrt_at, errors=checkify.all_checks))
err, _ = pick(jnp.array([1.0, -1.0]), 1)
print("sqrt(-1):   error", err.get())
err, _ = pick(jnp.array([1.0, -1.0]), 5)
err.throw()  # raise it as a Python exception
