"""Maps over x instead of over the models: in_axes=(None, 0).

Caught by: test_predict_shared_batch,
    test_split_with_repeated_batch_equals_shared,
    test_under_jit_and_model_count_not_batch_count
"""

from functools import partial

import jax
import jax.numpy as jnp

Params = dict[str, jax.Array]


def init_mlp(key: jax.Array, d_in: int, d_hidden: int, d_out: int) -> Params:
    """One MLP: w1 (d_in, d_hidden), b1, w2 (d_hidden, d_out), b2."""
    k1, k2 = jax.random.split(key)
    return {
        "w1": jax.random.normal(k1, (d_in, d_hidden)) / jnp.sqrt(d_in),
        "b1": jnp.zeros(d_hidden),
        "w2": jax.random.normal(k2, (d_hidden, d_out)) / jnp.sqrt(d_hidden),
        "b2": jnp.zeros(d_out),
    }


def mlp(params: Params, x: jax.Array) -> jax.Array:
    """x: (B, d_in) -> (B, d_out)."""
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def init_ensemble(
    key: jax.Array, n_models: int, d_in: int, d_hidden: int, d_out: int
) -> Params:
    """M MLPs stacked along a leading axis of every leaf."""
    keys = jax.random.split(key, n_models)
    return jax.vmap(
        partial(init_mlp, d_in=d_in, d_hidden=d_hidden, d_out=d_out)
    )(keys)


def ensemble_predict(ensemble: Params, x: jax.Array) -> jax.Array:
    """Shared batch. x: (B, d_in) -> (M, B, d_out)."""
    return jax.vmap(mlp, in_axes=(None, 0))(ensemble, x)


def ensemble_predict_split(ensemble: Params, xs: jax.Array) -> jax.Array:
    """One batch per model. xs: (M, B, d_in) -> (M, B, d_out)."""
    return jax.vmap(mlp, in_axes=(0, 0))(ensemble, xs)
