# platform: tpu differs -- A TPU multiplies float32 matrices in one bfloat16 pass by default, so the runs end elsewhere: lr 0.1 at 1.07e-05, just above the 1e-5 the CPU reaches, lr 0.01 at 0.862, and the diverging lr 1.2 at 1.6e+27
import jax
import jax.numpy as jnp


def loss_fn(w, x, y):
    """MSE of a linear model. w: (d,), x: (n, d), y: (n,) -> ()."""
    return jnp.mean((x @ w - y) ** 2)


def train(lr, x, y):
    """Final loss after 50 SGD steps from zero. lr: () -> ()."""

    def step(w, _):
        return w - lr * jax.grad(loss_fn)(w, x, y), None

    w, _ = jax.lax.scan(step, jnp.zeros(x.shape[1]), None, length=50)
    return loss_fn(w, x, y)


x = jax.random.normal(jax.random.key(0), (64, 3))
y = x @ jnp.array([2.0, -1.0, 0.5])
lrs = jnp.array([0.001, 0.01, 0.1, 1.2])
# 4 runs in one program
final = jax.jit(jax.vmap(train, in_axes=(0, None, None)))(lrs, x, y)
for lr, loss in zip(lrs, final):
    # the digits of a converged loss depend on the matmul precision
    # (lr 0.1: 2.7e-07 in float32, 7.7e-07 in an H200's default TF32)
    shown = f"{float(loss):.3g}" if loss >= 1e-5 else "< 1e-5"
    print(f"lr {float(lr):<6.3g} final loss {shown}")
