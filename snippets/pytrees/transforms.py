"""jit and vmap take and return pytrees; vmap's in_axes is a tree prefix."""

import jax
import jax.numpy as jnp


@jax.jit
def stats(batch):
    """batch: {"x": (n, d), "mask": (n,)} -> {"mean": (d,), "count": ()}."""
    m = batch["mask"][:, None]
    count = jnp.sum(batch["mask"])
    return {"mean": jnp.sum(batch["x"] * m, axis=0) / count, "count": count}


batch = {
    "x": jnp.arange(12.0).reshape(4, 3),
    "mask": jnp.array([1.0, 1.0, 0.0, 1.0]),
}
print("jit output:", stats(batch))


def score(params, example):
    """Weighted score of one example.

    params: {"w": (d,), "b": ()}, example: {"x": (d,), "weight": ()} -> ()
    """
    return example["weight"] * (example["x"] @ params["w"] + params["b"])


params = {"w": jnp.ones(3), "b": jnp.float32(0.5)}
examples = {
    "x": jnp.arange(12.0).reshape(4, 3),
    "weight": jnp.array([1.0, 1.0, 0.0, 2.0]),
}
# params shared (None), every leaf of `examples` mapped over axis 0.
print("vmap output:", jax.vmap(score, in_axes=(None, 0))(params, examples))
