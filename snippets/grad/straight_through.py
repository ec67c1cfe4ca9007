import jax
import jax.numpy as jnp


@jax.custom_vjp
def round_ste(x):
    """Round; the gradient passes straight through. x: any shape."""
    return jnp.round(x)


def round_ste_fwd(x):
    """Forward rule: the output, and residuals for the backward rule."""
    return jnp.round(x), None


def round_ste_bwd(residuals, g):
    """Backward rule: return g unchanged, as if round were the identity."""
    return (g,)  # a tuple with one entry per input of round_ste


round_ste.defvjp(round_ste_fwd, round_ste_bwd)


def quantized_loss(w, x):
    """Loss with weights rounded to integers. w, x: (d,) -> scalar."""
    return jnp.sum(round_ste(w) * x)


w = jnp.array([0.3, 1.7, -2.2])
x = jnp.array([1.0, 2.0, 3.0])
print("forward rounds:     ", round_ste(w))
print("loss:               ", quantized_loss(w, x))
print("grad through STE:   ", jax.grad(quantized_loss)(w, x))
