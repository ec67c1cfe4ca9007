"""Rematerialized MLP Block.

Reverse-mode autodiff stores intermediate activations in the forward pass to
use them in the backward pass. ``jax.checkpoint`` (also called remat) stores
only the block's inputs instead and recomputes the rest during the backward
pass: less memory, a bit more compute. A policy can keep selected
intermediates, such as the named pre-activation here.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

# params of one block: {"w1": (D, H), "b1": (H,), "w2": (H, D), "b2": (D,)},
# all float32
Params = dict[str, jax.Array]


def mlp_block(params: Params, x: jax.Array) -> jax.Array:
    """Residual MLP block ``x + gelu(x @ w1 + b1) @ w2 + b2`` (``jax.nn.gelu``,
    default approximation).

    x: (B, D) float32 -> (B, D) float32. No checkpointing.
    """
    raise NotImplementedError("mlp_block: a plain residual MLP")


def remat_mlp_block(
    params: Params, x: jax.Array, save_preactivation: bool = False
) -> jax.Array:
    """``mlp_block`` under ``jax.checkpoint``: same values and gradients, fewer
    saved residuals.

    With ``save_preactivation=False`` the backward pass saves only the inputs
    (params and x) and recomputes every (B, H) intermediate. With
    ``save_preactivation=True`` the pre-activation ``x @ w1 + b1`` is tagged
    with ``jax.ad_checkpoint.checkpoint_name(..., "preactivation")`` and saved
    through the policy
    ``jax.checkpoint_policies.save_only_these_names("preactivation")``; it must
    then be the only (B, H) residual. ``save_preactivation`` is a Python bool.
    """
    raise NotImplementedError(
        "remat_mlp_block: jax.checkpoint(..., policy=...)"
    )


def deep_mlp(
    stacked_params: Params, x: jax.Array, remat: bool = False
) -> jax.Array:
    """Apply L blocks in sequence with one ``jax.lax.scan`` over the layers.

    stacked_params: the block params with a leading layer axis, for example
    w1: (L, D, H). x: (B, D) -> (B, D). With ``remat=True`` every layer is a
    ``remat_mlp_block`` (default policy), so the backward pass keeps only each
    layer's input.
    """
    raise NotImplementedError("deep_mlp: lax.scan over the stacked layers")
