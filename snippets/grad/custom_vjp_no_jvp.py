# raises: TypeError
# match: can't apply forward-mode autodiff \(jvp\) to a custom_vjp function
import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_grad(x):
    """Identity; the backward pass clips the gradient to [-1, 1]."""
    return x


def clip_grad_fwd(x):
    """Forward rule: the output, and no residuals."""
    return x, None


def clip_grad_bwd(residuals, g):
    """Backward rule: the incoming cotangent, clipped."""
    return (jnp.clip(g, -1.0, 1.0),)


clip_grad.defvjp(clip_grad_fwd, clip_grad_bwd)


def loss(x):
    """Sum of 5 x. x: (n,) -> scalar."""
    return jnp.sum(5 * x)


def clipped_loss(x):
    """The same sum, with the gradient clipped on the way back."""
    return jnp.sum(5 * clip_grad(x))


x = jnp.array([0.5, 3.0])
print("grad of loss:        ", jax.grad(loss)(x))
print("grad of clipped_loss:", jax.grad(clipped_loss)(x))
jax.jvp(clip_grad, (x,), (jnp.ones(2),))  # forward mode
