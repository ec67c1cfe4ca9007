# platform: tpu rtol=2e-2 -- `cost_analysis` counts the program XLA compiled for the TPU: a TPU v5e counts up to 1% more for the 200-wide side (16.44 MFLOP where the CPU counts 16.28); the hundredfold gap between `jacfwd` and `jacrev` is the same
# platform: gpu differs -- `cost_analysis` counts the program XLA compiled for the GPU (an H200: 20.84 MFLOP where the CPU counts 16.25)

import jax
import jax.numpy as jnp

W = jax.random.normal(jax.random.key(0), (200, 200))


def many_to_one(x):
    """200 inputs, 1 output. x: (200,) -> (1,)."""
    return jnp.sum(jnp.tanh(W @ x), keepdims=True)


def one_to_many(x):
    """1 input, 200 outputs. x: (1,) -> (200,)."""
    return jnp.tanh(W @ jnp.tanh(W[:, :1] @ x))


def mflops(f, x):
    """Floating-point operations of the compiled f(x), in millions."""
    return jax.jit(f).lower(x).compile().cost_analysis()["flops"] / 1e6


print("compiled cost of the full Jacobian:")
for name, f, x in [
    ("200 inputs -> 1 output ", many_to_one, jnp.ones(200)),
    ("1 input  -> 200 outputs", one_to_many, jnp.ones(1)),
]:
    print(
        f"  {name}: jacfwd {mflops(jax.jacfwd(f), x):6.2f} MFLOP,"
        f" jacrev {mflops(jax.jacrev(f), x):6.2f} MFLOP"
    )
