"""A Pallas kernel, run by the Pallas interpreter on CPU."""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

ROWS_PER_BLOCK = 4


def softmax_kernel(x_ref, o_ref):
    """One block of rows: x_ref, o_ref: (ROWS_PER_BLOCK, n) refs."""
    x = x_ref[...]  # load the block
    e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)  # store the block


@jax.jit
def softmax(x):
    """Row-wise softmax, one kernel instance per block of rows. x: (m, n)."""
    block = pl.BlockSpec((ROWS_PER_BLOCK, x.shape[1]), lambda i: (i, 0))
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // ROWS_PER_BLOCK,),  # 4 instances for 16 rows
        in_specs=[block],
        out_specs=block,
        interpret=True,  # no GPU or TPU here: run the kernel's jaxpr
    )(x)


x = jax.random.normal(jax.random.key(0), (16, 128))
print(
    "matches jax.nn.softmax:",
    bool(jnp.allclose(softmax(x), jax.nn.softmax(x), atol=1e-6)),
)
print(
    "the jaxpr holds a pallas_call:",
    "pallas_call" in str(jax.make_jaxpr(softmax)(x)),
)
