"""Rematerialized MLP Block: reference solution."""

from __future__ import annotations

import jax
from jax.ad_checkpoint import checkpoint_name

Params = dict[str, jax.Array]


def _block(params: Params, x: jax.Array) -> jax.Array:
    """x (B, D) -> (B, D); the pre-activation carries a name that a policy can
    refer to."""
    # (B, H)
    pre = checkpoint_name(x @ params["w1"] + params["b1"], "preactivation")
    return x + jax.nn.gelu(pre) @ params["w2"] + params["b2"]


def mlp_block(params: Params, x: jax.Array) -> jax.Array:
    """Plain residual MLP block. x: (B, D) -> (B, D)."""
    return _block(params, x)


def remat_mlp_block(
    params: Params, x: jax.Array, save_preactivation: bool = False
) -> jax.Array:
    """The same block under jax.checkpoint. x: (B, D) -> (B, D)."""
    # None: save nothing but the inputs
    policy = (
        jax.checkpoint_policies.save_only_these_names("preactivation")
        if save_preactivation
        else None
    )
    return jax.checkpoint(_block, policy=policy)(params, x)


def deep_mlp(
    stacked_params: Params, x: jax.Array, remat: bool = False
) -> jax.Array:
    """L blocks, lax.scan over the leading layer axis. x: (B, D) -> (B, D)."""
    block = remat_mlp_block if remat else mlp_block

    def layer(h, params):
        return block(params, h), None

    out, _ = jax.lax.scan(layer, x, stacked_params)
    return out
