import jax
import jax.numpy as jnp


def total(x):
    """Sum of x, converting it first. x: array-like (n,) -> scalar."""
    return jnp.sum(jnp.asarray(x))


values = [1.0, 2.0, 3.0]
print("converted once:", jnp.sum(jnp.array(values)))

# What tracing (Step 3) records for a list and for an array
for label, arg in (("list ", values), ("array", jnp.array(values))):
    jaxpr = jax.make_jaxpr(total)(arg).jaxpr
    print(f"{label}: inputs {len(jaxpr.invars)}, operations {len(jaxpr.eqns)}")
