# raises: FloatingPointError
# match: invalid value \(nan\) encountered in log
import jax
import jax.numpy as jnp


@jax.jit
def nll(p):
    """Mean negative log-likelihood. p: (n,) probabilities -> scalar."""
    return -jnp.mean(jnp.log(p))


p = jnp.array([0.5, 0.25, -0.1])  # a bug upstream made one negative
print("without the check:", nll(p))
with jax.debug_nans(True):
    nll(p)
