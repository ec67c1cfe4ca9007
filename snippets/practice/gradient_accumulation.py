import jax
import jax.numpy as jnp

from practice.optimizers.gradient_accumulation.solution import (
    accumulate_gradients,
)


def loss_fn(params, batch):
    """Mean squared error of a linear model. batch["x"]: (n, 4), batch["y"]:
    (n,) -> scalar."""
    pred = batch["x"] @ params["w"] + params["b"]
    return jnp.mean((pred - batch["y"]) ** 2)


kx, ky = jax.random.split(jax.random.key(0))
batch = {
    "x": jax.random.normal(kx, (64, 4)),
    "y": jax.random.normal(ky, (64,)),
}
params = {"w": jnp.ones(4), "b": jnp.array(0.0)}

full_loss, full_grads = jax.value_and_grad(loss_fn)(params, batch)
for k in (1, 4, 16):
    loss, grads = jax.jit(accumulate_gradients, static_argnums=(0, 3))(
        loss_fn, params, batch, k
    )
    same = jnp.allclose(loss, full_loss) and all(
        jnp.allclose(a, b, atol=1e-6)
        for a, b in zip(jax.tree.leaves(grads), jax.tree.leaves(full_grads))
    )
    print(
        f"{k:2d} micro-batches of {64 // k:2d}: loss {float(loss):.4f}, "
        f"equals full batch: {same}"
    )

jaxpr = jax.make_jaxpr(lambda p, b: accumulate_gradients(loss_fn, p, b, 4))(
    params, batch
)
print(
    "primitives in the jaxpr include scan:",
    any(eqn.primitive.name == "scan" for eqn in jaxpr.eqns),
)
