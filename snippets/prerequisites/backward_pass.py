# platform: tpu rtol=5e-5 -- A TPU computes float32 tanh with its own approximation, so `jax.grad`'s result moves in the fifth digit (up to 3e-5) from the NumPy one
import jax
import jax.numpy as jnp
import numpy as np

x, t = 1.5, 0.2  # one input and its target
w1, w2 = 0.8, -1.1  # two weights


def loss(w1, w2):
    """Squared error of w2 * tanh(w1 * x). All scalars -> scalar."""
    return (w2 * jnp.tanh(w1 * x) - t) ** 2


# Forward pass, keeping the intermediate values.
h = np.tanh(w1 * x)
y = w2 * h
# Backward pass: chain rule from the loss back to each weight.
dy = 2 * (y - t)  # dL/dy
dw2 = dy * h  # y = w2 * h
dh = dy * w2
dw1 = dh * (1 - h**2) * x  # h = tanh(w1 * x)

# argnums=(0, 1): the gradient with respect to the first two
# arguments, w1 and w2, as a tuple of two
auto = jax.grad(loss, argnums=(0, 1))(w1, w2)
print(f"by hand:  dL/dw1 = {dw1:.5f}, dL/dw2 = {dw2:.5f}")
print(
    f"jax.grad: dL/dw1 = {float(auto[0]):.5f}, dL/dw2 = {float(auto[1]):.5f}"
)
