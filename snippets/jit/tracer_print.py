import jax
import jax.numpy as jnp


@jax.jit
def scale(x, factor):
    """Multiply x by factor. x: (n,), factor: () -> (n,)."""
    print("inside scale: x =", x)
    print("inside scale: factor =", factor)
    print("x.shape:", x.shape, " x.dtype:", x.dtype)
    return x * factor


result = scale(jnp.array([1.0, 2.0, 3.0]), 2.0)
print("result:", result)
