import jax
import jax.numpy as jnp

seen = []


@jax.jit
def double_sum(x):
    """Sum of 2 * x. x: (n,) -> scalar."""
    print("print inside jit:", x)  # runs while tracing, on a tracer
    seen.append(x)  # a side effect on a global: also runs only while tracing
    return jnp.sum(2 * x)


for i in range(3):
    out = double_sum(jnp.full(3, float(i)))
    print(f"call {i}: result {out}")
print("items in the global list:", len(seen))
print("what was stored:", seen[0])
