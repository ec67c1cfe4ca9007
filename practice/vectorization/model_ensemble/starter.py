"""Model Ensemble with in_axes.

Initialise M small MLPs with one vmap over keys, then evaluate all of them with
vmap, either on one shared batch or on one batch per model. ``in_axes`` says
which argument carries the model axis.
"""

import jax
import jax.numpy as jnp

Params = dict[str, jax.Array]


def init_mlp(key: jax.Array, d_in: int, d_hidden: int, d_out: int) -> Params:
    """Initialise one two-layer MLP.

    Exactly this scheme (the tests reproduce it):
        k1, k2 = jax.random.split(key)
        w1 = jax.random.normal(k1, (d_in, d_hidden)) / sqrt(d_in)
        w2 = jax.random.normal(k2, (d_hidden, d_out)) / sqrt(d_hidden)
        b1 = zeros (d_hidden,), b2 = zeros (d_out,)
    Returns {"w1", "b1", "w2", "b2"}, all float32.
    """
    raise NotImplementedError(
        "init_mlp: split the key, draw two normal weight matrices"
    )


def mlp(params: Params, x: jax.Array) -> jax.Array:
    """One MLP, tanh(x @ w1 + b1) @ w2 + b2. x: (B, d_in) -> (B, d_out)."""
    raise NotImplementedError("mlp: two affine layers with tanh in between")


def init_ensemble(
    key: jax.Array, n_models: int, d_in: int, d_hidden: int, d_out: int
) -> Params:
    """M independent MLPs as one pytree with a leading model axis.

    Model m is ``init_mlp(jax.random.split(key, n_models)[m], ...)``. Returns
    the same dict as ``init_mlp``, with shapes

        w1: (M, d_in, d_hidden), b1: (M, d_hidden),
        w2: (M, d_hidden, d_out), b2: (M, d_out).

    Use vmap, not a Python loop.
    """
    raise NotImplementedError("init_ensemble: vmap init_mlp over split keys")


def ensemble_predict(ensemble: Params, x: jax.Array) -> jax.Array:
    """Every model on the same batch. x: (B, d_in) -> (M, B, d_out)."""
    raise NotImplementedError(
        "ensemble_predict: vmap mlp; x has no model axis"
    )


def ensemble_predict_split(ensemble: Params, xs: jax.Array) -> jax.Array:
    """Model m on its own batch xs[m]. xs: (M, B, d_in) -> (M, B, d_out)."""
    raise NotImplementedError(
        "ensemble_predict_split: vmap mlp; both arguments have a model axis"
    )
