# platform: tpu rtol=1e-5 -- A TPU multiplies float32 matrices in one bfloat16 pass by default and computes the logarithm inside `random.normal` with its own approximation, so the last printed digit moves (4e-6 here)
import jax
import jax.numpy as jnp


def loss_fn(params, x, y):
    """Mean squared error of a linear model. x: (n, d), y: (n,) -> scalar."""
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def train_step(params, x, y, lr):
    """One SGD step: returns new parameters and the loss before the step."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss


key_x, key_noise = jax.random.split(jax.random.key(0))
x = jax.random.normal(key_x, (64, 3))
y = (
    x @ jnp.array([2.0, -1.0, 0.5])
    + 0.3
    + 0.1 * jax.random.normal(key_noise, (64,))
)
params = {"w": jnp.zeros(3), "b": jnp.array(0.0)}

for step in range(61):
    params, loss = train_step(params, x, y, 0.05)
    if step % 15 == 0:
        print(f"step {step:3d}  loss {loss:.5f}")
print("true    w: [2.0, -1.0, 0.5]  b: 0.3")
print(
    "learned w:",
    [round(float(v), 3) for v in params["w"]],
    " b:",
    round(float(params["b"]), 3),
)
