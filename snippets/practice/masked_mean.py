import jax
import jax.numpy as jnp

from practice.arrays.masked_mean.solution import masked_mean

x = jnp.array(
    [[1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0], [5.0, 5.0, 5.0, 5.0]]
)
mask = jnp.array(
    [
        [True, False, True, False],
        [False, False, False, True],
        [False, False, False, False],
    ]
)
print("masked_mean(x, mask):", masked_mean(x, mask))
print("under jit:           ", jax.jit(masked_mean)(x, mask))

# The naive jnp.mean(..., where=mask) divides 0 by 0 on the empty row.
print("jnp.mean(where=mask):", jnp.mean(x, axis=-1, where=mask))

grad = jax.grad(lambda x: masked_mean(x, mask).sum())(x)
print("gradient:\n", grad)

# Boolean indexing gives a value-dependent shape, which jit rejects.
try:
    jax.jit(lambda x, mask: x[mask].mean())(x[0], mask[0])
except jax.errors.NonConcreteBooleanIndexError as err:
    print("x[mask] under jit:", type(err).__name__)
